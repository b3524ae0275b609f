// Unit tests of the Perfmarker section writer (src/atp/format/perfmarker_section.h): the exact
// bytes of marker lines, escaping and unescaping, and section lines. Helpers are in
// perfmarker_section_support.h.
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "perfmarker_section_support.h"

namespace perfmarker::atp {
namespace {

using namespace section_test;

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
    EXPECT_EQ(line(MarkerKind::Begin, 7, name, "G"), "clBeginPerfMarker   " + name + "   7   G\n");
}

TEST(PerfmarkerWriter, BeginLongFormIsChosenOnTheEscapedLength) {
    const std::string name = std::string(44, 'n') + " ";  // 45 raw bytes, 50 escaped
    EXPECT_EQ(line(MarkerKind::Begin, 123, name, "G"),
              "clBeginPerfMarker   " + std::string(44, 'n') + "&nbsp;   123   G\n");
}

TEST(PerfmarkerWriter, EndPadsTheTimestampWithTrailingSpaces) {
    EXPECT_EQ(line(MarkerKind::End, 4035402133001),
              "clEndPerfMarker" + spaces(5) + "4035402133001" + spaces(7) + "\n");
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

// ---- writer: the common lines written in place ----------------------------------------------

// A Begin line whose escaped name is shorter than its field, built from the parts.
std::string paddedBegin(uint64_t ts, std::string_view name, std::string_view group) {
    const std::string escapedName = escaped(name);
    const std::string digits = std::to_string(ts);
    return "clBeginPerfMarker   " + escapedName + spaces(50 - escapedName.size()) + digits +
           spaces(20 - digits.size()) + "   " + escaped(group.empty() ? "Default" : group) + "\n";
}

// What a new CommonLineWriter writes, or "(not common)".
std::string common(MarkerKind kind, uint64_t ts, std::string_view name = {},
                   std::string_view group = {}, std::string_view user = {}) {
    std::string room(kMarkerLineRoom, '?');
    CommonLineWriter writer;
    const char* end = writer.put(room.data(), kind, ts, name, group, user);
    if (end == nullptr) return "(not common)";
    EXPECT_LE(end - room.data(), static_cast<ptrdiff_t>(kMarkerLineRoom));
    return room.substr(0, static_cast<size_t>(end - room.data()));
}

TEST(PerfmarkerWriter, CommonLinesAreTheSameBytesInPlace) {
    EXPECT_EQ(common(MarkerKind::End, UINT64_MAX), line(MarkerKind::End, UINT64_MAX));
    EXPECT_EQ(common(MarkerKind::End, 0, "n", "g", "u"), line(MarkerKind::End, 0));
    EXPECT_EQ(common(MarkerKind::Begin, 4035402100000, "Upload"),
              line(MarkerKind::Begin, 4035402100000, "Upload"));
    EXPECT_EQ(common(MarkerKind::Begin, UINT64_MAX, std::string(49, 'n'), std::string(66, 'g')),
              paddedBegin(UINT64_MAX, std::string(49, 'n'), std::string(66, 'g')));
    // Bytes from 0x80 up and every printable byte but '&' pass unescaped, in words and tails.
    std::string printable;
    for (int c = 0x21; c <= 0xff; ++c) {
        if (c != '&' && c != 0x7f) printable.push_back(static_cast<char>(c));
    }
    for (size_t at = 0; at + 49 <= printable.size(); at += 7) {
        for (size_t size = 1; size <= 49; ++size) {
            const std::string name = printable.substr(at, size);
            const std::string group = printable.substr(printable.size() - size);
            EXPECT_EQ(common(MarkerKind::Begin, at, name, group), paddedBegin(at, name, group));
        }
    }
}

// One thread's lines through one writer (it keeps the leading digits of the timestamp before,
// and the last Begin line): the same bytes as each line alone, over timestamps that step across
// the kept digits, up and down.
TEST(PerfmarkerWriter, AThreadsLinesInPlaceKeepNoStaleDigits) {
    CommonLineWriter writer;
    std::string room(kMarkerLineRoom, '?');
    uint64_t ts = 99999990;
    for (int i = 0; i < 3000; ++i) {
        ts += (i % 100 == 99) ? 99999999977 : (i % 100 == 49) ? 0 - 99999999970 : 7;
        const bool begin = i % 2 == 0;
        const char* end = writer.put(room.data(), begin ? MarkerKind::Begin : MarkerKind::End, ts,
                                     "Draw", begin ? "Render" : "");
        ASSERT_NE(end, nullptr);
        ASSERT_EQ(room.substr(0, static_cast<size_t>(end - room.data())),
                  begin ? line(MarkerKind::Begin, ts, "Draw", "Render") : line(MarkerKind::End, ts))
            << i;
    }
}

// A Begin line is copied from the one before only when its name and group are the same bytes:
// names and groups that differ in size, in one byte (also in the same buffer, rewritten as a
// fragment reader's buffer is between blocks), an empty group against "Default", a user string,
// and uncommon lines between them; timestamps of 13 digits and of 1 or 2 in turn.
TEST(PerfmarkerWriter, ABeginLineIsCopiedOnlyForTheSameNameAndGroup) {
    struct Step {
        MarkerKind kind;
        std::string name, group, user;
    };
    const std::vector<Step> steps = {
        {MarkerKind::Begin, "Draw", "Render", ""},
        {MarkerKind::Begin, "Draw", "Render", ""},
        {MarkerKind::Begin, "Drew", "Render", ""},
        {MarkerKind::Begin, "Drew", "Rendex", ""},
        {MarkerKind::Begin, "Drew", "Rendexx", ""},
        {MarkerKind::Begin, "Drewx", "Rendexx", ""},
        {MarkerKind::Begin, "Drewx", "", ""},
        {MarkerKind::Begin, "Drewx", "Default", ""},
        {MarkerKind::Begin, "Drewx", "", ""},
        {MarkerKind::Begin, "Drewx", "", "u"},
        {MarkerKind::Begin, "Drewx", "", ""},
        {MarkerKind::Begin, "Dr ewx", "", ""},
        {MarkerKind::Begin, "Drewx", "", ""},
        {MarkerKind::End, "", "", ""},
        {MarkerKind::EndEx, "Drewx", "", ""},
        {MarkerKind::Begin, "Drewx", "", ""},
        {MarkerKind::Begin, std::string(49, 'n'), std::string(66, 'g'), ""},
        {MarkerKind::Begin, std::string(49, 'n'), std::string(66, 'g'), ""},
        {MarkerKind::Begin, std::string(48, 'n') + "m", std::string(66, 'g'), ""},
        {MarkerKind::Begin, std::string(49, 'n'), std::string(65, 'g') + "h", ""},
    };
    CommonLineWriter writer;
    std::string room(kMarkerLineRoom, '?');
    std::string buffer(128, '\0');  // names and groups from one place, rewritten each step
    for (size_t i = 0; i < steps.size(); ++i) {
        // Long and short timestamps in turn: a short one leaves spaces where a long one was.
        const uint64_t ts = i % 2 == 1 ? 7 + i : 4035402100000 + i * 999999937;
        const Step& s = steps[i];
        buffer.replace(0, s.name.size(), s.name);
        buffer.replace(64, s.group.size(), s.group);
        const std::string_view name(buffer.data(), s.name.size());
        const std::string_view group(buffer.data() + 64, s.group.size());
        const std::string expected = line(s.kind, ts, s.name, s.group, s.user);
        const char* end = writer.put(room.data(), s.kind, ts, name, group, s.user);
        if (end != nullptr) {
            EXPECT_EQ(room.substr(0, static_cast<size_t>(end - room.data())), expected) << i;
        } else {
            // Not common: appendMarkerLine writes it, and the writer keeps its last Begin.
            EXPECT_TRUE(s.kind == MarkerKind::EndEx || !s.user.empty() ||
                        s.name.find(' ') != std::string::npos)
                << i;
        }
    }
}

TEST(PerfmarkerWriter, OtherLinesAreNotWrittenInPlace) {
    EXPECT_EQ(common(MarkerKind::Begin, 1, "n", "g", "u"), "(not common)");
    EXPECT_EQ(common(MarkerKind::Begin, 1, "", "g"), "(not common)");
    EXPECT_EQ(common(MarkerKind::Begin, 1, std::string(50, 'n'), "g"), "(not common)");
    EXPECT_EQ(common(MarkerKind::Begin, 1, "n", std::string(67, 'g')), "(not common)");
    EXPECT_EQ(common(MarkerKind::EndEx, 1, "n", "g"), "(not common)");
    EXPECT_EQ(line(MarkerKind::Begin, 1, "n", std::string(67, 'g')),
              paddedBegin(1, "n", std::string(67, 'g')));
}

// Every byte that needs escaping, at every place of names and groups of every common length
// (the in-place writer checks 8 bytes at a time): the line is not common, and appendMarkerLine
// escapes it.
TEST(PerfmarkerWriter, EveryByteToEscapeIsFoundWhereverItIs) {
    const std::string fillers[] = {"abcdefgh", "\x80\xa0\xff\x81\xfe\xc3\xa9z"};
    for (const char special : {'\0', '\x01', '\t', '\n', ' ', '&', '\x7f'}) {
        for (const std::string& filler : fillers) {
            for (size_t size = 1; size <= 66; ++size) {
                for (size_t at = 0; at < size; ++at) {
                    std::string text;
                    while (text.size() < size) text += filler;
                    text.resize(size);
                    text[at] = special;
                    if (size < 50) {
                        EXPECT_EQ(common(MarkerKind::Begin, 9, text, "g"), "(not common)");
                        if (escaped(text).size() < 50) {
                            EXPECT_EQ(line(MarkerKind::Begin, 9, text, "g"),
                                      paddedBegin(9, text, "g"));
                        }
                    }
                    EXPECT_EQ(common(MarkerKind::Begin, 9, "n", text), "(not common)");
                    EXPECT_EQ(line(MarkerKind::Begin, 9, "n", text), paddedBegin(9, "n", text));
                }
            }
        }
    }
}

TEST(PerfmarkerWriter, UserStringIsALastToken) {
    EXPECT_EQ(line(MarkerKind::Begin, 1, "n", "", "frame 7"),
              "clBeginPerfMarker   n" + spaces(49) + "1" + spaces(19) +
                  "   Default   user=frame&nbsp;7\n");
    EXPECT_EQ(
        line(MarkerKind::EndEx, 2, std::string(60, 'x'), "g", "u"),
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
    EXPECT_EQ(escaped("\xc3\xa9t\xc3\xa9"), "\xc3\xa9t\xc3\xa9");  // UTF-8
    EXPECT_EQ(escaped("\xff\xc3(\x80"), "\xff\xc3(\x80");          // invalid UTF-8
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
    EXPECT_EQ(unescapeToken("&#200;"), "\xc8");                  // below 256: that byte
    EXPECT_EQ(unescapeToken("&#8364;"), "\xe2\x82\xac");         // U+20AC
    EXPECT_EQ(unescapeToken("&#128512;"), "\xf0\x9f\x98\x80");   // U+1F600
    EXPECT_EQ(unescapeToken("&#1114111;"), "\xf4\x8f\xbf\xbf");  // U+10FFFF
    EXPECT_EQ(unescapeToken("&#0065;"), "A");
}

TEST(PerfmarkerUnescape, InvalidOrUnknownEntitiesStayVerbatim) {
    for (const char* text :
         {"&#55296;", "&#1114112;", "&#99999999999;", "&#;", "&#x41;", "&#-1;", "&foo;", "&NBSP;",
          "a&b", "&", "&amp", "x&empty;", "&empty;x", "&&&;;", "&#12345678901234567890;"}) {
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
    for (const char* text :
         {"=====Perfmarker Output=====", "=====OpenCL Perfmarker Output=====",
          "=====CodeXL Perfmarker Output=====", "=====AMD Perfmarker Output=====",
          "=====AMD OpenCL Perfmarker Output=====", "=====AMD CodeXL Perfmarker Output=====",
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

}  // namespace
}  // namespace perfmarker::atp
