// The merge step (src/atp/merge/merger.h): real fragment files (by hand and from record::Recorder)
// and finished marker files merged into an .atp that is read back with the .atp reader.
//
// Needs PERFMARKER_FIXTURES_DIR (tests/fixtures), set by perfmarker_add_gtest.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>

#include "api/hsa_api.h"
#include "atp/format/timestamp_fields.h"
#include "atp/merge/merger.h"
#include "atp_document.h"
#include "atp_trace_support.h"
#include "record/fragments/fragment.h"
#include "record/recorder.h"
#include "sanitizers.h"

#ifndef PERFMARKER_FIXTURES_DIR
#error "PERFMARKER_FIXTURES_DIR must name tests/fixtures"
#endif

namespace perfmarker::atp {
namespace {

using namespace perfmarker::atp::testing;
using record::ObjectType;
using record::RecordKind;
using ::testing::AllOf;
using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

constexpr uint64_t kPid = 4242;
constexpr uint64_t kQueue = 0x5000;
constexpr uint64_t kContext = 0x6000;
constexpr uint64_t kDevice = 0x7000;

std::string fixture(const std::string& name) {
    return std::string(PERFMARKER_FIXTURES_DIR) + "/perfmarker/" + name;
}

std::vector<std::string> namesIn(const std::string& dir) {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
    std::sort(names.begin(), names.end());
    return names;
}

std::vector<Rec> queueObjects() {
    return {objectInfo(1, ObjectType::Context, 0, kContext),
            objectInfo(2, ObjectType::Device, 0, kDevice, 0, kDevice, 4, "gfx900"),
            objectInfo(3, ObjectType::Queue, 0, kQueue, kContext, kDevice)};
}

// One fragment file per thread here, numbered tid * 10 + serial: the merge puts a tid's threads
// in file order.
void writeFragment(const TempDir& dir, uint64_t pid, uint64_t tid, uint64_t serial,
                   const std::string& tag, const std::vector<Rec>& records) {
    writeFile(dir.file(record::fragmentFileName(pid, tid * 10 + serial, tag)),
              fragmentBytes(pid, tid, records, serial));
}

// A process with three recording threads (one split over two fragments) and a callback thread.
void writeOclProcess(const TempDir& dir, uint64_t pid) {
    std::vector<Rec> first = queueObjects();
    first.push_back(apiCall(100, 110, kFinish, {kQueue}));
    first.push_back(apiCall(120, 130, kReadBuffer, {kQueue, 0xb0, 64}, 0, 1));
    writeFragment(dir, pid, 100, 0, "ocl", first);
    writeFragment(dir, pid, 100, 1, "ocl", {apiCall(140, 150, kFinish, {kQueue})});
    writeFragment(dir, pid, 200, 0, "ocl", {apiCall(105, 115, kFinish, {kQueue})});
    writeFragment(dir, pid, 300, 0, "ocl", {deviceTimes(200, 1, 122, 124, 126, 128, 0x11F3)});
}

struct Merged {
    bool ok = false;
    std::string error;
    MergeResult result;
    AtpDocument doc;
    std::string docError;
};

AtpHeader testHeader() {
    AtpHeader h;
    h.application = "/bin/app";
    h.applicationArgs = {"-n", "3"};
    h.osVersion = "Linux Build test";
    return h;
}

Merged merge(const TempDir& dir, uint64_t pid, const std::string& base, MergeOptions options = {}) {
    static const FakeFormatter formatter;
    if (options.formatter == nullptr) options.formatter = &formatter;
    Merged m;
    if (!options.note) options.note = [](const std::string&) {};
    m.ok = mergeProcess(dir.path(), pid, base, testHeader(), options, m.result, m.error);
    if (m.ok && m.result.written) {
        const bool read = loadAtpFile(m.result.atpPath, m.doc, m.docError);
        EXPECT_TRUE(read) << m.docError;
    }
    return m;
}

uint64_t gettidNow() { return static_cast<uint64_t>(syscall(SYS_gettid)); }

// Marker fragments written by the real recorder, as a marker library does in timeout mode.
void recordMarkers(const TempDir& dir, const std::string& tag) {
    record::RecorderOptions o;
    o.mode = record::FlushMode::Timeout;
    o.fragmentDir = dir.path();
    o.fragmentTag = tag;
    record::Recorder rec(o);
    record::ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    ASSERT_TRUE(rec.appendBegin(log, rec.now(), "Frame 1", "Render", nullptr));
    ASSERT_TRUE(rec.appendBegin(log, rec.now(), "Upload", "", nullptr));
    ASSERT_TRUE(rec.appendEnd(log, rec.now()));
    ASSERT_TRUE(rec.appendEnd(log, rec.now()));
    std::string error;
    ASSERT_TRUE(rec.stop(error)) << error;
}

TEST(Merge, FragmentsOfAProcessBecomeOneAtp) {
    TempDir dir;
    const uint64_t pid = static_cast<uint64_t>(getpid());
    writeOclProcess(dir, pid);
    recordMarkers(dir, "clperfmarker");
    ASSERT_EQ(namesIn(dir.path()).size(), 5u);

    Merged m = merge(dir, pid, dir.file("run____PID___"));
    ASSERT_TRUE(m.ok) << m.error;
    ASSERT_TRUE(m.result.written);
    EXPECT_EQ(m.result.atpPath, dir.file("run_" + std::to_string(pid) + ".atp"));
    EXPECT_THAT(namesIn(dir.path()), ElementsAre("run_" + std::to_string(pid) + ".atp"));
    EXPECT_EQ(m.result.removed.size(), 5u);

    ASSERT_NE(m.doc.headerValue("ApplicationArgs"), nullptr);
    EXPECT_EQ(*m.doc.headerValue("ApplicationArgs"), "-n 3");
    EXPECT_EQ(*m.doc.headerValue("ClockDomain"), "CLOCK_MONOTONIC");
    EXPECT_EQ(m.doc.header.front().first, "TraceFileVersion");
    EXPECT_THAT(m.doc.sections, ElementsAre(SectionKind::OclApiTrace, SectionKind::OclTimestamp,
                                            SectionKind::Perfmarker));
    const auto& api = m.doc.blocks[SectionKind::OclApiTrace];
    ASSERT_EQ(api.size(), 2u);
    EXPECT_EQ(api[0].tid, 100u);
    EXPECT_EQ(api[0].lines.size(), 3u);  // both fragments of thread 100, in serial order
    EXPECT_THAT(api[0].lines[2], HasSubstr("clFinish"));
    EXPECT_EQ(api[1].tid, 200u);
    const auto& ts = m.doc.blocks[SectionKind::OclTimestamp];
    std::vector<std::string_view> fields;
    splitFields(ts[0].lines[1], fields);
    OclTimestampLine read;
    std::string error;
    ASSERT_TRUE(parseOclTimestampFields(fields, read, error)) << error;
    EXPECT_EQ(read.queued, 122u);
    EXPECT_EQ(read.deviceName, "gfx900");
    EXPECT_EQ(read.dataSize, 64u);

    ASSERT_EQ(m.doc.markers.threads.size(), 1u);
    EXPECT_EQ(m.doc.markers.threads[0].tid, gettidNow());
    const auto& markers = m.doc.markers.threads[0].markers;
    ASSERT_EQ(markers.size(), 4u);
    EXPECT_EQ(markers[0].name, "Frame 1");
    EXPECT_EQ(markers[0].group, "Render");
    EXPECT_EQ(markers[1].group, "Default");
    EXPECT_EQ(m.result.markerThreads, 1u);
    EXPECT_EQ(m.result.ocl.lines, 4u);
}

// The sanitizers' shadow memory and quarantine make resident sizes meaningless.
constexpr bool kUnderSanitizer = PERFMARKER_TEST_SANITIZED;

// Peak resident kilobytes of this process since the last resetPeak() (VmHWM).
long peakKb() {
    std::ifstream in("/proc/self/status");
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
    }
    return -1;
}

void resetPeak() { std::ofstream("/proc/self/clear_refs") << "5"; }

// Merges the process's fragments in `dir` into `<dir>/<name>.atp` and checks that the merge's
// peak resident size grew by less than 16 MB (where that can be measured).
void expectBoundedMerge(TempDir& dir, const std::string& name, MergeResult& result) {
    static const FakeFormatter formatter;
    MergeOptions options;
    options.formatter = &formatter;
    options.note = [](const std::string&) {};
    std::string error;
    resetPeak();
    const long before = peakKb();
    ASSERT_TRUE(mergeProcess(dir.path(), static_cast<uint64_t>(getpid()), dir.file(name),
                             testHeader(), options, result, error))
        << error;
    const long grown = peakKb() - before;
    ASSERT_TRUE(result.written);
    if (before > 0 && !kUnderSanitizer) {
        EXPECT_LT(grown, 16 * 1024) << grown << " kB";
    }
}

// A session that was never finalized leaves its markers in fragments only; the merge writes
// their lines in batches, so its memory does not grow with them (here 40 MB of lines).
TEST(Merge, MarkerFragmentsAreWrittenWithoutHoldingTheirLines) {
    TempDir dir;
    const uint64_t kPairs = kUnderSanitizer ? 30000 : 300000;
    {
        record::RecorderOptions o;
        o.mode = record::FlushMode::Timeout;
        o.fragmentDir = dir.path();
        o.fragmentTag = "clperfmarker";
        record::Recorder rec(o);
        record::ThreadLog* log = rec.threadLog();
        ASSERT_NE(log, nullptr);
        for (uint64_t i = 0; i < kPairs; ++i) {  // compact records, as the libraries write
            ASSERT_TRUE(rec.appendBegin(log, rec.now(), "frame", "render", nullptr));
            ASSERT_TRUE(rec.appendEnd(log, rec.now()));
        }
        std::string error;
        ASSERT_TRUE(rec.stop(error)) << error;
    }
    MergeResult result;
    expectBoundedMerge(dir, "big", result);
    ASSERT_TRUE(result.written);
    const auto size = fs::file_size(result.atpPath);
    EXPECT_GT(size, kPairs * 140);  // every line is there (141 bytes a pair)
    // Every line, in order: the last end is the last line of the file.
    std::ifstream in(result.atpPath);
    uint64_t begins = 0, ends = 0;
    for (std::string line; std::getline(in, line);) {
        begins += line.rfind("clBeginPerfMarker", 0) == 0;
        ends += line.rfind("clEndPerfMarker", 0) == 0;
    }
    EXPECT_EQ(begins, kPairs);
    EXPECT_EQ(ends, kPairs);
}

// Markers packed as marker words (as the writer packs compact records) merge into the same
// .atp as the same markers packed as records.
TEST(Merge, MarkerWordsMergeAsTheRecordsTheyStandFor) {
    std::vector<Rec> records;
    const std::string names[] = {"frame", "draw", "a_much_longer_name_than_most", "", "x"};
    for (uint64_t i = 0; i < 200; ++i) {
        const std::string& name = names[i % 5];
        const std::string group = i % 3 == 0 ? "" : "group" + std::to_string(i % 4);
        Rec begin = marker(RecordKind::MarkerBegin, 1000 + 10 * i, name, group);
        if (i % 7 == 0) begin.s2 = "user";
        records.push_back(begin);
        records.push_back(marker(i % 11 == 0 ? RecordKind::MarkerEndEx : RecordKind::MarkerEnd,
                                 1005 + 10 * i, i % 11 == 0 ? name : "", i % 11 == 0 ? group : ""));
    }
    std::string atp[2];
    for (const bool words : {false, true}) {
        TempDir dir;
        writeFile(dir.file(record::fragmentFileName(kPid, 0, "clperfmarker")),
                  fragmentBytes(kPid, 7, records, 0, words));
        const Merged m = merge(dir, kPid, dir.file("markers"));
        ASSERT_TRUE(m.ok) << m.error;
        ASSERT_TRUE(m.result.written);
        atp[words] = readFile(m.result.atpPath);
    }
    EXPECT_NE(atp[0].find("a_much_longer_name_than_most"), std::string::npos);
    EXPECT_EQ(atp[0], atp[1]);
}

// The HSA agent's fragments: the API and timestamp sections go to the .atp in pieces, so the
// merge does not hold a thread's lines (here 300,000 calls, about 45 MB of lines).
TEST(Merge, HsaSectionsAreWrittenWithoutHoldingAThreadsLines) {
    TempDir dir;
    const uint64_t kCalls = kUnderSanitizer ? 30000 : 300000;
    const HsaApiSpec* api = hsaApiByName("hsa_signal_load_relaxed");
    ASSERT_NE(api, nullptr);
    {
        record::RecorderOptions o;
        o.mode = record::FlushMode::Timeout;
        o.fragmentDir = dir.path();
        o.fragmentTag = std::string(kHsaFragmentTag);
        record::Recorder rec(o);
        record::ThreadLog* log = rec.threadLog();
        ASSERT_NE(log, nullptr);
        for (uint64_t i = 0; i < kCalls; ++i) {
            const uint64_t start = rec.now();
            const Rec call = apiCall(start, rec.now(), static_cast<uint32_t>(api->apiTypeId),
                                     {0x1000 + i % 7}, i, 0, {},
                                     static_cast<uint16_t>(api->slot));
            ASSERT_TRUE(rec.append(log, RecordKind::ApiCall, start, call.s0));
        }
        std::string error;
        ASSERT_TRUE(rec.stop(error)) << error;
    }
    MergeResult result;
    expectBoundedMerge(dir, "hsa", result);
    ASSERT_TRUE(result.written);
    // Every call, in order, in both sections.
    std::ifstream in(result.atpPath);
    uint64_t apiLines = 0, timestampLines = 0;
    std::string last;
    for (std::string line; std::getline(in, line);) {
        if (line.find(" = hsa_signal_load_relaxed ( ") != std::string::npos) {
            ++apiLines;
            last = line;
        } else {
            timestampLines += line.find(" hsa_signal_load_relaxed ") != std::string::npos;
        }
    }
    EXPECT_EQ(apiLines, kCalls);
    EXPECT_EQ(timestampLines, kCalls);
    EXPECT_EQ(last.rfind(std::to_string(kCalls - 1) + " = ", 0), 0u) << last;
}

// A call the HSA catalogue does not know (a newer runtime's table slot, a damaged record) keeps
// lines that name it and that the reader takes (docs/format.md#hsa-api-trace): its id's name, or
// UNKNOWN when the id is unknown too. They were "<unknown HSA table slot N>", which the reader
// refused, and a timestamp line without a name.
TEST(Merge, HsaCallsOfUnknownSlotsKeepNamedLines) {
    TempDir dir;
    const HsaApiSpec* api = hsaApiByName("hsa_init");
    ASSERT_NE(api, nullptr);
    writeFragment(dir, kPid, 100, 0, "hsa",
                  {apiCall(100, 110, static_cast<uint32_t>(api->apiTypeId), {}, 0, 0, {}, 0xfff0),
                   apiCall(120, 130, 5000, {7}, 0, 0, {}, 0xfff1)});
    Merged m = merge(dir, kPid, dir.file("session"));
    ASSERT_TRUE(m.ok) << m.error;
    ASSERT_TRUE(m.result.written);
    EXPECT_TRUE(m.docError.empty()) << m.docError;
    const std::string text = readFile(m.result.atpPath);
    EXPECT_NE(text.find("\nhsa_init (  )\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\nUNKNOWN (  )\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\n5000 UNKNOWN "), std::string::npos) << text;
    EXPECT_EQ(text.find("<unknown"), std::string::npos) << text;
}

// An HSA API id of five digits fills its field: one space keeps the name a token of its own (it
// ran into the name, and the reader refused the line).
TEST(Merge, HsaIdsThatFillTheirFieldStaySeparate) {
    TempDir dir;
    const HsaApiSpec* api = hsaApiByName("hsa_init");
    ASSERT_NE(api, nullptr);
    writeFragment(dir, kPid, 100, 0, "hsa",
                  {apiCall(100, 110, 12336, {}, 0, 0, {}, static_cast<uint16_t>(api->slot))});
    Merged m = merge(dir, kPid, dir.file("session"));
    ASSERT_TRUE(m.ok) << m.error;
    ASSERT_TRUE(m.result.written);
    EXPECT_TRUE(m.docError.empty()) << m.docError;
    EXPECT_NE(readFile(m.result.atpPath).find("\n12336 hsa_init "), std::string::npos);
}

TEST(Merge, MarkersFromTheFinishedFilesOfBothLibraries) {
    TempDir dir;
    const std::string base = dir.file("session");
    fs::copy_file(fixture("legacy_amd_opencl_crlf.clperfmarker"), base + ".clperfmarker");
    fs::copy_file(fixture("spec_example.amdtperfmarker"), base + ".amdtperfmarker");
    Merged m = merge(dir, kPid, base);
    ASSERT_TRUE(m.ok) << m.error;
    ASSERT_TRUE(m.result.written);
    EXPECT_THAT(m.doc.sections, ElementsAre(SectionKind::Perfmarker));
    ASSERT_EQ(m.doc.markers.threads.size(),
              2u);  // the legacy file's, then the documented example's
    EXPECT_EQ(m.doc.markers.threads[0].tid, 42u);
    EXPECT_EQ(m.doc.markers.threads.back().tid, 4711u);
    EXPECT_EQ(m.doc.markers.threads.back().markers.size(), 4u);
    EXPECT_EQ(m.result.markerThreads, 2u);
    EXPECT_THAT(namesIn(dir.path()), ElementsAre("session.atp"));
    // One section line, no CR, no blank lines.
    const std::string text = readFile(m.result.atpPath);
    EXPECT_EQ(text.find("\r"), std::string::npos);
    EXPECT_EQ(text.find("Perfmarker Output"), text.rfind("Perfmarker Output"));
}

TEST(Merge, FragmentsTakePrecedenceOverTheFinishedFile) {
    TempDir dir;
    const uint64_t pid = static_cast<uint64_t>(getpid());
    recordMarkers(dir, "amdtperfmarker");
    const std::string base = dir.file("s");
    fs::copy_file(fixture("spec_example.amdtperfmarker"), base + ".amdtperfmarker");
    std::vector<std::string> notes;
    MergeOptions options;
    options.note = [&notes](const std::string& n) { notes.push_back(n); };
    Merged m = merge(dir, pid, base, options);
    ASSERT_TRUE(m.ok) << m.error;
    ASSERT_EQ(m.doc.markers.threads.size(), 1u);
    EXPECT_EQ(m.doc.markers.threads[0].tid, gettidNow());
    EXPECT_THAT(m.result.kept, ElementsAre(base + ".amdtperfmarker"));
    EXPECT_THAT(notes, Contains(HasSubstr("take precedence")));
    EXPECT_THAT(namesIn(dir.path()), ElementsAre("s.amdtperfmarker", "s.atp"));
}

TEST(Merge, ForeignFilesAreReportedAndNeverTouched) {
    TempDir dir;
    writeOclProcess(dir, kPid);
    writeFragment(dir, 999, 1, 0, "ocl", {apiCall(1, 2, kFinish, {1})});
    writeFragment(dir, 42420, 1, 0, "clperfmarker", {marker(RecordKind::MarkerBegin, 5, "m")});
    const std::vector<std::string> foreign = {"4242_1.other.frag", "4242_1_0.ocl.frag", "notes.txt",
                                              "x_1.ocl.frag"};
    for (const std::string& name : foreign) writeFile(dir.file(name), "keep me");

    SessionDirListing listing;
    std::string error;
    ASSERT_TRUE(listSessionPids(dir.path(), listing, error)) << error;
    EXPECT_THAT(listing.pids, ElementsAre(999u, kPid, 42420u));
    EXPECT_EQ(listing.foreign, foreign);

    Merged m = merge(dir, kPid, dir.file("out"));
    ASSERT_TRUE(m.ok) << m.error;
    for (const std::string& name : foreign) EXPECT_EQ(readFile(dir.file(name)), "keep me");
    EXPECT_TRUE(fs::exists(dir.file("999_10.ocl.frag")));
    EXPECT_TRUE(fs::exists(dir.file("42420_10.clperfmarker.frag")));
    EXPECT_FALSE(fs::exists(dir.file("4242_1000.ocl.frag")));
    EXPECT_TRUE(m.doc.markers.threads.empty());  // 42420's markers are not 4242's

    EXPECT_FALSE(listSessionPids(dir.file("missing"), listing, error));
    EXPECT_THAT(error, HasSubstr(dir.file("missing")));
}

TEST(Merge, UnwritableOutputIsAnErrorAndKeepsTheInputs) {
    TempDir dir;
    writeOclProcess(dir, kPid);
    const std::vector<std::string> before = namesIn(dir.path());
    const std::string base = dir.file("no/such/dir/run");
    Merged m = merge(dir, kPid, base);
    EXPECT_FALSE(m.ok);
    EXPECT_THAT(m.error, HasSubstr(base + ".atp"));
    EXPECT_THAT(m.error, HasSubstr("No such file or directory"));
    EXPECT_FALSE(m.result.written);
    EXPECT_EQ(namesIn(dir.path()), before);
}

TEST(Merge, TruncatedFragmentKeepsItsWholeRecords) {
    TempDir dir;
    std::vector<Rec> records;
    for (uint64_t i = 0; i < 4; ++i) records.push_back(apiCall(10 * i, 10 * i + 5, kFinish, {1}));
    std::string bytes = fragmentBytes(kPid, 7, records);
    bytes.resize(bytes.size() - 1);  // the process died inside the last write (its last record)
    writeFile(dir.file("4242_70.ocl.frag"), bytes);
    std::vector<std::string> notes;
    MergeOptions options;
    options.note = [&notes](const std::string& n) { notes.push_back(n); };
    Merged m = merge(dir, kPid, dir.file("t"), options);
    ASSERT_TRUE(m.ok) << m.error;
    ASSERT_EQ(m.doc.blocks[SectionKind::OclApiTrace].size(), 1u);
    EXPECT_EQ(m.doc.blocks[SectionKind::OclApiTrace][0].lines.size(), 3u);
    ASSERT_EQ(notes.size(), 1u);  // said once although the fragment is read three times
    EXPECT_THAT(notes[0], AllOf(HasSubstr("4242_70.ocl.frag"), HasSubstr("cut short"),
                                HasSubstr("3 whole records")));
    EXPECT_FALSE(fs::exists(dir.file("4242_70.ocl.frag")));
}

// A fragment with its header and no block (the process died after its first write failed) holds
// nothing: merged as nothing and removed with the rest.
TEST(Merge, FragmentWithoutBlocksIsRemovedWithTheRest) {
    TempDir dir;
    writeOclProcess(dir, kPid);
    const std::string empty = fragmentBytes(kPid, 1, {}).substr(0, sizeof(record::FragmentHeader));
    writeFile(dir.file("4242_999.ocl.frag"), empty);
    Merged m = merge(dir, kPid, dir.file("e"));
    ASSERT_TRUE(m.ok) << m.error;
    EXPECT_EQ(m.doc.blocks[SectionKind::OclApiTrace].size(), 2u);
    EXPECT_THAT(m.result.kept, IsEmpty());
    EXPECT_THAT(namesIn(dir.path()), ElementsAre("e.atp"));
}

TEST(Merge, UnreadableFragmentIsLeftInPlace) {
    TempDir dir;
    writeOclProcess(dir, kPid);
    writeFile(dir.file("4242_500.ocl.frag"), "not a fragment at all, just text");
    writeFile(dir.file("4242_510.ocl.frag"), "");
    std::vector<std::string> notes;
    MergeOptions options;
    options.note = [&notes](const std::string& n) { notes.push_back(n); };
    Merged m = merge(dir, kPid, dir.file("u"), options);
    ASSERT_TRUE(m.ok) << m.error;
    EXPECT_EQ(m.doc.blocks[SectionKind::OclApiTrace].size(), 2u);
    EXPECT_THAT(m.result.kept,
                ElementsAre(dir.file("4242_500.ocl.frag"), dir.file("4242_510.ocl.frag")));
    EXPECT_THAT(notes, Contains(HasSubstr("bad magic")));
    EXPECT_THAT(namesIn(dir.path()),
                ElementsAre("4242_500.ocl.frag", "4242_510.ocl.frag", "u.atp"));
}

TEST(Merge, ProgressIsMonotoneAndEndsComplete) {
    TempDir dir;
    writeOclProcess(dir, kPid);
    writeFragment(dir, kPid, 100, 0, "clperfmarker",
                  {marker(RecordKind::MarkerBegin, 1, "a"), marker(RecordKind::MarkerEnd, 2)});
    std::vector<std::pair<uint64_t, uint64_t>> calls;
    MergeOptions options;
    options.progress = [&calls](uint64_t done, uint64_t total) { calls.emplace_back(done, total); };
    options.ocl.maxApiCalls = 2;  // one more reading of the OpenCL fragments
    Merged m = merge(dir, kPid, dir.file("p"), options);
    ASSERT_TRUE(m.ok) << m.error;
    ASSERT_FALSE(calls.empty());
    for (size_t i = 0; i < calls.size(); ++i) {
        EXPECT_LE(calls[i].first, calls[i].second) << i;
        if (i > 0) {
            EXPECT_GE(calls[i].first, calls[i - 1].first) << i;
        }
    }
    EXPECT_EQ(calls.back().first, calls.back().second);
    EXPECT_EQ(m.result.ocl.droppedLines, 2u);
    EXPECT_THAT(m.result.notes, Contains(HasSubstr("beyond the limit of 2")));
    // The cut is in the header, for every tool (docs/format.md#traces-cut-at-the-call-cap).
    ASSERT_NE(m.doc.headerValue("ApiCallsLeftOut"), nullptr);
    EXPECT_EQ(*m.doc.headerValue("ApiCallsLeftOut"), "2");
    const Merged whole = merge(dir, kPid, dir.file("whole"));
    ASSERT_TRUE(whole.ok) << whole.error;
    EXPECT_EQ(whole.doc.headerValue("ApiCallsLeftOut"), nullptr);
}

// The sections stop reading a thread at its last kept line: thread 100's second fragment is
// passed over (its call is after the cut), and still merged and removed like the others.
TEST(Merge, TheCapStopsReadingAThreadAtItsLastKeptLine) {
    TempDir dir;
    writeOclProcess(dir, kPid);
    MergeOptions options;
    options.ocl.maxApiCalls = 3;  // calls at 100, 105 and 120 of the four
    Merged m = merge(dir, kPid, dir.file("p"), options);
    ASSERT_TRUE(m.ok) << m.error;
    for (const SectionKind kind : {SectionKind::OclApiTrace, SectionKind::OclTimestamp}) {
        const auto& blocks = m.doc.blocks[kind];
        ASSERT_EQ(blocks.size(), 2u);
        EXPECT_EQ(blocks[0].tid, 100u);
        ASSERT_EQ(blocks[0].lines.size(), 2u);
        EXPECT_THAT(blocks[0].lines[1], HasSubstr("clEnqueueReadBuffer"));
        EXPECT_EQ(blocks[1].tid, 200u);
        EXPECT_EQ(blocks[1].lines.size(), 1u);
    }
    EXPECT_EQ(m.result.ocl.droppedLines, 1u);
    EXPECT_THAT(namesIn(dir.path()), ElementsAre("p.atp"));
}

TEST(Merge, NothingToMergeWritesNothing) {
    TempDir dir;
    writeFragment(dir, kPid, 1, 0, "ocl", {deviceTimes(1, 1, 2, 3, 4, 5, 0)});  // no API call
    Merged m = merge(dir, kPid, dir.file("none"));
    ASSERT_TRUE(m.ok) << m.error;
    EXPECT_FALSE(m.result.written);
    EXPECT_THAT(m.result.notes, Contains(HasSubstr("no .atp written")));
    EXPECT_THAT(namesIn(dir.path()), ElementsAre("4242_10.ocl.frag"));
}

TEST(Merge, BrokenFinishedMarkerFileIsNotMerged) {
    TempDir dir;
    writeOclProcess(dir, kPid);
    writeFile(dir.file("b.clperfmarker"), "=====Perfmarker Output=====\n1\n2\nclEndPerfMarker 5\n");
    Merged m = merge(dir, kPid, dir.file("b"));
    ASSERT_TRUE(m.ok) << m.error;
    EXPECT_THAT(m.doc.sections, ElementsAre(SectionKind::OclApiTrace, SectionKind::OclTimestamp));
    EXPECT_THAT(m.result.kept, ElementsAre(dir.file("b.clperfmarker")));
    EXPECT_THAT(m.result.notes, Contains(HasSubstr("b.clperfmarker:")));
}

// Anything in a finished marker file but Perfmarker lines keeps it out of the merge, and the
// note names the line: a header line, a section of another kind, a malformed marker line.
TEST(Merge, FinishedMarkerFileWithOtherContentIsNotMerged) {
    const std::pair<std::string, std::string> cases[] = {
        {"ProfilerVersion=1\n=====Perfmarker Output=====\n", ":1: expected the Perfmarker section"},
        {"=====Perfmarker Output=====\n1\n0\n=====ocl API Trace Output=====\n",
         ":4: section '=====ocl API Trace Output=====' is not a Perfmarker section"},
        {"\n=====Perfmarker Output=====\n1\n1\nnot a marker\n", ":5: expected"},
    };
    for (const auto& [text, note] : cases) {
        SCOPED_TRACE(text);
        TempDir dir;
        writeOclProcess(dir, kPid);
        writeFile(dir.file("b.clperfmarker"), text);
        Merged m = merge(dir, kPid, dir.file("b"));
        ASSERT_TRUE(m.ok) << m.error;
        EXPECT_THAT(m.result.kept, ElementsAre(dir.file("b.clperfmarker")));
        EXPECT_THAT(m.result.notes, Contains(HasSubstr("b.clperfmarker" + note)));
    }
}

// The catalogue formatter of ocl_format.h, end to end (slots and ids of cl_api_table.inc).
TEST(Merge, WithTheRealFormatter) {
    constexpr uint16_t kFinishSlot = 47;
    constexpr uint16_t kReadBufferSlot = 48;
    TempDir dir;
    std::vector<Rec> records = queueObjects();
    records.push_back(apiCall(100, 110, kFinish, {kQueue}, 0, 0, {}, kFinishSlot));
    records.push_back(apiCall(120, 130, kReadBuffer, {kQueue, 0xb0, 1, 0, 4096, 0x7fff0, 0, 0, 0},
                              0, 1, {}, kReadBufferSlot));
    records.push_back(deviceTimes(200, 1, 122, 124, 126, 128, 0x11F3));
    // A map returns the mapped pointer: not null, an enqueue with its device times (a pointer
    // whose low half is not 0, as no cl_int CL_SUCCESS is); null, a failed call without them.
    constexpr uint16_t kMapBufferSlot = 56;
    constexpr uint32_t kMapBuffer = 63;
    const std::vector<uint64_t> mapArgs = {kQueue, 0xb0, 1, 1, 0, 64, 0, 0, 0, 0};
    records.push_back(
        apiCall(140, 150, kMapBuffer, mapArgs, 0x7f0000001000, 2, {}, kMapBufferSlot));
    records.push_back(deviceTimes(210, 2, 142, 144, 146, 148, 0x11FB));
    records.push_back(apiCall(160, 170, kMapBuffer, mapArgs, 0, 0, {}, kMapBufferSlot));
    writeFragment(dir, kPid, 9, 0, "ocl", records);
    MergeOptions options;
    options.formatter = &defaultOclFormatter();
    Merged m = merge(dir, kPid, dir.file("real"), options);
    ASSERT_TRUE(m.ok) << m.error;
    const auto& api = m.doc.blocks[SectionKind::OclApiTrace];
    ASSERT_EQ(api.size(), 1u);
    EXPECT_EQ(api[0].lines[0], "CL_SUCCESS = clFinish ( 0x5000 )");
    EXPECT_THAT(
        api[0].lines[1],
        ::testing::StartsWith("CL_SUCCESS = clEnqueueReadBuffer ( 0x5000;0xb0;CL_TRUE;0;4096;"));
    const auto& ts = m.doc.blocks[SectionKind::OclTimestamp];
    std::vector<std::string_view> fields;
    splitFields(ts[0].lines[1], fields);
    OclTimestampLine line;
    std::string error;
    ASSERT_TRUE(parseOclTimestampFields(fields, line, error)) << error;
    EXPECT_EQ(line.apiType, 52);
    EXPECT_EQ(line.commandName, "CL_COMMAND_READ_BUFFER");
    EXPECT_EQ(line.dataSize, 4096u);
    EXPECT_EQ(line.queueHandle, "0x5000");
    ASSERT_EQ(ts[0].lines.size(), 4u);
    splitFields(ts[0].lines[2], fields);
    ASSERT_TRUE(parseOclTimestampFields(fields, line, error)) << error;
    EXPECT_TRUE(line.hasDevice) << ts[0].lines[2];
    EXPECT_EQ(line.commandName, "CL_COMMAND_MAP_BUFFER");
    splitFields(ts[0].lines[3], fields);
    ASSERT_TRUE(parseOclTimestampFields(fields, line, error)) << error;
    EXPECT_FALSE(line.hasDevice) << ts[0].lines[3];
    EXPECT_EQ(line.apiName, "clEnqueueMapBuffer");
    EXPECT_EQ(m.result.ocl.unformattedLines, 0u);
}

}  // namespace
}  // namespace perfmarker::atp
