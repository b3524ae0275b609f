// The streaming .atp reader on inputs from the field (docs/format.md#what-is-a-trace,
// docs/format.md#unknown-times, docs/format.md#leniencies): what is refused as no trace at all,
// how unknown times and intervals that end before they start are reported, the layouts of older
// writers (kernel lines before format 3.2, CodeXL 2.x's queue handle, the original
// ActivityLogger's end-with-rename lines) and a trace cut at the API call cap.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "atp/read/trace_parser.h"
#include "trace_parser_support.h"

namespace perfmarker::atp {
namespace {

using ::testing::ElementsAre;
using testing::fixturePath;
using ::testing::IsEmpty;
using testing::OwnedDispatch;
using testing::Outcome;
using testing::parse;
using testing::kApi;
using testing::kTs;
using testing::Recorder;

std::string parseErrorBeforeFileEnd(const std::string& text) {
    const Outcome o = parse(text);
    EXPECT_FALSE(o.ok) << text;
    EXPECT_THAT(o.r.files, ElementsAre("begin t.atp"));  // no onFileEnd after an error
    return o.error;
}

Outcome parseFile(const std::string& path) {
    Outcome o;
    TraceParser parser;
    parser.addListener(o.r);
    o.ok = parser.parseFile(path, o.error);
    return o;
}

// A file in a fresh temporary directory, removed with the object.
class TempFile {
public:
    explicit TempFile(const std::string& bytes) {
        std::string dir = (std::filesystem::temp_directory_path() / "pm-read-XXXXXX").string();
        if (mkdtemp(dir.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        m_dir = dir;
        m_path = m_dir + "/input.atp";
        std::ofstream(m_path, std::ios::binary) << bytes;
    }
    ~TempFile() { std::filesystem::remove_all(m_dir); }
    const std::string& path() const { return m_path; }

private:
    std::string m_dir, m_path;
};

const std::string kKernels = "=====hsa Kernel Timestamp Output=====\n";

// ---- what is a trace ---------------------------------------------------------------------------

TEST(NotATrace, EmptyBlankAndGarbageAreRefusedNamingTheInput) {
    EXPECT_EQ(parseErrorBeforeFileEnd(""), "t.atp: not a trace: the file is empty");
    EXPECT_EQ(parseErrorBeforeFileEnd("\n  \n\t\r\n"), "t.atp: not a trace: the file holds only blank lines");
    // Lines with '=' but neither a section line nor a TraceFileVersion= line.
    EXPECT_EQ(parseErrorBeforeFileEnd("a=b\nc=d\n"),
              "t.atp: not a trace: no section line and no TraceFileVersion= header line");
    // Binary garbage, with and without '=': control bytes in a key, NUL bytes anywhere.
    EXPECT_EQ(parseErrorBeforeFileEnd(std::string("\x7f"
                                     "ELF\x02\x01=\x03\n",
                                     9)),
              "t.atp:1: not a trace: expected a header line KEY=VALUE or a section line, got "
              "'\\x7fELF\\x02\\x01=\\x03'");
    EXPECT_EQ(parseErrorBeforeFileEnd(std::string("A=1\0"
                                     "2\n",
                                     6)),
              "t.atp:1: not a trace: expected a header line KEY=VALUE or a section line, got "
              "'A=1\\x002'");
    EXPECT_EQ(parseErrorBeforeFileEnd("PK\x03\x04 binary\n"),
              "t.atp:1: not a trace: expected a header line KEY=VALUE or a section line, got "
              "'PK\\x03\\x04 binary'");
    EXPECT_EQ(parseErrorBeforeFileEnd("=garbage\n"),
              "t.atp:1: not a trace: expected a section line '=====<name>=====', got "
              "'=garbage'");
    // After a good header line the message is the usual one.
    EXPECT_EQ(parseErrorBeforeFileEnd(std::string("TraceFileVersion=3.2\nB=\0\n", 25)),
              "t.atp:2: expected a header line KEY=VALUE or a section line, got 'B=\\x00'");
}

TEST(NotATrace, DevNullAndGarbageFilesAreRefused) {
    Outcome o = parseFile("/dev/null");
    EXPECT_FALSE(o.ok);
    EXPECT_EQ(o.error, "/dev/null: not a trace: the file is empty");
    // Every line holds a '=' away from its start and no control byte before it.
    const TempFile garbage("\xc3\xa9t\xc3\xa9=\xff\xfe\n\x80\x81=\x82\n");
    o = parseFile(garbage.path());
    EXPECT_FALSE(o.ok);
    EXPECT_EQ(o.error, garbage.path() +
                           ": not a trace: no section line and no TraceFileVersion= header line");
}

TEST(NotATrace, SmallTracesStayAccepted) {
    Outcome o = parse("TraceFileVersion=3.2\nProfilerVersion=0.1.0\n");  // a header alone
    EXPECT_TRUE(o.ok) << o.error;
    EXPECT_THAT(o.r.files, ElementsAre("begin t.atp", "end t.atp"));
    // A standalone marker file starts with its section line (blank lines may come first).
    o = parse("\n=====Perfmarker Output=====\n7\n1\nclBeginPerfMarker a 5 g\n");
    EXPECT_TRUE(o.ok) << o.error;
    EXPECT_EQ(o.r.markers.size(), 1u);
    o = parseFile(std::string(PERFMARKER_FIXTURES_DIR) + "/perfmarker/spec_example.amdtperfmarker");
    EXPECT_TRUE(o.ok) << o.error;
    // Any section line makes a trace, even one no part reads (a warning).
    o = parse("=====Something Else=====\nline\n");
    EXPECT_TRUE(o.ok) << o.error;
    EXPECT_EQ(o.r.warnings.size(), 1u);
}

// ---- unknown times ---------------------------------------------------------------------------

TEST(UnknownTimes, CountedOncePerFileAndTheRecordsStillCome) {
    const std::string path = fixturePath("zero_device_times.atp");
    const Outcome o = parseFile(path);
    ASSERT_TRUE(o.ok) << o.error;
    EXPECT_THAT(o.r.warnings,
                ElementsAre(path + ": 2 commands without device times (unknown), left out",
                            path + ": 1 kernel dispatches without device times (unknown), left "
                                   "out"));
    ASSERT_EQ(o.r.ocl.size(), 9u);
    EXPECT_TRUE(o.r.ocl[4].call.hasCommand);
    EXPECT_EQ(deviceTimes(o.r.ocl[4].call.command), Times::Unknown);
    EXPECT_EQ(deviceTimes(o.r.ocl[3].call.command), Times::Known);
    ASSERT_EQ(o.r.dispatches.size(), 2u);
    EXPECT_EQ(deviceTimes(o.r.dispatches[0].d), Times::Unknown);
}

TEST(UnknownTimes, ApiCallsAndTransfers) {
    const Outcome ocl =
        parse(kApi + "1\n2\nCL_SUCCESS = clFinish ( 0x1 )\nCL_SUCCESS = clFlush ( 0x1 )\n" + kTs +
              "1\n2\n51 clFinish 0 0\n50 clFlush 5 6\n");
    ASSERT_TRUE(ocl.ok) << ocl.error;
    EXPECT_THAT(ocl.r.warnings,
                ElementsAre("t.atp: 1 API calls without times (unknown), left out"));
    const std::string copy = "HSA_STATUS_SUCCESS = hsa_amd_memory_async_copy ( size=4 )\n";
    const Outcome hsa = parse("=====hsa API Trace Output=====\n3\n1\n" + copy +
                              "=====hsa Timestamp Output=====\n3\n1\n"
                              "103 hsa_amd_memory_async_copy 10 20 0 0\n");
    ASSERT_TRUE(hsa.ok) << hsa.error;
    EXPECT_THAT(hsa.r.warnings,
                ElementsAre("t.atp: 1 async copies without transfer times (unknown), left out"));
    // Calls without a timestamp line: their own warning, not counted twice.
    const Outcome untimed = parse(kApi + "1\n1\nCL_SUCCESS = clFinish ( 0x1 )\n");
    ASSERT_TRUE(untimed.ok) << untimed.error;
    ASSERT_EQ(untimed.r.warnings.size(), 1u);
    EXPECT_EQ(hostTimes(untimed.r.ocl[0].call), Times::Unknown);
}

// ---- intervals that end before they start ----------------------------------------------------

TEST(EndsBeforeStart, NamedWithFileAndLine) {
    const std::string path = fixturePath("end_before_start.atp");
    const Outcome o = parseFile(path);
    ASSERT_TRUE(o.ok) << o.error;
    EXPECT_THAT(o.r.warnings,
                ElementsAre(path + ":20: clEnqueueNDRangeKernel: the command ends (6000400000) "
                                   "before it starts (6000500000): its times are left out",
                            path + ":21: clFinish: the call ends (6000600000) before it starts "
                                   "(6000700000): its times are left out"));
    EXPECT_EQ(hostTimes(o.r.ocl[3].call), Times::EndBeforeStart);
}

TEST(EndsBeforeStart, TheFirstTwentyAreNamedThenCounted) {
    std::string api = kApi + "1\n25\n", ts = kTs + "1\n25\n";
    for (int i = 0; i < 25; ++i) {
        api += "CL_SUCCESS = clFinish ( 0x1 )\n";
        ts += "51 clFinish 9 8\n";
    }
    const Outcome o = parse(api + ts);
    ASSERT_TRUE(o.ok) << o.error;
    ASSERT_EQ(o.r.warnings.size(), 21u);
    EXPECT_EQ(o.r.warnings[0],
              "t.atp:32: clFinish: the call ends (8) before it starts (9): its "
              "times are left out");
    EXPECT_EQ(o.r.warnings[20],
              "t.atp: 25 records end before they start (the first 20 are "
              "named above): their times are left out");
}

TEST(EndsBeforeStart, KernelDispatchesAndTransfers) {
    const Outcome o =
        parse(kKernels + "1\nk 0x1 9 8 gfx900 {1} 0 0 HSA_PACKET_TYPE_KERNEL_DISPATCH 1 {0}\n");
    ASSERT_TRUE(o.ok) << o.error;
    EXPECT_THAT(o.r.warnings, ElementsAre("t.atp:3: a kernel dispatch: the dispatch ends (8) "
                                          "before it starts (9): its times are left out"));
    const Outcome copy = parse(
        "=====hsa API Trace Output=====\n3\n1\nHSA_STATUS_SUCCESS = hsa_amd_memory_async_copy "
        "( size=4 )\n=====hsa Timestamp Output=====\n3\n1\n103 hsa_amd_memory_async_copy 10 20 "
        "40 30\n");
    ASSERT_TRUE(copy.ok) << copy.error;
    EXPECT_THAT(copy.r.warnings,
                ElementsAre("t.atp:8: hsa_amd_memory_async_copy: the transfer ends (30) before "
                            "it starts (40): its times are left out"));
}

// ---- kernel lines of older writers -----------------------------------------------------------

// Before format 3.2 the queue-index column did not exist: the GPU index follows the agent
// handle, then the packet type (docs/format.md#kernel-dispatches).
TEST(KernelLines, Before32TheQueueIndexColumnIsMissing) {
    const Outcome o =
        parse("TraceFileVersion=3.1\n" + kKernels +
              "4\n"
              "reduce 0x7F8C3A2B1C00 100 200 gfx900 {31298480} 1 HSA_PACKET_TYPE_KERNEL_DISPATCH 7 "
              "{2818,1}\n"
              "fill 0x7F8C3A2B1D40 300 400 gfx900 {31298480} 1\n"
              "copy 0x7F8C3A2B1E00 500 600 gfx900 {31298480} 0 HSA_PACKET_TYPE_KERNEL_DISPATCH\n"
              "barrier 0x0 700 800 gfx900 {31298480} 0 HSA_PACKET_TYPE_BARRIER_AND 9 {0}\n");
    ASSERT_TRUE(o.ok) << o.error;
    EXPECT_THAT(o.r.warnings, IsEmpty());
    ASSERT_EQ(o.r.dispatches.size(), 3u);  // the barrier packet is skipped
    const OwnedDispatch& reduce = o.r.dispatches[0];
    EXPECT_EQ(reduce.d.kernelName, "reduce");
    EXPECT_FALSE(reduce.d.hasQueueIndex);
    EXPECT_EQ(reduce.d.queueIndex, 0u);
    EXPECT_TRUE(reduce.d.hasAgentIndex);
    EXPECT_EQ(reduce.d.agentIndex, 1u);
    EXPECT_EQ(reduce.packetType, "HSA_PACKET_TYPE_KERNEL_DISPATCH");
    EXPECT_EQ(reduce.packetId, "7");
    EXPECT_EQ(reduce.packet, "{2818,1}");
    EXPECT_EQ(reduce.d.start, 100u);
    EXPECT_EQ(o.r.dispatches[1].d.agentIndex, 1u);  // 7 fields: no packet information
    EXPECT_EQ(o.r.dispatches[1].packetType, "");
    EXPECT_FALSE(o.r.dispatches[1].d.hasQueueIndex);
    EXPECT_EQ(o.r.dispatches[2].packetType, "HSA_PACKET_TYPE_KERNEL_DISPATCH");
    // Lines of format 3.2 keep their meaning.
    const Outcome now =
        parse(kKernels + "1\nk 0x1 100 200 gfx900 {1} 3 1 HSA_PACKET_TYPE_KERNEL_DISPATCH 7 {0}\n");
    ASSERT_TRUE(now.ok) << now.error;
    EXPECT_TRUE(now.r.dispatches[0].d.hasQueueIndex);
    EXPECT_EQ(now.r.dispatches[0].d.queueIndex, 3u);
    EXPECT_EQ(now.r.dispatches[0].d.agentIndex, 1u);
}

// CodeXL 2.0-2.3's ROCm profiler wrote the queue handle where the GPU index belongs; the
// original reader kept field 8 as text.
TEST(KernelLines, CodeXl2QueueHandleInField8IsKeptAsText) {
    const Outcome o = parse(kKernels +
                            "2\n"
                            "reduce 0x7F8C3A2B1C00 100 200 gfx900 {31298480} 2 0x7f3c1a004000 "
                            "HSA_PACKET_TYPE_KERNEL_DISPATCH 18446744073709551615 {2818,1}\n"
                            "fill 0x7F8C3A2B1D40 300 400 gfx900 {31298480} 0 0x7f3c1a004000\n");
    ASSERT_TRUE(o.ok) << o.error;
    EXPECT_THAT(o.r.warnings, IsEmpty());
    ASSERT_EQ(o.r.dispatches.size(), 2u);
    EXPECT_EQ(o.r.dispatches[0].d.queueIndex, 2u);
    EXPECT_TRUE(o.r.dispatches[0].d.hasQueueIndex);
    EXPECT_FALSE(o.r.dispatches[0].d.hasAgentIndex);
    EXPECT_EQ(o.r.dispatches[0].d.agentIndex, 0u);
    EXPECT_EQ(o.r.dispatches[0].agentIndexText, "0x7f3c1a004000");
    EXPECT_EQ(o.r.dispatches[0].packetId, "18446744073709551615");
    EXPECT_EQ(o.r.dispatches[1].agentIndexText, "0x7f3c1a004000");
    // The queue index (field 7) is still a number.
    EXPECT_EQ(parseErrorBeforeFileEnd(kKernels + "1\nk 0x1 1 2 gfx900 {1} 0x7f 0x7f\n"),
              "t.atp:3: expected the queue index (a decimal number) in field 7, got '0x7f'");
}

// ---- the original ActivityLogger's end-with-rename lines -------------------------------------

// It wrote the names of clEndPerfMarkerEx lines without escaping their spaces, in both layouts of
// docs/format.md#perfmarker-section. The name is the first token, as the original reader took it;
// the rest is read as the group (the original reader kept only its first token).
TEST(OriginalMarkerLines, EndExWithUnescapedSpaces) {
    const std::string shortName = std::string("clEndPerfMarkerEx   ") + "4035402500000       " +
                                  "Frame 42 Done" + std::string(37, ' ') + "   Render";
    const std::string longName = std::string("clEndPerfMarkerEx   ") + "4035402600000       " +
                                 "   " + std::string(50, 'L') + " tail   Render Pass";
    const Outcome o = parse(
        "TraceFileVersion=3.2\n=====Perfmarker Output=====\n42\n4\n"
        "clBeginPerfMarker   Frame&nbsp;42                                     4035402100000"
        "          Render\n" +
        shortName + "\n" +
        "clBeginPerfMarker   Second                                            4035402550000"
        "          Default\n" +
        longName + "\n");
    ASSERT_TRUE(o.ok) << o.error;
    EXPECT_THAT(o.r.warnings, IsEmpty());  // each end closes its begin
    ASSERT_EQ(o.r.markers.size(), 4u);
    const Marker& first = o.r.markers[1].marker;
    EXPECT_EQ(first.kind, MarkerKind::EndEx);
    EXPECT_EQ(first.timestampNs, 4035402500000u);
    EXPECT_EQ(first.name, "Frame");
    EXPECT_EQ(first.group, "42");  // the next token, as the original reader took it
    const Marker& second = o.r.markers[3].marker;
    EXPECT_EQ(second.timestampNs, 4035402600000u);
    EXPECT_EQ(second.name, std::string(50, 'L'));
    EXPECT_EQ(second.group, "tail");
}

// ---- a trace cut at the API call cap ---------------------------------------------------------

TEST(CutTrace, TheHeaderKeyIsAWarningWithItsLine) {
    const std::string calls =
        kApi + "1\n1\nCL_SUCCESS = clFinish ( 0x1 )\n" + kTs + "1\n1\n51 clFinish 1 2\n";
    Outcome o = parse("TraceFileVersion=3.2\nApiCallsLeftOut=25\n" + calls);
    ASSERT_TRUE(o.ok) << o.error;
    EXPECT_THAT(o.r.warnings,
                ElementsAre("t.atp:2: the trace was cut at the API call cap: 25 API calls after "
                            "the cut are not in it (nor what they enqueued); objects may be "
                            "released after the cut"));
    EXPECT_THAT(o.r.header, ::testing::Contains(
                                std::make_pair(std::string("ApiCallsLeftOut"), std::string("25"))));
    o = parse("TraceFileVersion=3.2\nApiCallsLeftOut=0\n" + calls);
    EXPECT_THAT(o.r.warnings, IsEmpty());
    o = parse("TraceFileVersion=3.2\nApiCallsLeftOut=many\n" + calls);
    EXPECT_THAT(o.r.warnings,
                ElementsAre("t.atp:2: ApiCallsLeftOut='many': expected a number; ignored"));
    EXPECT_EQ(apiCallsLeftOut("25"), 25u);
    EXPECT_EQ(apiCallsLeftOut(""), std::nullopt);
    EXPECT_EQ(apiCallsLeftOut("-1"), std::nullopt);
}

}  // namespace
}  // namespace perfmarker::atp
