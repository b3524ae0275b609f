// libFuzzer target: the merge step (src/atp/merge/merger.h) over fragments made from the input,
// then the reader and the summary over the .atp it wrote. A process's fragments are what a crash
// leaves and what another user's program can put in a shared directory: the merge may refuse them
// (false with an error) or leave records out (notes), but must not crash, and what it writes must
// read back.
//
// The first byte picks the fragment's tag (OpenCL, HSA, CLPerfMarker, ActivityLogger), whether
// the rest is raw bytes after a valid fragment header (damaged or cut blocks; for a marker tag
// with bit 3, the text of a finished marker file instead), and whether the merge keeps at most a
// few API lines (the cut, with its heap when the threads go back in time), and whether markers
// are packed as marker words (bit 4) or records. Otherwise the rest is
// records: a byte for the kind, the thread and the time's direction, two bytes of time step,
// then the kind's fields (see nextRecord()), packed into one fragment per thread as the recorder
// writes them, so that every field value reaches the decoders and the line writers; with bit 7
// the four threads' fragments have four different tags (one process with every kind of input).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "analysis/render.h"
#include "analysis/summary.h"
#include "atp/merge/merger.h"
#include "atp/read/trace_parser.h"
#include "atp_trace_support.h"
#include "record/fragments/fragment.h"

