// The streaming .atp reader (src/atp/read/trace_parser.h) on bad input: every error names the input
// and the line, every leniency is a warning, and no input crashes or hangs it.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "atp/format/timestamp_fields.h"
#include "atp/read/trace_parser.h"
#include "atp/read/part_support.h"
#include "trace_parser_support.h"

namespace perfmarker::atp {
namespace {

using ::testing::HasSubstr;
using testing::fixturePath;
using testing::readFixture;
using testing::Outcome;
using testing::parse;
using testing::kApi;
using testing::kTs;
using testing::Recorder;

std::string parseError(const std::string& text) {
    const Outcome o = parse(text);
    EXPECT_FALSE(o.ok);
    return o.error;
}

std::string fixtureError(const std::string& name) {
    TraceParser parser;
    std::string error;
    EXPECT_FALSE(parser.parseFile(fixturePath(name), error));
    return error.substr(error.rfind('/') + 1);
}

TEST(TraceParserErrors, BadFixtures) {
    EXPECT_EQ(fixtureError("bad_name_mismatch.atp"),
              "bad_name_mismatch.atp:45: expected API 'clGetPlatformIDs' as on line 15 of the "
              "API trace, got 'clGetDeviceIDs'");
    EXPECT_EQ(fixtureError("bad_truncated.atp"),
              "bad_truncated.atp:51: expected 19 lines in thread 4711 before the section ends, "
              "got 7 (at the end of the section)");
    EXPECT_EQ(fixtureError("bad_timestamp_field.atp"),
              "bad_timestamp_field.atp:60: expected the device start time (a decimal number) in "
              "field 9, got '40352119x5600000'");
    EXPECT_EQ(fixtureError("bad_count.atp"),
              "bad_count.atp:41: expected 7 lines in thread 4712 before the section ends, got 6 "
              "(at the end of the section)");
}

TEST(TraceParserErrors, HeaderAndSectionLines) {
    EXPECT_EQ(parseError("TraceFileVersion=3.2\nno equals sign\n"),
              "t.atp:2: expected a header line KEY=VALUE or a section line, got 'no equals sign'");
    EXPECT_EQ(parseError("A=1\n=====ocl API Trace Output\n"),
              "t.atp:2: expected a section line '=====<name>=====', got '=====ocl API Trace "
              "Output'");
    EXPECT_EQ(parseError(kApi + "1\n1\nCL_SUCCESS = clFinish ( 0x1 )\n==========\n"),
              "t.atp:5: expected a section line '=====<name>=====', got '=========='");
}

TEST(TraceParserErrors, ThreadBlocks) {
    EXPECT_EQ(parseError(kApi + "12x\n"),
              "t.atp:2: expected a thread id (decimal), got '12x'");
    EXPECT_EQ(parseError(kApi + "12\n-1\n"),
              "t.atp:3: expected the line count of thread 12, got '-1'");
    EXPECT_EQ(parseError(kApi + "12\n"),
              "t.atp:3: expected the line count of thread 12 before the section ends");
    // One line more than the count: it is read as the next thread id.
    EXPECT_EQ(parseError(kApi + "12\n1\nCL_SUCCESS = clFinish ( 0x1 )\nCL_SUCCESS = clFlush ( 0x1 )\n"),
              "t.atp:5: expected a thread id (decimal), got 'CL_SUCCESS = clFlush ( 0x1 )'");
    // A count larger than any file: no allocation by count.
    EXPECT_EQ(parseError(kApi + "12\n18446744073709551615\nCL_SUCCESS = clFinish ( 0x1 )\n"),
              "t.atp:5: expected 18446744073709551615 lines in thread 12 before the section "
              "ends, got 1 (at the end of the section)");
    EXPECT_EQ(parseError(kApi + "12\n99999999999999999999999\n"),
              "t.atp:3: expected the line count of thread 12, got '99999999999999999999999'");
}

TEST(TraceParserErrors, ApiAndTimestampLines) {
    EXPECT_EQ(parseError(kApi + "1\n1\nclFinish(0x1)\n" + kTs + "1\n1\n51 clFinish 1 2\n"),
              "t.atp:4: expected an API line 'Ret = Name ( params )', got 'clFinish(0x1)'");
    const std::string api = kApi + "1\n1\nCL_SUCCESS = clFinish ( 0x1 )\n" + kTs + "1\n1\n";
    EXPECT_EQ(parseError(api + "51 clFinish 1\n"),
              "t.atp:8: expected a timestamp line 'type name start end ...', got '51 clFinish 1'");
    EXPECT_EQ(parseError(api + "x51 clFinish 1 2\n"),
              "t.atp:8: expected the API type (a decimal number) in field 1, got 'x51'");
    EXPECT_EQ(parseError(api + "51 clFinish 1 2z\n"),
              "t.atp:8: expected the end time (a decimal number) in field 4, got '2z'");
    EXPECT_EQ(parseError(api + "51 clFlush 1 2\n"),
              "t.atp:8: expected API 'clFinish' as on line 4 of the API trace, got 'clFlush'");
    EXPECT_EQ(parseError(api + "51 clFinish 1 2 4595 CL_COMMAND_READ_BUFFER 1 2\n"),
              "t.atp:8: expected at least 15 fields in an enqueue timestamp line (this one has "
              "8), got '4595'");
    const std::string enqueue = "52 clFinish 1 2 4595 CL_COMMAND_READ_BUFFER 1 2 3 4 0 0x1 0 0x2 gfx900";
    EXPECT_EQ(parseError(api + enqueue + " 40x96\n"),
              "t.atp:8: expected the data size (a decimal number) in field 16, got '40x96'");
    EXPECT_EQ(parseError(api + enqueue + " 4096 12\n"),
              "t.atp:8: expected at most one field after the device name, got '12'");
    EXPECT_TRUE(parse(api + enqueue + " 4096\n").ok);
}

TEST(TraceParserErrors, ThreadOrderMismatch) {
    EXPECT_EQ(parseError(kApi + "1\n1\nCL_SUCCESS = clFinish ( 0x1 )\n" + kTs +
                         "2\n1\n51 clFinish 1 2\n"),
              "t.atp:7: expected the block of thread 1 (the next one in the ocl API Trace "
              "Output section), got thread 2");
}

TEST(TraceParserErrors, HsaLines) {
    const std::string api = "=====hsa API Trace Output=====\n1\n1\nhsa_signal_store_relaxed ( "
                            "signal={1};value=1 )\n=====hsa Timestamp Output=====\n1\n1\n";
    EXPECT_EQ(parseError(api + "14 hsa_signal_store_relaxed 1 2 3\n"),
              "t.atp:8: expected a timestamp line 'type name start end' (6 fields for an async "
              "copy), not 5 fields, got '14 hsa_signal_store_relaxed 1 2 3'");
    EXPECT_EQ(parseError(api + "14 hsa_signal_store_relaxed 1 2 3 x\n"),
              "t.atp:8: expected the transfer end (a decimal number) in field 6, got 'x'");
    EXPECT_EQ(parseError(api + "14 hsa_init 1 2\n"),
              "t.atp:8: expected API 'hsa_signal_store_relaxed' as on line 4 of the API trace, "
              "got 'hsa_init'");
    const std::string kernels = "=====hsa Kernel Timestamp Output=====\n";
    EXPECT_EQ(parseError(kernels + "k 0x1 1 2 gfx900 {1} 0 0\n"),
              "t.atp:2: expected the number of dispatch lines, got 'k 0x1 1 2 gfx900 {1} 0 0'");
    EXPECT_EQ(parseError(kernels + "1\nk 0x1 1 2 gfx900 {1} 0 0\nk 0x1 1 2 gfx900 {1} 0 0\n"),
              "t.atp:4: expected a section line after the dispatch lines the count announced, "
              "got 'k 0x1 1 2 gfx900 {1} 0 0'");
    EXPECT_EQ(parseError(kernels + "2\nk 0x1 1 2 gfx900 {1} 0 0\n"),
              "t.atp:4: expected 1 more dispatch lines before the section ends");
    EXPECT_EQ(parseError(kernels + "1\nk 0x1 1 2 gfx900 {1} q 0\n"),
              "t.atp:3: expected the queue index (a decimal number) in field 7, got 'q'");
    EXPECT_THAT(parseError(kernels + "1\nk 0x1 1 2\n"),
                HasSubstr("t.atp:3: expected a dispatch line of 8 to 11 fields"));
}

TEST(TraceParserErrors, StackAndMarkerLines) {
    EXPECT_EQ(parseError("=====ocl Stack Trace Output=====\n1\n1\nclFinish\tmain\tx12\tf.c\n"),
              "t.atp:4: expected a source line number (decimal) in field 3, got 'x12'");
    const std::string error = parseError("=====Perfmarker Output=====\n1\n1\nclBogus 12\n");
    EXPECT_THAT(error, ::testing::StartsWith("t.atp:4: expected"));
    EXPECT_EQ(parseError("=====Perfmarker Output=====\n1\n2\nclEndPerfMarker 5\n"),
              "t.atp:5: thread 1 declares 2 marker lines but the section ends after 1");
}

TEST(TraceParserErrors, EnormousLine) {
    std::string text = "A=";
    text.append(kMaxTraceLineBytes + 10, 'x');
    text.append("\nB=1\n");
    const Outcome o = parse("H=1\n" + text);
    EXPECT_FALSE(o.ok);
    EXPECT_EQ(o.error, "t.atp:2: expected a line of at most 16 MiB, got a longer one");
    EXPECT_EQ(o.r.header.size(), 1u);
}

TEST(TraceParserErrors, BinaryGarbageAndNulBytes) {
    const std::string nul("A=1\n\x01\x02\0\xff\n", 9);
    EXPECT_EQ(parseError(nul),
              "t.atp:2: expected a header line KEY=VALUE or a section line, got "
              "'\\x01\\x02\\x00\\xff'");
    std::string api = kApi + "1\n1\nCL_SUCCESS = clFinish ( 0x1 )\n" + kTs + "1\n1\n51 clFinish ";
    api.push_back('\0');
    api.append(" 2\n");
    EXPECT_EQ(parseError(api),
              "t.atp:8: expected the start time (a decimal number) in field 3, got '\\x00'");
}

TEST(TraceParserLeniency, ExtraTimestampLinesAreAWarning) {
    const Outcome o = parse(kApi + "1\n1\nCL_SUCCESS = clFinish ( 0x1 )\n" + kTs +
                            "1\n2\n51 clFinish 1 2\n51 clFlush 3 4\n");
    ASSERT_TRUE(o.ok) << o.error;
    ASSERT_EQ(o.r.ocl.size(), 1u);
    ASSERT_EQ(o.r.warnings.size(), 1u);
    EXPECT_EQ(o.r.warnings[0],
              "t.atp:10: thread 1 has 1 more timestamp lines than API lines: the extra ones are "
              "skipped");
}

TEST(TraceParserLeniency, MissingTimestampLinesGiveZeroTimes) {
    const Outcome o = parse(kApi + "1\n2\nCL_SUCCESS = clFinish ( 0x1 )\nCL_SUCCESS = clFlush ( "
                            "0x1 )\n2\n1\nCL_SUCCESS = clFinish ( 0x2 )\n" +
                            kTs + "1\n1\n51 clFinish 1 2\n");
    ASSERT_TRUE(o.ok) << o.error;
    ASSERT_EQ(o.r.ocl.size(), 3u);
    EXPECT_EQ(o.r.ocl[1].name, "clFlush");
    EXPECT_EQ(o.r.ocl[1].call.index, 1u);
    EXPECT_EQ(o.r.ocl[1].call.start, 0u);
    EXPECT_EQ(o.r.ocl[1].call.apiType, 50);  // from the API catalogue
    EXPECT_EQ(o.r.ocl[2].call.tid, 2u);
    ASSERT_EQ(o.r.warnings.size(), 2u);
    EXPECT_THAT(o.r.warnings[0], HasSubstr("thread 1 has 1 API calls without a timestamp line"));
    EXPECT_THAT(o.r.warnings[1], HasSubstr("thread 2 has 1 API calls without a timestamp line"));
}

TEST(TraceParserLeniency, ApiSectionWithoutTimestampSection) {
    const Outcome o = parse("A=1\n" + kApi + "7\n1\nCL_SUCCESS = clFinish ( 0x1 )\n");
    ASSERT_TRUE(o.ok) << o.error;
    ASSERT_EQ(o.r.ocl.size(), 1u);
    EXPECT_EQ(o.r.ocl[0].call.tid, 7u);
    EXPECT_EQ(o.r.ocl[0].call.end, 0u);
    EXPECT_EQ(o.r.ocl[0].call.timestampLine.line, 0u);
    ASSERT_EQ(o.r.warnings.size(), 1u);
    EXPECT_EQ(o.r.warnings[0],
              "t.atp:2: the ocl API Trace Output section has no ocl Timestamp Output section "
              "after it: the times of its calls are unknown");
}

TEST(TraceParserLeniency, TimestampSectionWithoutApiSection) {
    const Outcome o = parse(kTs + "7\n1\n51 clFinish 1 2\n");
    ASSERT_TRUE(o.ok) << o.error;
    EXPECT_TRUE(o.r.ocl.empty());
    ASSERT_EQ(o.r.warnings.size(), 1u);
    EXPECT_THAT(o.r.warnings[0], HasSubstr("t.atp:1: a ocl Timestamp Output section without"));
}

TEST(TraceParserLeniency, KernelNameMissing) {
    // docs/format.md#leniencies: an unknown kernel name is an empty token; the sizes are found from
    // the end.
    const std::string line =
        "66 clEnqueueNDRangeKernel 1 2 4592 CL_COMMAND_NDRANGE_KERNEL 1 2 3 4 0 0x1 0 0x2 gfx900 "
        "0x21ff890       {64}     {NULL}        \n";
    const Outcome o = parse(kApi + "1\n1\nCL_SUCCESS = clEnqueueNDRangeKernel ( 0x1 )\n" + kTs +
                            "1\n1\n" + line);
    ASSERT_TRUE(o.ok) << o.error;
    ASSERT_EQ(o.r.ocl.size(), 1u);
    EXPECT_EQ(o.r.ocl[0].kernelHandle, "0x21ff890");
    EXPECT_EQ(o.r.ocl[0].call.command.kernelName, "");
    EXPECT_EQ(o.r.ocl[0].globalSize, "{64}");
    EXPECT_EQ(o.r.ocl[0].localSize, "{NULL}");
}

TEST(TraceParserLeniency, BlankLinesAnywhere) {
    const Outcome o = parse("\n\nA=1\n\n" + kApi + "\n1\n\n1\n\nCL_SUCCESS = clFinish ( 0x1 )\n\n" +
                            kTs + "1\n1\n\n51 clFinish 1 2\n\n");
    ASSERT_TRUE(o.ok) << o.error;
    ASSERT_EQ(o.r.ocl.size(), 1u);
    EXPECT_EQ(o.r.ocl[0].call.apiLine.line, 11u);
    EXPECT_EQ(o.r.ocl[0].call.timestampLine.line, 17u);
    EXPECT_TRUE(o.r.warnings.empty());
}

TEST(TraceParserRobustness, RandomlyDamagedFixturesNeverCrash) {
    std::mt19937 rng(20240611);
    const std::vector<std::string> fixtures = {readFixture("ocl_vecadd.atp"),
                                               readFixture("hsa_reduce.atp"),
                                               readFixture("ocl_stack.atp")};
    int failures = 0;
    for (int round = 0; round < 600; ++round) {
        std::string text = fixtures[round % fixtures.size()];
        const int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits; ++e) {
            const size_t at = rng() % text.size();
            switch (rng() % 4) {
                case 0: text[at] = static_cast<char>(rng() & 0xff); break;
                case 1: text.erase(at, rng() % 64); break;
                case 2: text.insert(at, 1, "\n= \t0{;"[rng() % 7]); break;
                default: text.resize(at); break;
            }
            if (text.empty()) text = "x";
        }
        Recorder r;
        TraceParser parser;
        parser.addListener(r);
        std::string error;
        if (!parser.parseBuffer(text, "d.atp", error)) {
            ++failures;
            EXPECT_THAT(error, ::testing::StartsWith("d.atp:"));
        }
    }
    EXPECT_GT(failures, 100);  // the damage is noticed, not silently read
}

}  // namespace
}  // namespace perfmarker::atp

namespace perfmarker::atp {
namespace {

// The fast token splitter of the parts agrees with splitFields() of ocl_timestamp.h.
TEST(TraceParserTokens, SplitTokensMatchesSplitFields) {
    std::mt19937 rng(7);
    const std::string alphabet = "        \t\r\nab0\x01";
    std::vector<std::string_view> fast, reference;
    for (int round = 0; round < 2000; ++round) {
        std::string line;
        const size_t length = rng() % 70;
        for (size_t i = 0; i < length; ++i) line.push_back(alphabet[rng() % alphabet.size()]);
        line.push_back('\0');
        detail::splitTokens(line, fast);
        splitFields(line, reference);
        ASSERT_EQ(fast, reference) << detail::excerpt(line);
    }
}

}  // namespace
}  // namespace perfmarker::atp
