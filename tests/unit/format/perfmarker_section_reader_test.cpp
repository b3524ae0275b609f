// Unit tests of the Perfmarker section reader (src/atp/format/perfmarker_section.h): round trips
// of the writer, the original format, warnings, and the streaming parser. Helpers are in
// perfmarker_section_support.h.
#include "perfmarker_section_support.h"

#include <cstdint>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace perfmarker::atp {
namespace {

using namespace section_test;

// ---- reading: round trip -------------------------------------------------------------------

TEST(PerfmarkerReader, RoundTripOfTheWriter) {
    const std::string longName(300, 'L');
    std::string text(kPerfmarkerSectionLine);
    text += '\n';
    appendThreadHeader(text, 11, 4);
    appendMarkerLine(text, MarkerKind::Begin, 100, "outer frame", "");
    appendMarkerLine(text, MarkerKind::Begin, 200, longName, "io group", "user text");
    appendMarkerLine(text, MarkerKind::End, 300);
    appendMarkerLine(text, MarkerKind::EndEx, 400, "renamed & done", "g2", "u=1 2");
    appendThreadHeader(text, 22, 0);
    const ParseResult result = parse(text);
    ASSERT_TRUE(result.ok) << result.error;
    EXPECT_TRUE(result.file.warnings.empty());
    ASSERT_EQ(result.file.threads.size(), 2u);
    EXPECT_EQ(result.file.threads[1].tid, 22u);
    EXPECT_TRUE(result.file.threads[1].markers.empty());
    const std::vector<Marker>& m = result.file.threads[0].markers;
    EXPECT_EQ(result.file.threads[0].tid, 11u);
    ASSERT_EQ(m.size(), 4u);
    EXPECT_EQ(m[0].kind, MarkerKind::Begin);
    EXPECT_EQ(m[0].timestampNs, 100u);
    EXPECT_EQ(m[0].name, "outer frame");
    EXPECT_EQ(m[0].group, "Default");
    EXPECT_EQ(m[0].userString, "");
    EXPECT_EQ(m[0].line, 4u);
    EXPECT_EQ(m[1].name, longName);
    EXPECT_EQ(m[1].group, "io group");
    EXPECT_EQ(m[1].userString, "user text");
    EXPECT_EQ(m[2].kind, MarkerKind::End);
    EXPECT_EQ(m[2].timestampNs, 300u);
    EXPECT_EQ(m[2].name, "");
    EXPECT_EQ(m[3].kind, MarkerKind::EndEx);
    EXPECT_EQ(m[3].timestampNs, 400u);
    EXPECT_EQ(m[3].name, "renamed & done");
    EXPECT_EQ(m[3].group, "g2");
    EXPECT_EQ(m[3].userString, "u=1 2");
    EXPECT_EQ(m[3].line, 7u);
}

// A time of 20 digits fills its field: the name after it in an end with rename stays a token of
// its own (a damaged fragment can hold such a time; the merge must write what it can read).
TEST(PerfmarkerReader, TwentyDigitTimesRoundTrip) {
    for (const uint64_t time :
         {uint64_t{9999999999999999999u}, uint64_t{10000000000000000000u}, UINT64_MAX}) {
        std::string text(kPerfmarkerSectionLine);
        text += '\n';
        appendThreadHeader(text, 5, 4);
        appendMarkerLine(text, MarkerKind::Begin, time, "frame", "g");
        appendMarkerLine(text, MarkerKind::EndEx, time, "renamed", "g2");
        appendMarkerLine(text, MarkerKind::Begin, time, std::string(60, 'N'), "g");
        appendMarkerLine(text, MarkerKind::End, time);
        const ParseResult result = parse(text);
        ASSERT_TRUE(result.ok) << time << ": " << result.error;
        ASSERT_EQ(result.file.threads.size(), 1u);
        const std::vector<Marker>& m = result.file.threads[0].markers;
        ASSERT_EQ(m.size(), 4u);
        for (const Marker& marker : m) EXPECT_EQ(marker.timestampNs, time);
        EXPECT_EQ(m[1].name, "renamed");
        EXPECT_EQ(m[1].group, "g2");
        EXPECT_EQ(m[2].name, std::string(60, 'N'));
    }
    // Below 10^19 the end with rename keeps the original layout: the name at column 40.
    std::string line;
    appendMarkerLine(line, MarkerKind::EndEx, 9999999999999999999u, "renamed", "g2");
    EXPECT_EQ(line.find("renamed"), 40u);
}

TEST(PerfmarkerReader, RandomFieldsRoundTrip) {
    std::mt19937 random(777);
    const std::string alphabet =
        std::string(" &;#\t\n\0\x7f\xff", 9) + "abuser=&empty;Default" + std::string(1, '\r');
    auto randomString = [&](size_t maxLength) {
        std::string s(random() % maxLength, ' ');
        for (char& c : s) c = alphabet[random() % alphabet.size()];
        return s;
    };
    for (int i = 0; i < 500; ++i) {
        const MarkerKind kind = i % 2 ? MarkerKind::Begin : MarkerKind::EndEx;
        const std::string name = randomString(70);
        const std::string group = randomString(8);
        const std::string user = randomString(8);
        const Marker marker = parseOne(line(kind, i, name, group, user));
        EXPECT_EQ(marker.kind, kind);
        EXPECT_EQ(marker.timestampNs, static_cast<uint64_t>(i));
        EXPECT_EQ(marker.name, name);
        EXPECT_EQ(marker.group, group.empty() ? "Default" : group);
        EXPECT_EQ(marker.userString, user);
    }
}

TEST(PerfmarkerReader, OneMegabyteNameRoundTrips) {
    std::string name(1 << 20, 'y');
    name[12345] = ' ';
    const Marker marker = parseOne(line(MarkerKind::Begin, 5, name, "g"));
    EXPECT_EQ(marker.name, name);
    EXPECT_EQ(marker.timestampNs, 5u);
}

// ---- reading: the original format ----------------------------------------------------------

TEST(PerfmarkerReader, LegacyCodeXLFixture) {
    PerfmarkerFile file;
    std::string error;
    ASSERT_TRUE(readPerfmarkerFile(fixturePath("legacy_codexl.clperfmarker"), file, error))
        << error;
    ASSERT_EQ(file.threads.size(), 2u);
    EXPECT_EQ(file.threads[0].tid, 12345u);
    const std::vector<Marker>& m = file.threads[0].markers;
    ASSERT_EQ(m.size(), 5u);  // the ProfilerVersion= line inside the block does not count
    EXPECT_EQ(m[0].name, "Frame 1");
    EXPECT_EQ(m[0].group, "Render Pass Group");  // unescaped multi-word group of old libraries
    EXPECT_EQ(m[0].timestampNs, 1000u);
    EXPECT_EQ(m[1].name, "Upload");
    EXPECT_EQ(m[1].group, "Default");
    EXPECT_EQ(m[2].kind, MarkerKind::End);
    EXPECT_EQ(m[2].timestampNs, 1200u);
    EXPECT_EQ(m[3].kind, MarkerKind::EndEx);
    EXPECT_EQ(m[3].name, "Frame1&Done<ok>");  // original EndEx: unescaped
    EXPECT_EQ(m[3].group, "Render");  // one token of group, as the original reader took it
    EXPECT_EQ(m[3].line, 10u);
    EXPECT_EQ(m[4].name, std::string(60, 'A'));
    EXPECT_EQ(m[4].timestampNs, 4000u);
    EXPECT_EQ(m[4].group, "Long Group");
    EXPECT_EQ(file.threads[1].tid, 678u);
    ASSERT_EQ(file.threads[1].markers.size(), 2u);
    EXPECT_EQ(file.threads[1].markers[0].name, std::string(55, 'B'));
    EXPECT_EQ(file.threads[1].markers[0].timestampNs, 5000u);
    EXPECT_THAT(file.warnings,
                ElementsAre("line 11: unbalanced perf markers in thread 12345: 1 begin marker(s) "
                            "not ended by the end of the thread block",
                            "line 15: unbalanced perf markers in thread 678: an end marker "
                            "without a matching begin",
                            "line 16: unbalanced perf markers in thread 678: 1 begin marker(s) "
                            "not ended by the end of the thread block"));
}

TEST(PerfmarkerReader, LegacyAmdOpenCLFixtureWithCrlf) {
    PerfmarkerFile file;
    std::string error;
    ASSERT_TRUE(readPerfmarkerFile(fixturePath("legacy_amd_opencl_crlf.clperfmarker"), file, error))
        << error;
    ASSERT_EQ(file.threads.size(), 1u);
    EXPECT_EQ(file.threads[0].tid, 42u);
    ASSERT_EQ(file.threads[0].markers.size(), 2u);
    EXPECT_EQ(file.threads[0].markers[0].name, "Kernel setup");
    EXPECT_EQ(file.threads[0].markers[0].group, "My Group");
    EXPECT_EQ(file.threads[0].markers[0].timestampNs, 17u);
    EXPECT_EQ(file.threads[0].markers[0].line, 5u);
    EXPECT_EQ(file.threads[0].markers[1].timestampNs, 29u);
    EXPECT_TRUE(file.warnings.empty());
}

TEST(PerfmarkerReader, SpecExampleFixture) {
    PerfmarkerFile file;
    std::string error;
    ASSERT_TRUE(readPerfmarkerFile(fixturePath("spec_example.amdtperfmarker"), file, error))
        << error;
    ASSERT_EQ(file.threads.size(), 1u);
    const std::vector<Marker>& m = file.threads[0].markers;
    ASSERT_EQ(m.size(), 4u);
    EXPECT_EQ(m[0].name, "Frame 42");
    EXPECT_EQ(m[0].group, "Render");
    EXPECT_EQ(m[0].timestampNs, 4035402100000u);
    EXPECT_EQ(m[3].name, "Frame42Done");
    EXPECT_TRUE(file.warnings.empty());
}

TEST(PerfmarkerReader, TokenizesOnAnyWhitespaceNotColumns) {
    const Marker marker = parseOne("\t clBeginPerfMarker\tname \t 12\v\fgrp\t  user=u  ");
    EXPECT_EQ(marker.name, "name");
    EXPECT_EQ(marker.timestampNs, 12u);
    EXPECT_EQ(marker.group, "grp");
    EXPECT_EQ(marker.userString, "u");
}

TEST(PerfmarkerReader, UserTokenOnlyWhenLast) {
    const Marker marker = parseOne("clBeginPerfMarker n 1 g user=a more");
    EXPECT_EQ(marker.group, "g user=a more");
    EXPECT_EQ(marker.userString, "");
    EXPECT_EQ(parseOne("clBeginPerfMarker n 1 user=g").group, "user=g");
    // An end with rename takes one token of group, as the original reader did.
    const Marker withExtras = parseOne("clEndPerfMarkerEx 1 n my old group user=x&nbsp;y");
    EXPECT_EQ(withExtras.group, "my");
    EXPECT_EQ(withExtras.userString, "x y");
}

TEST(PerfmarkerReader, OldEndExWithSpacesInTheNameReadsAsTheOriginalReaderDid) {
    // The original writer did not escape EndEx names; the original reader took the first token
    // as the name and the next as the group, and ignored the rest.
    const Marker marker = parseOne("clEndPerfMarkerEx   9   Frame 42 Done   Render");
    EXPECT_EQ(marker.kind, MarkerKind::EndEx);
    EXPECT_EQ(marker.timestampNs, 9u);
    EXPECT_EQ(marker.name, "Frame");
    EXPECT_EQ(marker.group, "42");
    EXPECT_EQ(marker.userString, "");
}

TEST(PerfmarkerReader, EndIgnoresExtraTokens) {
    const Marker marker = parseOne("clEndPerfMarker 33 whatever else");
    EXPECT_EQ(marker.kind, MarkerKind::End);
    EXPECT_EQ(marker.timestampNs, 33u);
}

TEST(PerfmarkerReader, BlankLinesAndProfilerVersionBeforeAndInside) {
    const ParseResult result = parse(
        "\n  \n=====Perfmarker Output=====\nProfilerVersion=5.6.0\n\n7\n\nProfilerVersion=x\n1\n"
        "\nclEndPerfMarker 1\n\n");
    ASSERT_TRUE(result.ok) << result.error;
    ASSERT_EQ(result.file.threads.size(), 1u);
    EXPECT_EQ(result.file.threads[0].tid, 7u);
    ASSERT_EQ(result.file.threads[0].markers.size(), 1u);
    EXPECT_EQ(result.file.threads[0].markers[0].line, 11u);
}

TEST(PerfmarkerReader, AnotherSectionEndsTheSection) {
    const ParseResult result = parse(
        "=====Perfmarker Output=====\n1\n1\nclEndPerfMarker 1\n"
        "=====ocl API Trace Output=====\nnot a perfmarker line\n");
    ASSERT_TRUE(result.ok) << result.error;
    ASSERT_EQ(result.file.threads.size(), 1u);
}

TEST(PerfmarkerReader, RepeatedPerfmarkerSectionContinues) {
    const ParseResult result = parse(
        "=====Perfmarker Output=====\n1\n1\nclEndPerfMarker 1\n"
        "=====CodeXL Perfmarker Output=====\n2\n1\nclEndPerfMarker 2\n");
    ASSERT_TRUE(result.ok) << result.error;
    ASSERT_EQ(result.file.threads.size(), 2u);
    EXPECT_EQ(result.file.threads[1].tid, 2u);
}

TEST(PerfmarkerReader, SectionLineInsideABlockIsAShortBlock) {
    expectError("=====Perfmarker Output=====\n1\n2\nclEndPerfMarker 1\n=====ocl Timestamp Output=====\n",
                "t.atp:5: thread 1 declares 2 marker lines but the section ends after 1");
}

TEST(PerfmarkerReader, EmptySection) {
    const ParseResult result = parse("=====Perfmarker Output=====\n");
    ASSERT_TRUE(result.ok) << result.error;
    EXPECT_TRUE(result.file.threads.empty());
}

TEST(PerfmarkerReader, ClearsTheOutputFirst) {
    ParseResult result;
    result.file.threads.push_back({9, {}});
    result.file.warnings.push_back("old");
    std::istringstream in("=====Perfmarker Output=====\n");
    ASSERT_TRUE(readPerfmarkerFile(in, "x", result.file, result.error));
    EXPECT_TRUE(result.file.threads.empty());
    EXPECT_TRUE(result.file.warnings.empty());
}

// ---- reading: warnings ---------------------------------------------------------------------

TEST(PerfmarkerReader, EndWithoutBeginWarns) {
    const ParseResult result =
        parse("=====Perfmarker Output=====\n5\n2\nclEndPerfMarker 1\nclEndPerfMarkerEx 2 n g\n");
    ASSERT_TRUE(result.ok) << result.error;
    EXPECT_THAT(result.file.warnings,
                ElementsAre("line 4: unbalanced perf markers in thread 5: an end marker without a "
                            "matching begin",
                            "line 5: unbalanced perf markers in thread 5: an end marker without a "
                            "matching begin"));
}

TEST(PerfmarkerReader, OpenBeginsWarnAtTheEndOfTheBlockOnly) {
    const ParseResult result = parse(
        "=====Perfmarker Output=====\n5\n2\nclBeginPerfMarker a 1 g\nclBeginPerfMarker b 2 g\n"
        "6\n1\nclBeginPerfMarker c 3 g\n");
    ASSERT_TRUE(result.ok) << result.error;
    EXPECT_THAT(result.file.warnings,
                ElementsAre(StartsWith("line 5: unbalanced perf markers in thread 5: 2 begin"),
                            StartsWith("line 8: unbalanced perf markers in thread 6: 1 begin")));
}

TEST(PerfmarkerReader, BalanceIsPerBlock) {
    const ParseResult result = parse(
        "=====Perfmarker Output=====\n5\n1\nclBeginPerfMarker a 1 g\n5\n1\nclEndPerfMarker 2\n");
    ASSERT_TRUE(result.ok) << result.error;
    EXPECT_EQ(result.file.warnings.size(), 2u);
}

// ---- the streaming parser ------------------------------------------------------------------

class RecordingListener final : public PerfmarkerListener {
public:
    void onThread(uint64_t tid, uint64_t declaredCount) override {
        m_events.push_back("thread " + std::to_string(tid) + " " + std::to_string(declaredCount));
    }
    void onMarker(uint64_t tid, const Marker& marker) override {
        m_events.push_back("marker " + std::to_string(tid) + " " + marker.name + " @" +
                           std::to_string(marker.line));
    }
    void onWarning(uint64_t line, const std::string& message) override {
        m_events.push_back("warning " + std::to_string(line) + " " + message);
    }
    std::vector<std::string> m_events;
};

TEST(PerfmarkerSectionParser, ReportsInFileOrder) {
    RecordingListener listener;
    PerfmarkerSectionParser parser(listener);
    std::string error;
    const char* lines[] = {"3", "2", "clBeginPerfMarker a 1 g", "clEndPerfMarkerEx 2 b g", "4", "0"};
    uint64_t number = 10;
    for (const char* text : lines) ASSERT_TRUE(parser.feedLine(text, number++, error)) << error;
    ASSERT_TRUE(parser.finish(number, error)) << error;
    EXPECT_THAT(listener.m_events,
                ElementsAre("thread 3 2", "marker 3 a @12", "marker 3 b @13", "thread 4 0"));
}

TEST(PerfmarkerSectionParser, ErrorsUseTheLinePrefixAndWarningsDoNot) {
    RecordingListener listener;
    PerfmarkerSectionParser parser(listener);
    std::string error;
    ASSERT_TRUE(parser.feedLine("3", 1, error));
    ASSERT_TRUE(parser.feedLine("1", 2, error));
    ASSERT_TRUE(parser.feedLine("clEndPerfMarker 5", 3, error));
    EXPECT_THAT(listener.m_events,
                ElementsAre("thread 3 1", "marker 3  @3",
                            "warning 3 unbalanced perf markers in thread 3: an end marker without "
                            "a matching begin"));
    EXPECT_FALSE(parser.feedLine("bogus", 7, error));
    EXPECT_EQ(error, "line 7: expected a thread id (decimal), got 'bogus'");
}

TEST(PerfmarkerSectionParser, FinishResetsForTheNextSection) {
    RecordingListener listener;
    PerfmarkerSectionParser parser(listener);
    std::string error;
    ASSERT_TRUE(parser.feedLine("3", 1, error));
    ASSERT_TRUE(parser.feedLine("2", 2, error));
    EXPECT_FALSE(parser.finish(2, error));
    EXPECT_EQ(error, "line 2: thread 3 declares 2 marker lines but the section ends after 0");
    ASSERT_TRUE(parser.feedLine("9", 3, error)) << error;  // a thread id again
    ASSERT_TRUE(parser.feedLine("0", 4, error)) << error;
    EXPECT_TRUE(parser.finish(4, error));
}

}  // namespace
}  // namespace perfmarker::atp