namespace {

using namespace perfmarker;
using atp::testing::Rec;

constexpr uint64_t kPid = 4242;

class Input {
public:
    Input(const uint8_t* data, size_t size) : m_p(data), m_end(data + size) {}
    bool empty() const { return m_p >= m_end; }
    uint8_t byte() { return empty() ? 0 : *m_p++; }
    uint64_t word(size_t bytes) {
        uint64_t v = 0;
        for (size_t i = 0; i < bytes; ++i) v |= uint64_t{byte()} << (8 * i);
        return v;
    }
    std::string bytes(size_t n) {
        std::string out;
        while (n-- > 0 && !empty()) out.push_back(static_cast<char>(byte()));
        return out;
    }

private:
    const uint8_t* m_p;
    const uint8_t* m_end;
};

// An ApiCall payload whose head agrees with its size: the decoders then go on to the fields.
std::string apiPayload(Input& in, uint64_t start) {
    const uint8_t id = in.byte();
    const uint16_t slot = static_cast<uint16_t>(in.word(1));
    const size_t args = in.byte() % 10;
    const uint64_t ret = in.word(in.byte() % 9);
    const uint64_t enqueueId = in.byte() % 4;
    std::vector<uint64_t> values;
    for (size_t i = 0; i < args; ++i) values.push_back(in.word(in.byte() % 9));
    std::vector<atp::testing::Capture> captures;
    for (size_t n = in.byte() % 4; n > 0; --n) {
        atp::testing::Capture c;
        c.argIndex = static_cast<uint16_t>(in.byte() % (args + 2));
        c.encoding = static_cast<record::CaptureEncoding>(in.byte() % 5);
        c.bytes = in.bytes(in.byte() % 48);
        captures.push_back(std::move(c));
    }
    Rec r = atp::testing::apiCall(start, start + in.word(2), id == 255 ? record::kNoApiId : id,
                                  values, ret, enqueueId, captures, slot);
    return r.s0;
}

// One record, or false at the end of the input.
bool nextRecord(Input& in, uint64_t& time, std::map<uint64_t, std::vector<Rec>>& threads) {
    if (in.empty()) return false;
    const uint8_t head = in.byte();
    const uint64_t step = in.word(2);
    time = (head & 0x80) != 0 && time > step ? time - step : time + step;
    const uint64_t tid = 100 + ((head >> 3) & 3);
    Rec r;
    r.time = time;
    switch (head % 6) {
        case 0:
        case 1:
        case 2:
            r.kind = static_cast<record::RecordKind>(head % 6 + 1);
            r.s0 = in.bytes(in.byte() % 64);
            r.s1 = in.bytes(in.byte() % 16);
            r.s2 = in.bytes(in.byte() % 16);
            break;
        case 3:
            r.kind = record::RecordKind::ApiCall;
            r.s0 = apiPayload(in, time);
            break;
        case 4:
            r.kind = record::RecordKind::DeviceTimes;
            r.s0 = in.bytes(in.byte() % 2 == 0 ? 48 : in.byte() % 96);
            if (r.s0.size() >= 8) r.s0[0] = static_cast<char>(r.s0[0] & 3);  // a known enqueue
            break;
        default:
            r.kind = record::RecordKind::ObjectInfo;
            r.s0 = in.bytes(in.byte() % 2 == 0 ? 40 : in.byte() % 64);
            r.s1 = in.bytes(in.byte() % 24);
            break;
    }
    threads[tid].push_back(std::move(r));
    return true;
}

// One directory for the run (never freed: the exit handler removes it after the statics are gone).
const std::string& sessionDir() {
    static const std::string* const dir = [] {
        auto* path = new std::string(getenv("TMPDIR") != nullptr ? getenv("TMPDIR") : "/tmp");
        *path += "/fuzz_merge.XXXXXX";
        if (mkdtemp(path->data()) == nullptr) std::abort();
        std::atexit([] { rmdir(sessionDir().c_str()); });
        return path;
    }();
    return *dir;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    static const char* const kTags[] = {"ocl", "hsa", "clperfmarker", "amdtperfmarker"};
    const uint8_t selector = data[0];
    const std::string tag = kTags[selector & 3];
    const std::string& dir = sessionDir();
    std::vector<std::string> files;
    Input in(data + 1, size - 1);
    const bool markerTag = (selector & 2) != 0;
    if ((selector & 4) != 0 && markerTag && (selector & 8) != 0) {
        files.push_back(dir + "/out." + tag);
        atp::testing::writeFile(files.back(),
                                std::string(reinterpret_cast<const char*>(data + 1), size - 1));
    } else if ((selector & 4) != 0) {
        record::FragmentHeader h{};
        std::memcpy(h.magic, record::kFragmentMagic, sizeof h.magic);
        h.pid = kPid;
        std::string bytes(reinterpret_cast<const char*>(&h), sizeof h);
        bytes.append(reinterpret_cast<const char*>(data + 1), size - 1);
        files.push_back(dir + "/" + record::fragmentFileName(kPid, 0, tag));
        atp::testing::writeFile(files.back(), bytes);
    } else {
        std::map<uint64_t, std::vector<Rec>> threads;
        uint64_t time = 1000000;
        while (nextRecord(in, time, threads)) {
        }
        uint64_t index = 0;
        for (const auto& [tid, records] : threads) {
            const std::string threadTag =
                (selector & 0x80) != 0 ? kTags[(selector + tid) & 3] : tag;
            files.push_back(dir + "/" + record::fragmentFileName(kPid, index++, threadTag));
            atp::testing::writeFile(
                files.back(),
                atp::testing::fragmentBytes(kPid, tid, records, 0, (selector & 0x10) != 0));
        }
    }

    atp::MergeOptions options;
    options.removeInputs = false;
    options.note = [](const std::string&) {};
    if ((selector & 8) != 0) {
        options.ocl.maxApiCalls = selector >> 4;
        options.hsa.maxApiCalls = selector >> 4;
    }
    atp::AtpHeader header;
    header.application = "/bin/app";
    atp::MergeResult result;
    std::string error;
    const bool merged = atp::mergeProcess(dir, kPid, dir + "/out", header, options, result, error);
    if (merged && result.written) {
        atp::TraceParser parser;
        analysis::TraceSummary summary;
        parser.addListener(summary);
        std::string readError;
        if (!parser.parseFile(result.atpPath, readError)) {
            std::fprintf(stderr, "the merge wrote an .atp the reader refuses: %s\n",
                         readError.c_str());
            std::abort();
        }
        // And `perfmarker summary` of it renders.
        const std::string text = analysis::renderText(summary.tables());
        if (text.empty() && !summary.tables().empty()) std::abort();
    }
    for (const std::string& f : files) unlink(f.c_str());
    if (!result.atpPath.empty()) unlink(result.atpPath.c_str());
    return 0;
}
