// Helpers of the trace-model tests: agent records built by hand, fragment files, a small fake
// OclFormatter (so the builder is tested apart from the real API catalogue), a temp dir.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "atp/write/ocl_sections.h"
#include "record/api_record.h"
#include "record/fragments/packed_block.h"
#include "record/record_format.h"

namespace perfmarker::atp::testing {

namespace fs = std::filesystem;

// ---- fake API catalogue ----------------------------------------------------------------------

// Ids of the fake catalogue (the CL_FUNC_TYPE values of docs/format.md#opencl-api-ids where
// it has them).
inline constexpr uint32_t kBuildProgram = 31;
inline constexpr uint32_t kGetEventInfo = 43;
inline constexpr uint32_t kFinish = 51;
inline constexpr uint32_t kReadBuffer = 52;
inline constexpr uint32_t kNdrange = 66;
inline constexpr uint32_t kNativeKernel = 68;
inline constexpr uint32_t kMarker = 73;

inline const std::map<uint32_t, std::pair<const char*, bool>>& fakeApis() {
    static const std::map<uint32_t, std::pair<const char*, bool>> apis = {
        {kBuildProgram, {"clBuildProgram", false}},
        {kGetEventInfo, {"clGetEventInfo", false}},
        {kFinish, {"clFinish", false}},
        {kReadBuffer, {"clEnqueueReadBuffer", true}},
        {kNdrange, {"clEnqueueNDRangeKernel", true}},
        {kNativeKernel, {"clEnqueueNativeKernel", true}},
        {kMarker, {"clEnqueueMarker", true}},
    };
    return apis;
}

inline std::string hex(uint64_t v) {
    if (v == 0) return "NULL";
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
    return buf;
}

// Lines "CL_SUCCESS = name ( a0;a1;... )", every argument in hex. NDRange: queue, kernel,
// global, local; ReadBuffer: queue, buffer, size; Native: queue, function. apiId 999 fails.
class FakeFormatter final : public OclFormatter {
public:
    std::string_view apiName(const record::ApiCallView& call) const override {
        const auto it = fakeApis().find(call.head.apiId);
        return it == fakeApis().end() ? "Unknown_function_type" : it->second.first;
    }
    int apiType(const record::ApiCallView& call) const override {
        return static_cast<int>(call.head.apiId);
    }
    bool isSuccessfulEnqueue(const record::ApiCallView& call) const override {
        const auto it = fakeApis().find(call.head.apiId);
        return it != fakeApis().end() && it->second.second && call.head.ret == 0;
    }
    bool apiLine(const record::ApiCallView& call, uint32_t count, std::string& line,
                 std::string& error) const override {
        if (call.head.apiId == 999) {
            line += "5 = half a line";  // as the real formatter leaves it, failing midway
            error = "no such API";
            return false;
        }
        line += (call.head.ret == 0 ? std::string("CL_SUCCESS")
                                    : std::to_string(static_cast<int64_t>(call.head.ret))) +
                " = " + std::string(apiName(call)) + " ( ";
        for (size_t i = 0; i < call.head.argCount; ++i) {
            if (i > 0) line += ';';
            line += hex(call.arg(i));
        }
        if (count > 1) line += " /*" + std::to_string(count) + " consecutive calls*/";
        line += " )";
        return true;
    }
    bool enqueueInfo(const record::ApiCallView& call, OclEnqueueInfo& info,
                     std::string&) const override {
        info = OclEnqueueInfo{};
        info.queue = call.arg(0);
        if (call.head.apiId == kNdrange) {
            info.kernel = call.arg(1);
            info.globalSize = "{" + std::to_string(call.arg(2)) + "}";
            info.localSize = call.arg(3) == 0 ? "{NULL}" : "{" + std::to_string(call.arg(3)) + "}";
        } else if (call.head.apiId == kNativeKernel) {
            info.kernel = call.arg(1);
        } else if (call.head.apiId == kReadBuffer) {
            info.hasDataSize = true;
            info.dataSize = call.arg(2);
        }
        return true;
    }
    std::string commandTypeName(uint32_t type) const override {
        switch (type) {
            case 0x11F0:
                return "CL_COMMAND_NDRANGE_KERNEL";
            case 0x11F2:
                return "CL_COMMAND_NATIVE_KERNEL";
            case 0x11F3:
                return "CL_COMMAND_READ_BUFFER";
            case 0x11FE:
                return "CL_COMMAND_MARKER";
            default:
                return std::to_string(type);
        }
    }
    std::string handleString(uint64_t handle) const override { return hex(handle); }
};

// ---- records ---------------------------------------------------------------------------------

struct Capture {
    uint16_t argIndex;
    record::CaptureEncoding encoding;
    std::string bytes;
};

// One record: header fields plus its three strings.
struct Rec {
    uint64_t time = 0;
    record::RecordKind kind = record::RecordKind::ApiCall;
    std::string s0, s1, s2;
};

inline void appendRaw(std::string& out, const void* p, size_t n) {
    out.append(static_cast<const char*>(p), n);
}

inline Rec apiCall(uint64_t start, uint64_t end, uint32_t apiId, std::vector<uint64_t> args,
                   uint64_t ret = 0, uint64_t enqueueId = 0, std::vector<Capture> captures = {},
                   uint16_t slot = 0) {
    record::ApiCallHead head{};
    head.endTime = end;
    head.apiId = apiId;
    head.slot = slot;
    head.argCount = static_cast<uint16_t>(args.size());
    head.ret = ret;
    head.enqueueId = enqueueId;
    Rec r;
    r.time = start;
    r.kind = record::RecordKind::ApiCall;
    appendRaw(r.s0, &head, sizeof head);
    for (const uint64_t a : args) appendRaw(r.s0, &a, 8);
    for (const Capture& c : captures) {
        record::CapturedHead ch{c.argIndex, static_cast<uint16_t>(c.encoding),
                                static_cast<uint32_t>(c.bytes.size())};
        appendRaw(r.s0, &ch, sizeof ch);
        r.s0 += c.bytes;
        r.s0.append(record::padTo8(c.bytes.size()) - c.bytes.size(), '\0');
    }
    return r;
}

inline Rec deviceTimes(uint64_t time, uint64_t enqueueId, uint64_t queued, uint64_t submit,
                       uint64_t start, uint64_t end, uint32_t commandType) {
    record::DeviceTimesPayload p{};
    p.enqueueId = enqueueId;
    p.queued = queued;
    p.submit = submit;
    p.start = start;
    p.end = end;
    p.commandType = commandType;
    Rec r;
    r.time = time;
    r.kind = record::RecordKind::DeviceTimes;
    appendRaw(r.s0, &p, sizeof p);
    return r;
}

inline Rec objectInfo(uint64_t time, record::ObjectType type, uint32_t id, uint64_t handle,
                      uint64_t parent = 0, uint64_t device = 0, uint64_t properties = 0,
                      std::string name = {}) {
    record::ObjectInfoPayload p{};
    p.type = static_cast<uint32_t>(type);
    p.id = id;
    p.handle = handle;
    p.parent = parent;
    p.device = device;
    p.properties = properties;
    Rec r;
    r.time = time;
    r.kind = record::RecordKind::ObjectInfo;
    appendRaw(r.s0, &p, sizeof p);
    r.s1 = std::move(name);
    return r;
}

inline Rec marker(record::RecordKind kind, uint64_t time, std::string name = {},
                  std::string group = {}) {
    Rec r;
    r.time = time;
    r.kind = kind;
    r.s0 = std::move(name);
    r.s1 = std::move(group);
    return r;
}

// The bytes of a record as the recorder writes them.
inline std::string encode(const Rec& r) {
    std::string out(sizeof(record::RecordHeader), '\0');
    record::storeHeader(reinterpret_cast<unsigned char*>(out.data()), r.time,
                        static_cast<uint32_t>(r.kind), static_cast<uint32_t>(r.s0.size()),
                        static_cast<uint32_t>(r.s1.size()), static_cast<uint32_t>(r.s2.size()));
    out += r.s0 + r.s1 + r.s2;
    out.append(record::recordSize(r.s0.size(), r.s1.size(), r.s2.size()) - out.size(), '\0');
    return out;
}

// A fragment file holding one block: thread `tid`'s records (docs/format.md#fragments). With
// `markerWords`, marker Ends without strings and Begins without a user string are marker words
// as the writer packs compact records (a slot per name and group length, redefined when its
// strings change).
inline std::string fragmentBytes(uint64_t pid, uint64_t tid, const std::vector<Rec>& records,
                                 uint64_t serial = 0, bool markerWords = false) {
    record::FragmentHeader h{};
    std::memcpy(h.magic, record::kFragmentMagic, sizeof h.magic);
    h.pid = pid;
    record::BlockPacker packer;
    packer.begin();
    const Rec* slots[record::packed::kWordSlots] = {};
    for (const Rec& r : records) {
        if (markerWords && r.kind == record::RecordKind::MarkerEnd && r.s0.empty() &&
            r.s1.empty() && r.s2.empty()) {
            packer.addEndWord(r.time);
            continue;
        }
        if (markerWords && r.kind == record::RecordKind::MarkerBegin && r.s2.empty()) {
            const unsigned slot = (r.s0.size() + r.s1.size()) % record::packed::kWordSlots;
            if (slots[slot] != nullptr && (slots[slot]->s0 != r.s0 || slots[slot]->s1 != r.s1)) {
                packer.forgetSlot(slot);
            }
            slots[slot] = &r;
            packer.addBeginWord(r.time, slot, r.s0, r.s1);
            continue;
        }
        record::RecordView view;
        view.time = r.time;
        view.kind = r.kind;
        view.str0 = r.s0;
        view.str1 = r.s1;
        view.str2 = r.s2;
        packer.add(view);
    }
    const record::BlockHeader b{tid, serial, static_cast<uint32_t>(packer.size()),
                                static_cast<uint32_t>(records.size())};
    std::string out;
    appendRaw(out, &h, sizeof h);
    appendRaw(out, &b, sizeof b);
    appendRaw(out, packer.data(), packer.size());
    return out;
}

inline void writeFile(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// A replay over records held in memory (decoded from their encoded bytes, like a fragment).
inline RecordReplay memoryReplay(std::vector<Rec> records) {
    auto bytes = std::make_shared<std::string>();
    for (const Rec& r : records) *bytes += encode(r);
    return [bytes](const RecordVisit& visit, std::string&) {
        const auto* p = reinterpret_cast<const unsigned char*>(bytes->data());
        size_t pos = 0;
        record::RecordView view;
        while (pos < bytes->size()) {
            const size_t n = record::decodeRecord(p + pos, bytes->size() - pos, view);
            if (n == 0) return false;
            if (!visit(view)) return true;
            pos += n;
        }
        return true;
    };
}

// A fresh directory per test, removed afterwards.
class TempDir {
public:
    TempDir() {
        char tmpl[] = "/tmp/perfmarker-atp-XXXXXX";
        if (const char* p = mkdtemp(tmpl)) m_path = p;
    }
    ~TempDir() {
        std::error_code ec;
        if (!m_path.empty()) fs::remove_all(m_path, ec);
    }
    const std::string& path() const { return m_path; }
    std::string file(const std::string& name) const { return m_path + "/" + name; }

private:
    std::string m_path;
};

}  // namespace perfmarker::atp::testing
