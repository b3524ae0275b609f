// Unit tests of the Perfmarker section reader (src/atp/format/perfmarker_section.h): rejected
// input and its error messages, and random or mutated input. Helpers are in
// perfmarker_section_support.h.
#include "perfmarker_section_support.h"

#include <cstdint>
#include <random>
#include <sstream>
#include <string>

namespace perfmarker::atp {
namespace {

using namespace section_test;

// ---- reading: errors -----------------------------------------------------------------------

TEST(PerfmarkerReaderError, MissingSectionLine) {
    expectError("\n1\n1\nclEndPerfMarker 1\n",
                "t.atp:2: expected '=====Perfmarker Output=====' (or a legacy spelling) as the "
                "first line, got '1'");
    expectError("=====ocl API Trace Output=====\n",
                "t.atp:1: expected '=====Perfmarker Output=====' (or a legacy spelling) as the "
                "first line, got '=====ocl API Trace Output====='");
}

TEST(PerfmarkerReaderError, EmptyFile) {
    const std::string expected =
        "t.atp:1: expected '=====Perfmarker Output=====' (or a legacy spelling) as the first line, "
        "got the end of the file";
    expectError("", expected);
    expectError("\n\n  \n", expected);
}

TEST(PerfmarkerReaderError, BadThreadId) {
    expectError("=====Perfmarker Output=====\n\nthread7\n1\n",
                "t.atp:3: expected a thread id (decimal), got 'thread7'");
    expectError("=====Perfmarker Output=====\n-7\n",
                "t.atp:2: expected a thread id (decimal), got '-7'");
    expectError("=====Perfmarker Output=====\n7 8\n",
                "t.atp:2: expected a thread id (decimal), got '7 8'");
    expectError("=====Perfmarker Output=====\n18446744073709551616\n",
                "t.atp:2: expected a thread id (decimal), got '18446744073709551616' (too large)");
}

TEST(PerfmarkerReaderError, MoreLinesThanTheCountSays) {
    expectError("=====Perfmarker Output=====\n7\n1\nclEndPerfMarker 1\nclEndPerfMarker 2\n",
                "t.atp:5: expected a thread id (decimal), got 'clEndPerfMarker 2' (more marker "
                "lines than the previous thread block declares?)");
}

TEST(PerfmarkerReaderError, BadCount) {
    expectError("=====Perfmarker Output=====\n7\nabc\n",
                "t.atp:3: expected the marker line count of thread 7 (decimal), got 'abc'");
    expectError("=====Perfmarker Output=====\n7\n99999999999999999999\n",
                "t.atp:3: expected the marker line count of thread 7 (decimal), got "
                "'99999999999999999999' (too large)");
    expectError("=====Perfmarker Output=====\n7\n",
                "t.atp:2: thread 7 has no marker line count before the end of the section");
}

TEST(PerfmarkerReaderError, BadTimestamp) {
    const std::string head = "=====Perfmarker Output=====\n1\n\n\n\n3\n";
    expectError(head + "clBeginPerfMarker name abc Default\n",
                "t.atp:7: expected a timestamp (decimal nanoseconds), got 'abc'");
    expectError(head + "clEndPerfMarker 12x\n",
                "t.atp:7: expected a timestamp (decimal nanoseconds), got '12x'");
    expectError(head + "clEndPerfMarker\n",
                "t.atp:7: expected a timestamp (decimal nanoseconds), got the end of the line");
    expectError(head + "clEndPerfMarkerEx 18446744073709551616 n g\n",
                "t.atp:7: expected a timestamp (decimal nanoseconds), got "
                "'18446744073709551616' (too large)");
    expectError(head + "clEndPerfMarkerEx -1 n g\n",
                "t.atp:7: expected a timestamp (decimal nanoseconds), got '-1'");
}

TEST(PerfmarkerReaderError, MissingFields) {
    const std::string head = "=====Perfmarker Output=====\n1\n1\n";
    expectError(head + "clBeginPerfMarker\n",
                "t.atp:4: expected a marker name after clBeginPerfMarker, got the end of the line");
    expectError(head + "clBeginPerfMarker n 5\n",
                "t.atp:4: expected a group name, got the end of the line");
    expectError(head + "clEndPerfMarkerEx 5\n",
                "t.atp:4: expected a marker name after the timestamp, got the end of the line");
    expectError(head + "clEndPerfMarkerEx 5 n\n",
                "t.atp:4: expected a group name, got the end of the line");
}

TEST(PerfmarkerReaderError, UnknownLineType) {
    expectError("=====Perfmarker Output=====\n1\n1\nclBeginPerfMarkerX n 1 g\n",
                "t.atp:4: expected a marker line (clBeginPerfMarker, clEndPerfMarker or "
                "clEndPerfMarkerEx), got 'clBeginPerfMarkerX n 1 g'");
    expectError("=====Perfmarker Output=====\n1\n2\nclEndPerfMarker 1\n2\n",
                "t.atp:5: expected a marker line (clBeginPerfMarker, clEndPerfMarker or "
                "clEndPerfMarkerEx), got '2'");
}

TEST(PerfmarkerReaderError, ShortBlockAtTheEnd) {
    expectError("=====Perfmarker Output=====\n1\n3\nclEndPerfMarker 1\n",
                "t.atp:4: thread 1 declares 3 marker lines but the section ends after 1");
    expectError("=====Perfmarker Output=====\n1\n18446744073709551615\n",
                "t.atp:3: thread 1 declares 18446744073709551615 marker lines but the section "
                "ends after 0");
}

TEST(PerfmarkerReaderError, BinaryGarbageIsQuotedSafely) {
    const std::string garbage("\x01\x02\xff\0abc\\", 8);
    expectError("=====Perfmarker Output=====\n1\n1\n" + garbage + "\n",
                "t.atp:4: expected a marker line (clBeginPerfMarker, clEndPerfMarker or "
                "clEndPerfMarkerEx), got '\\x01\\x02\\xff\\x00abc\\x5c'");
    expectError(garbage, "t.atp:1: expected '=====Perfmarker Output=====' (or a legacy spelling) "
                         "as the first line, got '\\x01\\x02\\xff\\x00abc\\x5c'");
}

TEST(PerfmarkerReaderError, LongLinesAreTruncatedInMessages) {
    const ParseResult result =
        parse("=====Perfmarker Output=====\n1\n1\nclEndPerfMarker " + std::string(1 << 20, '9') + "\n");
    EXPECT_FALSE(result.ok);
    EXPECT_THAT(result.error, StartsWith("t.atp:4: expected a timestamp (decimal nanoseconds)"));
    EXPECT_THAT(result.error, HasSubstr("...' (too large)"));
    EXPECT_LT(result.error.size(), 200u);
}

TEST(PerfmarkerReaderError, NulBytesInsideATimestamp) {
    expectError("=====Perfmarker Output=====\n1\n1\nclEndPerfMarker " + std::string("12\0", 3) + "3\n",
                "t.atp:4: expected a timestamp (decimal nanoseconds), got '12\\x003'");
}

TEST(PerfmarkerReaderError, MissingFile) {
    PerfmarkerFile file;
    std::string error;
    EXPECT_FALSE(readPerfmarkerFile(fixturePath("does_not_exist.clperfmarker"), file, error));
    EXPECT_THAT(error, HasSubstr("does_not_exist.clperfmarker: cannot open"));
}

TEST(PerfmarkerReaderError, FileNameIsInTheMessage) {
    PerfmarkerFile file;
    std::string error;
    std::istringstream in("=====Perfmarker Output=====\nx\n");
    EXPECT_FALSE(readPerfmarkerFile(in, "/tmp/app.atp", file, error));
    EXPECT_EQ(error, "/tmp/app.atp:2: expected a thread id (decimal), got 'x'");
}

// Random and mutated inputs: must never crash or hang (run under ASan/UBSan in CI), and every
// failure names the input and a line.
TEST(PerfmarkerReaderError, GarbageAndMutationsNeverCrash) {
    const std::string valid = readBytes(fixturePath("legacy_codexl.clperfmarker"));
    ASSERT_FALSE(valid.empty());
    std::mt19937 random(4242);
    const std::string bytes = std::string("\n\n\n \t=&;#0123456789\0\xff", 21) +
                              "clBeginPerfMarker clEndPerfMarkerEx user= &nbsp; &#";
    for (int i = 0; i < 3000; ++i) {
        std::string input = valid;
        if (i % 3 == 0) input.assign(random() % 400, ' ');
        const int edits = 1 + random() % 8;
        for (int e = 0; e < edits && !input.empty(); ++e)
            input[random() % input.size()] = bytes[random() % bytes.size()];
        const ParseResult result = parse(input, "fuzz");
        if (!result.ok) {
            EXPECT_THAT(result.error, StartsWith("fuzz:")) << result.error;
        }
    }
}

}  // namespace
}  // namespace perfmarker::atp
