// Unit tests of the Perfmarker section writer and reader (src/atp/format/perfmarker_section.h).
//
// Needs the compile definition PERFMARKER_FIXTURES_DIR: the absolute path of tests/fixtures
// (no trailing slash; perfmarker_add_gtest in tests/unit/CMakeLists.txt sets it). The hand-made
// files used here are in tests/fixtures/perfmarker/.
#include "atp/format/perfmarker_section.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#ifndef PERFMARKER_FIXTURES_DIR
#error "PERFMARKER_FIXTURES_DIR must name tests/fixtures"
#endif

namespace perfmarker::atp {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string spaces(size_t count) { return std::string(count, ' '); }

std::string fixturePath(const std::string& name) {
    return std::string(PERFMARKER_FIXTURES_DIR) + "/perfmarker/" + name;
}

std::string readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

std::string escaped(std::string_view raw) {
    std::string out;
    appendEscapedToken(out, raw);
    return out;
}

std::string line(MarkerKind kind, uint64_t ts, std::string_view name = {},
                 std::string_view group = {}, std::string_view user = {}) {
    std::string out;
    appendMarkerLine(out, kind, ts, name, group, user);
    return out;
}

struct ParseResult {
    bool ok = false;
    PerfmarkerFile file;
    std::string error;
};

ParseResult parse(const std::string& text, std::string_view name = "t.atp") {
    ParseResult result;
    std::istringstream in(text);
    result.ok = readPerfmarkerFile(in, name, result.file, result.error);
    return result;
}

// Parses one marker line (inside a one-line thread block) and returns the marker.
Marker parseOne(const std::string& markerLine) {
    const ParseResult result = parse("=====Perfmarker Output=====\n1\n1\n" + markerLine);
    EXPECT_TRUE(result.ok) << result.error;
    if (!result.ok || result.file.threads.size() != 1 ||
        result.file.threads[0].markers.size() != 1)
        return Marker{};
    return result.file.threads[0].markers[0];
}

// Asserts that `text` is rejected with exactly `expected` as the error.
void expectError(const std::string& text, const std::string& expected) {
    const ParseResult result = parse(text);
    EXPECT_FALSE(result.ok);
    EXPECT_EQ(result.error, expected);
}

// ---- writer: exact bytes -------------------------------------------------------------------

TEST(PerfmarkerWriter, BeginShortNameIsPaddedToColumns) {
    EXPECT_EQ(line(MarkerKind::Begin, 4035402100000, "Frame 42", "Render"),
              "clBeginPerfMarker" + spaces(3) + "Frame&nbsp;42" + spaces(37) + "4035402100000" +
                  spaces(7) + spaces(3) + "Render\n");
}

TEST(PerfmarkerWriter, BeginNameOf49EscapedBytesIsStillPadded) {
    const std::string name(49, 'n');
    EXPECT_EQ(line(MarkerKind::Begin, 7, name, "G"),
              "clBeginPerfMarker   " + name + " " + "7" + spaces(19) + "   G\n");
}

TEST(PerfmarkerWriter, BeginNameOf50BytesUsesSeparators) {
    const std::string name(50, 'n');
    EXPECT_EQ(line(MarkerKind::Begin, 7, name, "G"),
              "clBeginPerfMarker   " + name + "   7   G\n");
}

TEST(PerfmarkerWriter, BeginLongFormIsChosenOnTheEscapedLength) {
    const std::string name = std::string(44, 'n') + " ";  // 45 raw bytes, 50 escaped
    EXPECT_EQ(line(MarkerKind::Begin, 123, name, "G"),
              "clBeginPerfMarker   " + std::string(44, 'n') + "&nbsp;   123   G\n");
}

TEST(PerfmarkerWriter, EndPadsTheTimestampWithTrailingSpaces) {
    EXPECT_EQ(line(MarkerKind::End, 4035402133001), "clEndPerfMarker" + spaces(5) +
                                                        "4035402133001" + spaces(7) + "\n");
}

TEST(PerfmarkerWriter, EndIgnoresNameGroupAndUser) {
    EXPECT_EQ(line(MarkerKind::End, 5, "n", "g", "u"), "clEndPerfMarker     5" + spaces(19) + "\n");
}

TEST(PerfmarkerWriter, TwentyDigitTimestampFillsItsField) {
    EXPECT_EQ(line(MarkerKind::End, UINT64_MAX), "clEndPerfMarker     18446744073709551615\n");
    EXPECT_EQ(line(MarkerKind::Begin, UINT64_MAX, "x", "g"),
              "clBeginPerfMarker   x" + spaces(49) + "18446744073709551615   g\n");
}

TEST(PerfmarkerWriter, EndExShortName) {
    EXPECT_EQ(line(MarkerKind::EndEx, 4035402500000, "Frame42Done", "Render"),
              "clEndPerfMarkerEx   4035402500000" + spaces(7) + "Frame42Done" + spaces(39) +
                  "   Render\n");
}

TEST(PerfmarkerWriter, EndExLongName) {
    const std::string name(50, 'e');
    EXPECT_EQ(line(MarkerKind::EndEx, 99, name, "G"),
              "clEndPerfMarkerEx   99" + spaces(18) + "   " + name + "   G\n");
}

TEST(PerfmarkerWriter, EndExLongFormIsChosenOnTheEscapedLength) {
    const std::string shortForm = "clEndPerfMarkerEx   1" + spaces(19);
    const std::string longForm = shortForm + "   ";
    // A space is 6 escaped bytes, '&' is 5.
    EXPECT_EQ(line(MarkerKind::EndEx, 1, std::string(44, 'a') + " ", "g"),
              longForm + std::string(44, 'a') + "&nbsp;   g\n");
    EXPECT_EQ(line(MarkerKind::EndEx, 1, std::string(44, 'a') + "&", "g"),
              shortForm + std::string(44, 'a') + "&amp;" + spaces(1) + "   g\n");
    EXPECT_EQ(line(MarkerKind::EndEx, 1, std::string(45, 'a') + "&", "g"),
              longForm + std::string(45, 'a') + "&amp;   g\n");
    // Control bytes: &#9; (4), &#31; (5), &#127; (6); each at 49 and at 50 escaped bytes.
    EXPECT_EQ(line(MarkerKind::EndEx, 1, std::string(45, 'a') + "\t", "g"),
              shortForm + std::string(45, 'a') + "&#9;" + spaces(1) + "   g\n");
    EXPECT_EQ(line(MarkerKind::EndEx, 1, std::string(46, 'a') + "\t", "g"),
              longForm + std::string(46, 'a') + "&#9;" + "   g\n");
    EXPECT_EQ(line(MarkerKind::EndEx, 1, std::string(44, 'a') + "\x1f", "g"),
              shortForm + std::string(44, 'a') + "&#31;" + spaces(1) + "   g\n");
    EXPECT_EQ(line(MarkerKind::EndEx, 1, std::string(45, 'a') + "\x1f", "g"),
              longForm + std::string(45, 'a') + "&#31;" + "   g\n");
    EXPECT_EQ(line(MarkerKind::EndEx, 1, std::string(43, 'a') + "\x7f", "g"),
              shortForm + std::string(43, 'a') + "&#127;" + spaces(1) + "   g\n");
    EXPECT_EQ(line(MarkerKind::EndEx, 1, std::string(44, 'a') + "\x7f", "g"),
              longForm + std::string(44, 'a') + "&#127;" + "   g\n");
    EXPECT_EQ(line(MarkerKind::EndEx, 1, "", "g"), shortForm + "&empty;" + spaces(43) + "   g\n");
}

TEST(PerfmarkerWriter, EndExEscapesNameAndGroup) {
    EXPECT_EQ(line(MarkerKind::EndEx, 1, "a b&c", "my group"),
              "clEndPerfMarkerEx   1" + spaces(19) + "a&nbsp;b&amp;c" + spaces(36) +
                  "   my&nbsp;group\n");
}

TEST(PerfmarkerWriter, EmptyGroupIsDefault) {
    EXPECT_EQ(line(MarkerKind::Begin, 1, "n"),
              "clBeginPerfMarker   n" + spaces(49) + "1" + spaces(19) + "   Default\n");
    EXPECT_EQ(line(MarkerKind::EndEx, 1, "n"),
              "clEndPerfMarkerEx   1" + spaces(19) + "n" + spaces(49) + "   Default\n");
}

TEST(PerfmarkerWriter, EmptyNameIsWrittenAsEmptyEntity) {
    EXPECT_EQ(line(MarkerKind::Begin, 1, "", "g"),
              "clBeginPerfMarker   &empty;" + spaces(43) + "1" + spaces(19) + "   g\n");
}

TEST(PerfmarkerWriter, UserStringIsALastToken) {
    EXPECT_EQ(line(MarkerKind::Begin, 1, "n", "", "frame 7"),
              "clBeginPerfMarker   n" + spaces(49) + "1" + spaces(19) +
                  "   Default   user=frame&nbsp;7\n");
    EXPECT_EQ(line(MarkerKind::EndEx, 2, std::string(60, 'x'), "g", "u"),
              "clEndPerfMarkerEx   2" + spaces(19) + "   " + std::string(60, 'x') + "   g   user=u\n");
}

TEST(PerfmarkerWriter, AppendsToExistingContent) {
    std::string out = "prefix\n";
    appendThreadHeader(out, 4711, 2);
    appendMarkerLine(out, MarkerKind::Begin, 1, "a", "g");
    appendMarkerLine(out, MarkerKind::End, 2);
    EXPECT_EQ(out, "prefix\n4711\n2\nclBeginPerfMarker   a" + spaces(49) + "1" + spaces(19) +
                       "   g\nclEndPerfMarker     2" + spaces(19) + "\n");
}

TEST(PerfmarkerWriter, ThreadHeader) {
    std::string out;
    appendThreadHeader(out, UINT64_MAX, 0);
    EXPECT_EQ(out, "18446744073709551615\n0\n");
}

TEST(PerfmarkerWriter, ReproducesTheSpecExampleFixture) {
    std::string out(kPerfmarkerSectionLine);
    out += '\n';
    appendThreadHeader(out, 4711, 4);
    appendMarkerLine(out, MarkerKind::Begin, 4035402100000, "Frame 42", "Render");
    appendMarkerLine(out, MarkerKind::Begin, 4035402100512, "Upload");
    appendMarkerLine(out, MarkerKind::End, 4035402133001);
    appendMarkerLine(out, MarkerKind::EndEx, 4035402500000, "Frame42Done", "Render");
    EXPECT_EQ(out, readBytes(fixturePath("spec_example.amdtperfmarker")));
}

// ---- escaping ------------------------------------------------------------------------------

TEST(PerfmarkerEscape, WhitespaceControlAndAmpersand) {
    EXPECT_EQ(escaped("a b"), "a&nbsp;b");
    EXPECT_EQ(escaped("a\tb\nc\rd"), "a&#9;b&#10;c&#13;d");
    EXPECT_EQ(escaped(std::string("\0\x1f\x7f", 3)), "&#0;&#31;&#127;");
    EXPECT_EQ(escaped("R&D"), "R&amp;D");
    EXPECT_EQ(escaped(""), "&empty;");
    EXPECT_EQ(escaped("&empty;"), "&amp;empty;");
}

TEST(PerfmarkerEscape, OtherBytesPassUnchanged) {
    EXPECT_EQ(escaped("a,b#c<d>e@f;g"), "a,b#c<d>e@f;g");
    EXPECT_EQ(escaped("\xc3\xa9t\xc3\xa9"), "\xc3\xa9t\xc3\xa9");       // UTF-8
    EXPECT_EQ(escaped("\xff\xc3(\x80"), "\xff\xc3(\x80");               // invalid UTF-8
}

TEST(PerfmarkerEscape, EveryByteRoundTripsAndNoWhitespaceSurvives) {
    std::string all;
    for (int c = 0; c < 256; ++c) {
        const std::string one(1, static_cast<char>(c));
        all += one;
        EXPECT_EQ(unescapeToken(escaped(one)), one) << "byte " << c;
    }
    const std::string token = escaped(all);
    EXPECT_EQ(token.find_first_of(std::string(" \t\r\n\v\f\0", 7)), std::string::npos);
    EXPECT_EQ(unescapeToken(token), all);
}

TEST(PerfmarkerEscape, RandomStringsRoundTrip) {
    std::mt19937 random(12345);
    const std::string alphabet = std::string(" &;#\t\n\0\x7f\xff\xc3", 10) + "abcnbspampempty";
    for (int i = 0; i < 2000; ++i) {
        std::string raw(random() % 20, ' ');
        for (char& c : raw) c = alphabet[random() % alphabet.size()];
        EXPECT_EQ(unescapeToken(escaped(raw)), raw);
    }
}

TEST(PerfmarkerEscape, OneMegabyteName) {
    std::string name(1 << 20, 'x');
    for (size_t i = 0; i < name.size(); i += 1000) name[i] = ' ';
    const std::string token = escaped(name);
    EXPECT_EQ(token.find(' '), std::string::npos);
    EXPECT_EQ(unescapeToken(token), name);
}

// ---- unescaping ----------------------------------------------------------------------------

TEST(PerfmarkerUnescape, EntitiesOfTheOriginalWriters) {
    EXPECT_EQ(unescapeToken("a&nbsp;b&amp;c&comma;d&#35;e&lt;f&gt;g&#64;h"), "a b&c,d#e<f>g@h");
}

TEST(PerfmarkerUnescape, DecimalEntities) {
    EXPECT_EQ(unescapeToken("&#9;&#0;&#127;"), std::string("\t\0\x7f", 3));
    EXPECT_EQ(unescapeToken("&#200;"), "\xc8");                 // below 256: that byte
    EXPECT_EQ(unescapeToken("&#8364;"), "\xe2\x82\xac");        // U+20AC
    EXPECT_EQ(unescapeToken("&#128512;"), "\xf0\x9f\x98\x80");  // U+1F600
    EXPECT_EQ(unescapeToken("&#1114111;"), "\xf4\x8f\xbf\xbf"); // U+10FFFF
    EXPECT_EQ(unescapeToken("&#0065;"), "A");
}

TEST(PerfmarkerUnescape, InvalidOrUnknownEntitiesStayVerbatim) {
    for (const char* text : {"&#55296;", "&#1114112;", "&#99999999999;", "&#;", "&#x41;", "&#-1;",
                             "&foo;", "&NBSP;", "a&b", "&", "&amp", "x&empty;", "&empty;x",
                             "&&&;;", "&#12345678901234567890;"}) {
        EXPECT_EQ(unescapeToken(text), text);
    }
}

TEST(PerfmarkerUnescape, AmpersandBeforeAnEntity) {
    EXPECT_EQ(unescapeToken("&&amp;"), "&&");
    EXPECT_EQ(unescapeToken("&foo&nbsp;"), "&foo ");
}

TEST(PerfmarkerUnescape, WholeTokenEmpty) {
    EXPECT_EQ(unescapeToken("&empty;"), "");
    std::string out = "keep";
    appendUnescapedToken(out, "&empty;");
    EXPECT_EQ(out, "keep");
}

// ---- section lines -------------------------------------------------------------------------

TEST(PerfmarkerSectionLine, CurrentAndLegacySpellings) {
    for (const char* text : {"=====Perfmarker Output=====", "=====OpenCL Perfmarker Output=====",
                             "=====CodeXL Perfmarker Output=====",
                             "=====AMD Perfmarker Output=====",
                             "=====AMD OpenCL Perfmarker Output=====",
                             "=====AMD CodeXL Perfmarker Output=====",
                             "  =====Perfmarker Output=====\r"}) {
        EXPECT_TRUE(isPerfmarkerSectionLine(text)) << text;
    }
}

TEST(PerfmarkerSectionLine, OtherLines) {
    for (const char* text : {"=====ocl API Trace Output=====", "=====Perfmarker Output====",
                             "====Perfmarker Output=====", "Perfmarker Output",
                             "=====perfmarker output=====", "=====AMDPerfmarker Output=====",
                             "=====AMD AMD Perfmarker Output=====", "==========", "", "====="}) {
        EXPECT_FALSE(isPerfmarkerSectionLine(text)) << text;
    }
}

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
    EXPECT_EQ(m[3].group, "Render Pass");
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
    const Marker withExtras = parseOne("clEndPerfMarkerEx 1 n my old group user=x&nbsp;y");
    EXPECT_EQ(withExtras.group, "my old group");
    EXPECT_EQ(withExtras.userString, "x y");
}

TEST(PerfmarkerReader, OldEndExWithSpacesInTheNameIsLossyButAccepted) {
    // The original writer did not escape EndEx names; the split is ambiguous and we keep the
    // first token as the name, like the original reader.
    const Marker marker = parseOne("clEndPerfMarkerEx   9   Frame 42 Done   Render");
    EXPECT_EQ(marker.name, "Frame");
    EXPECT_EQ(marker.group, "42 Done Render");
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
