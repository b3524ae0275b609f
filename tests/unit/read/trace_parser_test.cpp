// The streaming .atp reader (src/atp/read/trace_parser.h) on the fixtures of tests/fixtures/atp:
// every part and every record field, the three ways of reading an input, several inputs through
// one parser, legacy names and CRLF.
#include "atp/read/trace_parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "trace_parser_support.h"

namespace perfmarker::atp {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::fixturePath;
using testing::readFixture;
using testing::Recorder;

Recorder parseFixture(const std::string& name) {
    Recorder r;
    TraceParser parser;
    parser.addListener(r);
    std::string error;
    EXPECT_TRUE(parser.parseFile(fixturePath(name), error)) << error;
    return r;
}

TEST(TraceParserOcl, HeaderSectionsAndCallCount) {
    const Recorder r = parseFixture("ocl_vecadd.atp");
    ASSERT_EQ(r.header.size(), 10u);
    EXPECT_EQ(r.header[0], std::make_pair(std::string("TraceFileVersion"), std::string("3.2")));
    EXPECT_EQ(r.header[5], std::make_pair(std::string("EnvVar"),
                                          std::string("GPU_MAX_HW_QUEUES=2")));  // first '='
    EXPECT_EQ(r.header[7].first, "OS Version");
    EXPECT_EQ(r.header[9], std::make_pair(std::string("CLExcludedAPIs"), std::string()));
    ASSERT_EQ(r.sections.size(), 3u);
    EXPECT_EQ(r.sections[0].first, SectionKind::OclApiTrace);
    EXPECT_EQ(r.sections[1].first, SectionKind::OclTimestamp);
    EXPECT_EQ(r.sections[2].first, SectionKind::Perfmarker);
    EXPECT_EQ(r.ocl.size(), 25u);
    EXPECT_TRUE(r.warnings.empty());
    EXPECT_THAT(r.files, ElementsAre("begin " + fixturePath("ocl_vecadd.atp"),
                                     "end " + fixturePath("ocl_vecadd.atp")));
}

TEST(TraceParserOcl, PlainCall) {
    const Recorder r = parseFixture("ocl_vecadd.atp");
    const auto& c = r.ocl[3];
    EXPECT_EQ(c.call.tid, 4711u);
    EXPECT_EQ(c.call.index, 3u);
    EXPECT_EQ(c.call.apiType, 4);
    EXPECT_EQ(c.name, "clCreateContext");
    EXPECT_EQ(c.returnValue, "0x2071c40");
    EXPECT_THAT(c.params, ElementsAre("[{CL_CONTEXT_PLATFORM,139759432704448,NULL}]", "1",
                                      "[0x1f3a6b0]", "NULL", "NULL", "[CL_SUCCESS]"));
    EXPECT_EQ(c.comment, "");
    EXPECT_EQ(c.call.consecutiveCalls, 1u);
    EXPECT_EQ(c.call.start, 4035211940000u);
    EXPECT_EQ(c.call.end, 4035213940000u);
    EXPECT_FALSE(c.call.hasCommand);
    EXPECT_EQ(c.call.apiLine.line, 17u);
    EXPECT_EQ(c.call.timestampLine.line, 47u);
}

TEST(TraceParserOcl, TransferWithDataSize) {
    const Recorder r = parseFixture("ocl_vecadd.atp");
    const auto& c = r.ocl[12];
    EXPECT_EQ(c.name, "clEnqueueWriteBuffer");
    EXPECT_EQ(c.call.apiType, 54);
    ASSERT_TRUE(c.call.hasCommand);
    EXPECT_EQ(c.call.command.commandType, 4596u);
    EXPECT_EQ(c.commandName, "CL_COMMAND_WRITE_BUFFER");
    EXPECT_EQ(c.call.command.queued, 4035307010000u);
    EXPECT_EQ(c.call.command.submit, 4035307020000u);
    EXPECT_EQ(c.call.command.start, 4035307100000u);
    EXPECT_EQ(c.call.command.end, 4035307110000u);
    EXPECT_EQ(c.call.command.queueId, 0u);
    EXPECT_EQ(c.queueHandle, "0x20f4a30");
    EXPECT_EQ(c.call.command.contextId, 0u);
    EXPECT_EQ(c.contextHandle, "0x2071c40");
    EXPECT_EQ(c.deviceName, "gfx900");
    EXPECT_FALSE(c.call.command.isKernel);
    EXPECT_TRUE(c.call.command.hasDataSize);
    EXPECT_EQ(c.call.command.dataSize, 4096u);
    EXPECT_EQ(c.call.apiLine.line, 26u);
    EXPECT_EQ(c.call.timestampLine.line, 56u);
}

TEST(TraceParserOcl, KernelCollapsedAndFailedEnqueue) {
    const Recorder r = parseFixture("ocl_vecadd.atp");
    const auto& k = r.ocl[13];
    EXPECT_EQ(k.name, "clEnqueueNDRangeKernel");
    ASSERT_TRUE(k.call.hasCommand);
    EXPECT_TRUE(k.call.command.isKernel);
    EXPECT_EQ(k.kernelHandle, "0x21ff890");
    EXPECT_EQ(k.call.command.kernelName, "reduce");
    EXPECT_EQ(k.globalSize, "{1048576}");
    EXPECT_EQ(k.localSize, "{256}");
    EXPECT_FALSE(k.call.command.hasDataSize);

    const auto& g = r.ocl[14];
    EXPECT_EQ(g.name, "clGetEventInfo");
    EXPECT_EQ(g.comment, "37 consecutive calls");
    EXPECT_EQ(g.call.consecutiveCalls, 37u);
    EXPECT_EQ(g.params.size(), 5u);

    const auto& f = r.ocl[15];
    EXPECT_EQ(f.returnValue, "CL_INVALID_KERNEL_ARGS");
    EXPECT_FALSE(f.call.hasCommand);
    EXPECT_EQ(f.call.start, 4035307350000u);
}

TEST(TraceParserOcl, WorkerThreadCommands) {
    const Recorder r = parseFixture("ocl_vecadd.atp");
    const auto& task = r.ocl[20];
    EXPECT_EQ(task.call.tid, 4712u);
    EXPECT_EQ(task.call.index, 1u);
    EXPECT_EQ(task.call.command.commandType, 4593u);
    EXPECT_EQ(task.call.command.queueId, 1u);
    EXPECT_EQ(task.queueHandle, "0x20f4b90");
    EXPECT_EQ(task.globalSize, "{1}");
    EXPECT_EQ(task.localSize, "{1}");

    const auto& native = r.ocl[21];
    EXPECT_TRUE(native.call.command.isKernel);
    EXPECT_EQ(native.kernelHandle, "0x401a2b");
    EXPECT_EQ(native.call.command.kernelName, "NATIVE_KERNEL (0x401a2b)");
    EXPECT_EQ(native.deviceName, "CPU_Device");

    const auto& fill = r.ocl[22];
    EXPECT_EQ(fill.commandName, "CL_COMMAND_FILL_BUFFER");
    EXPECT_TRUE(fill.call.command.hasDataSize);
    EXPECT_EQ(fill.call.command.dataSize, 256u);

    const auto& marker = r.ocl[23];
    EXPECT_EQ(marker.commandName, "CL_COMMAND_MARKER");
    EXPECT_FALSE(marker.call.command.hasDataSize);
    EXPECT_FALSE(marker.call.command.isKernel);
    EXPECT_EQ(marker.call.command.end, 4035308440000u);
}

TEST(TraceParserMarkers, NestedAroundCalls) {
    const Recorder r = parseFixture("ocl_vecadd.atp");
    ASSERT_EQ(r.markers.size(), 8u);
    EXPECT_EQ(r.markers[0].tid, 4711u);
    EXPECT_EQ(r.markers[0].marker.kind, MarkerKind::Begin);
    EXPECT_EQ(r.markers[0].marker.name, "Setup");
    EXPECT_EQ(r.markers[0].line, 74u);
    EXPECT_EQ(r.markers[2].marker.name, "Frame 1");  // &nbsp; unescaped
    EXPECT_EQ(r.markers[2].marker.group, "Render");
    EXPECT_EQ(r.markers[5].marker.kind, MarkerKind::End);
    EXPECT_EQ(r.markers[5].marker.timestampNs, 4035307616000u);
    EXPECT_EQ(r.markers[7].tid, 4712u);
    EXPECT_EQ(r.markers[7].marker.kind, MarkerKind::EndEx);
    EXPECT_EQ(r.markers[7].marker.name, "WorkerDone");
    EXPECT_EQ(r.markers[7].marker.group, "Jobs");
}

TEST(TraceParserHsa, ApiCallsAndAsyncCopy) {
    const Recorder r = parseFixture("hsa_reduce.atp");
    EXPECT_EQ(r.header.back().first, "HSAExcludedAPIs");
    ASSERT_EQ(r.hsa.size(), 8u);
    const auto& init = r.hsa[0];
    EXPECT_EQ(init.name, "hsa_init");
    EXPECT_EQ(init.returnValue, "HSA_STATUS_SUCCESS");
    EXPECT_TRUE(init.params.empty());
    EXPECT_EQ(init.call.apiType, 1);
    EXPECT_EQ(r.hsa[1].params.size(), 8u);
    EXPECT_EQ(r.hsa[1].params[0], "agent={handle=31298480,name=gfx900}");
    const auto& copy = r.hsa[3];
    EXPECT_EQ(copy.name, "hsa_amd_memory_async_copy");
    EXPECT_EQ(copy.call.apiType, 128);
    EXPECT_TRUE(copy.call.hasTransferTimes);
    EXPECT_EQ(copy.call.transferStart, 4035413240000u);
    EXPECT_EQ(copy.call.transferEnd, 4035413600000u);
    const auto& store = r.hsa[4];
    EXPECT_EQ(store.name, "hsa_signal_store_relaxed");
    EXPECT_EQ(store.returnValue, "");  // a void API
    EXPECT_FALSE(store.call.hasTransferTimes);
    EXPECT_EQ(r.hsa[5].returnValue, "0");
    EXPECT_EQ(r.hsa[7].call.tid, 5101u);
    EXPECT_EQ(r.hsa[7].call.index, 0u);
    EXPECT_TRUE(r.warnings.empty());
}

TEST(TraceParserHsa, KernelTimestamps) {
    const Recorder r = parseFixture("hsa_reduce.atp");
    ASSERT_EQ(r.dispatches.size(), 2u);  // the barrier packet is skipped
    const auto& d = r.dispatches[0];
    EXPECT_EQ(d.d.kernelName, "reduce(float*, float*, int)");
    EXPECT_EQ(d.kernelHandle, "0x7F8C3A2B1C00");
    EXPECT_EQ(d.d.start, 4035414000000u);
    EXPECT_EQ(d.d.end, 4035435000000u);
    EXPECT_EQ(d.d.agentName, "gfx900");
    EXPECT_EQ(d.agentHandle, "{31298480}");
    EXPECT_EQ(d.d.queueIndex, 0u);
    EXPECT_EQ(d.d.agentIndex, 0u);
    EXPECT_EQ(d.packetType, "HSA_PACKET_TYPE_KERNEL_DISPATCH");
    EXPECT_EQ(d.packetId, "18446744073709551615");
    EXPECT_THAT(d.packet, HasSubstr("{2818,1,256,"));
    EXPECT_EQ(r.dispatches[1].d.kernelName, "scale");
    ASSERT_EQ(r.markers.size(), 2u);
    EXPECT_EQ(r.markers[0].marker.name, "Reduce pass");
}

TEST(TraceParserHsa, KernelTimestampOnlyFile) {
    const Recorder r = parseFixture("hsa_kernels_only.atp");
    EXPECT_TRUE(r.header.empty());
    ASSERT_EQ(r.dispatches.size(), 2u);
    EXPECT_EQ(r.dispatches[1].d.line.line, 4u);
}

TEST(TraceParserHsa, KernelSectionWithoutCountLine) {
    Recorder r;
    TraceParser parser;
    parser.addListener(r);
    std::string error;
    EXPECT_TRUE(parser.parseBuffer(
        "=====hsa Kernel Timestamp Output=====\n=====Perfmarker Output=====\n", "k", error))
        << error;
    EXPECT_TRUE(r.dispatches.empty());
    EXPECT_EQ(r.sections.size(), 2u);
}

TEST(TraceParserStack, ThreeForms) {
    const Recorder r = parseFixture("ocl_stack.atp");
    ASSERT_EQ(r.stacks.size(), 3u);
    EXPECT_EQ(r.stacks[0].e.family, ApiFamily::Ocl);
    EXPECT_EQ(r.stacks[0].apiName, "clGetPlatformIDs");
    EXPECT_EQ(r.stacks[0].e.symbol, "main");
    EXPECT_EQ(r.stacks[0].e.sourceLine, 42u);
    EXPECT_EQ(r.stacks[0].e.file, "/home/dev/samples/vecadd src/main.cpp");
    EXPECT_EQ(r.stacks[1].address, "libvecadd.so+0x1a2b");
    EXPECT_EQ(r.stacks[1].e.symbol, "");
    EXPECT_EQ(r.stacks[2].apiName, "clFinish");
    EXPECT_EQ(r.stacks[2].e.index, 2u);
    EXPECT_EQ(r.stacks[2].e.tid, 4711u);
    EXPECT_EQ(r.ocl.size(), 3u);
}

TEST(TraceParserLegacy, CodeXlNamesAndUnknownSection) {
    const Recorder r = parseFixture("legacy_codexl.atp");
    ASSERT_EQ(r.sections.size(), 4u);
    EXPECT_EQ(r.sections[0].first, SectionKind::OclApiTrace);
    EXPECT_EQ(r.sections[0].second, "CodeXL ocl API Trace Output");
    EXPECT_EQ(r.sections[1].first, SectionKind::OclTimestamp);
    EXPECT_EQ(r.sections[2].first, SectionKind::Perfmarker);
    EXPECT_EQ(r.sections[3].first, SectionKind::Unknown);
    ASSERT_EQ(r.ocl.size(), 2u);
    EXPECT_EQ(r.ocl[1].call.command.kernelName, "reduce");
    EXPECT_EQ(r.markers.size(), 2u);
    EXPECT_THAT(r.unknown, ElementsAre("CodeXL Occupancy Output|kernel,waves|27",
                                       "CodeXL Occupancy Output|reduce,40|28"));
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_THAT(r.warnings[0], HasSubstr("legacy_codexl.atp:26: unknown section"));
}

TEST(TraceParserLegacy, AppProfilerNames) {
    const std::string text =
        "=====AMD APP Profiler Trace Output=====\n1\n1\nCL_SUCCESS = clFinish ( 0x1 )\n"
        "=====AMD APP Profiler Timestamp Output=====\n1\n1\n51 clFinish 10 20\n";
    Recorder r;
    TraceParser parser;
    parser.addListener(r);
    std::string error;
    ASSERT_TRUE(parser.parseBuffer(text, "app", error)) << error;
    ASSERT_EQ(r.ocl.size(), 1u);
    EXPECT_EQ(r.ocl[0].call.end, 20u);
}

std::string withCrlf(const std::string& text) {
    std::string out;
    for (const char c : text) {
        if (c == '\n') out.push_back('\r');
        out.push_back(c);
    }
    return out;
}

// The records' log, with the input's name taken out (the three readers are given one name).
std::string logOf(const std::string& fixture, int how, bool crlf = false, bool ahead = false) {
    Recorder r;
    TraceParser parser;
    if (ahead) parser.setReadAhead(0);  // every API section read again on a second thread
    parser.addListener(r);
    std::string text = readFixture(fixture);
    if (crlf) text = withCrlf(text);
    std::string error;
    bool ok = false;
    if (how == 0) {
        ok = parser.parseFile(fixturePath(fixture), error);
    } else if (how == 1) {
        std::istringstream in(text);
        ok = parser.parseStream(in, fixturePath(fixture), error);
    } else {
        ok = parser.parseBuffer(text, fixturePath(fixture), error);
    }
    EXPECT_TRUE(ok) << error;
    return r.log;
}

TEST(TraceParserInputs, FileStreamAndBufferGiveTheSameRecords) {
    for (const char* fixture : {"ocl_vecadd.atp", "hsa_reduce.atp", "ocl_stack.atp",
                                "legacy_codexl.atp", "hsa_kernels_only.atp"}) {
        SCOPED_TRACE(fixture);
        const std::string file = logOf(fixture, 0);
        EXPECT_GT(file.size(), 100u);
        EXPECT_EQ(logOf(fixture, 1), file);
        EXPECT_EQ(logOf(fixture, 2), file);
        for (int how = 0; how < 3; ++how) EXPECT_EQ(logOf(fixture, how, false, true), file);
    }
}

TEST(TraceParserInputs, CrlfLineEnds) {
    for (const char* fixture : {"ocl_vecadd.atp", "hsa_reduce.atp", "ocl_stack.atp"}) {
        SCOPED_TRACE(fixture);
        EXPECT_EQ(logOf(fixture, 2, true), logOf(fixture, 0));
        EXPECT_EQ(logOf(fixture, 1, true), logOf(fixture, 0));
        EXPECT_EQ(logOf(fixture, 2, true, true), logOf(fixture, 0));
    }
}

TEST(TraceParserInputs, SeveralFilesThroughOneParser) {
    Recorder r;
    TraceParser parser;
    parser.addListener(r);
    std::string error;
    ASSERT_TRUE(parser.parseFile(fixturePath("ocl_vecadd.atp"), error)) << error;
    // A failed parse in between leaves nothing behind for the next input.
    EXPECT_FALSE(parser.parseFile(fixturePath("bad_truncated.atp"), error));
    ASSERT_TRUE(parser.parseFile(fixturePath("hsa_reduce.atp"), error)) << error;
    EXPECT_EQ(r.files.size(), 5u);
    EXPECT_EQ(r.files.back(), "end " + fixturePath("hsa_reduce.atp"));
    EXPECT_EQ(r.ocl.size(), 25u + 7u);  // the truncated file announced 7 calls before the error
    EXPECT_EQ(r.hsa.size(), 8u);
    EXPECT_EQ(r.markers.size(), 10u);
    EXPECT_TRUE(r.warnings.empty());
}

TEST(TraceParserInputs, TwoListenersSeeTheSameRecords) {
    Recorder a, b;
    TraceParser parser;
    parser.addListener(a);
    parser.addListener(b);
    std::string error;
    ASSERT_TRUE(parser.parseFile(fixturePath("hsa_reduce.atp"), error)) << error;
    EXPECT_EQ(a.log, b.log);
}

TEST(TraceParserInputs, MissingFileIsAnError) {
    TraceParser parser;
    std::string error;
    EXPECT_FALSE(parser.parseFile(fixturePath("no_such_file.atp"), error));
    EXPECT_THAT(error, HasSubstr("no_such_file.atp: cannot open"));
}

// A part registered for a section replaces the standard one.
class CountingPart final : public AtpPart {
public:
    int lines = 0;
    const char* partName() const override { return "count"; }
    std::vector<SectionKind> sections() const override { return {SectionKind::Perfmarker}; }
    bool beginSection(SectionKind, SectionContext&, uint64_t, std::string&) override {
        return true;
    }
    bool line(std::string_view, uint64_t, SectionContext&, std::string&) override {
        ++lines;
        return true;
    }
    bool endSection(uint64_t, SectionContext&, std::string&) override { return true; }
};

TEST(TraceParserParts, ALaterPartReplacesTheStandardOne) {
    Recorder r;
    TraceParser parser;
    auto part = std::make_unique<CountingPart>();
    CountingPart* counting = part.get();
    parser.addPart(std::move(part));
    parser.addListener(r);
    std::string error;
    ASSERT_TRUE(parser.parseFile(fixturePath("ocl_vecadd.atp"), error)) << error;
    EXPECT_EQ(counting->lines, 12);
    EXPECT_TRUE(r.markers.empty());
    EXPECT_EQ(r.ocl.size(), 25u);
}

TEST(TraceParserParts, StandardPartsCoverEverySection) {
    std::vector<SectionKind> kinds;
    for (const auto& part : standardParts()) {
        for (const SectionKind k : part->sections()) kinds.push_back(k);
    }
    std::sort(kinds.begin(), kinds.end());
    EXPECT_THAT(kinds, ElementsAre(SectionKind::OclApiTrace, SectionKind::OclTimestamp,
                                   SectionKind::OclStackTrace, SectionKind::HsaApiTrace,
                                   SectionKind::HsaTimestamp, SectionKind::HsaKernelTimestamp,
                                   SectionKind::HsaStackTrace, SectionKind::Perfmarker));
}

}  // namespace
}  // namespace perfmarker::atp
