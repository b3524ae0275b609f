// The byte scanning of the streaming reader (src/atp/read/scan.h) against the plain
// definitions it replaces: parseApiLine() and splitFields() of the older reader, std::from_chars,
// memchr. Random lines of many lengths cross the 16- and 64-byte steps at every offset.
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "api_line_reference.h"
#include "atp/format/timestamp_fields.h"
#include "atp/read/part_support.h"

namespace perfmarker::atp {
namespace {

namespace scan = detail::scan;

std::string randomText(std::mt19937& rng, const std::string& alphabet, size_t length) {
    std::string text;
    for (size_t i = 0; i < length; ++i) text.push_back(alphabet[rng() % alphabet.size()]);
    return text;
}

// splitApiLineIn() (with `Block`s, or the wide ones) of `line` followed by '\n' and `after`
// (the next lines of the buffer): the same as parseApiText() and splitParams() give `reference`
// for `line`, or null where it may leave the line to the caller.
void expectSameApiLineInBuffer(const std::string& line, const std::string& after, bool ok,
                               const scan::ApiText& reference,
                               const std::vector<std::string_view>& params, bool wide) {
    const std::string buffer = line + "\n" + after;  // exactly these bytes, for ASan
    const char* p = buffer.data();
    scan::ApiText fast;
    std::vector<std::string_view> fastParams = {"stale"};
    fastParams.clear();
    const char* got = nullptr;
#if PERFMARKER_SCAN_WIDE
    got = wide ? scan::splitApiLineWide(p, p + buffer.size(), fast, fastParams)
               : scan::splitApiLineIn<scan::Load64>(p, p + buffer.size(), fast, fastParams);
#else
    ASSERT_FALSE(wide);
    got = scan::splitApiLineIn<scan::Load64>(p, p + buffer.size(), fast, fastParams);
#endif
    const size_t readable = std::min<size_t>(buffer.size(), scan::kApiLineBytes) / 64 * 64;
    const size_t open = scan::findSpaced(line.data(), line.size(), '(');
    const bool mustSplit =
        ok && line.size() < readable && scan::plainStart(line.front()) && line.size() >= 4 &&
        line.substr(line.size() - 2) == " )" &&
        std::none_of(line.begin(), line.end(),
                     [](char c) { return static_cast<unsigned char>(c) < 0x20; }) &&
        open + 1 < 63;
    if (got == nullptr) {
        EXPECT_FALSE(mustSplit) << "wide " << wide << ": " << detail::excerpt(line);
        return;
    }
    ASSERT_TRUE(ok) << "wide " << wide << ": " << detail::excerpt(line);
    EXPECT_EQ(got, p + line.size()) << detail::excerpt(line);
    EXPECT_EQ(fast.returnValue, reference.returnValue) << detail::excerpt(line);
    EXPECT_EQ(fast.name, reference.name) << detail::excerpt(line);
    EXPECT_EQ(fast.comment, reference.comment) << detail::excerpt(line);
    EXPECT_EQ(fast.params, reference.params) << detail::excerpt(line);
    EXPECT_EQ(fast.line, reference.line) << detail::excerpt(line);
    EXPECT_EQ(fastParams, params) << "wide " << wide << ": " << detail::excerpt(line);
}

// parseApiText() and splitParams() give what parseApiLine() gives, on `line` as its own buffer
// (nothing around it may be read); so does splitApiLineIn(), in a buffer with more lines after
// it. Returns whether the line is an API line.
bool expectSameApiLine(const std::string& line, const std::string& after = std::string(70, 'z')) {
    const std::string own(line);  // exactly the line's bytes, so ASan sees any read beyond
    reference::ApiLine expected;
    std::string error;
    const bool ok = reference::parseApiLine(own, expected, error);
    scan::ApiText fast;
    EXPECT_EQ(scan::parseApiText(own, fast), ok) << detail::excerpt(own);
    if (!ok) {
        for (const bool wide : {false, true}) {
            if (own.empty() || (wide && !scan::cpuHasWideBlocks())) continue;
            expectSameApiLineInBuffer(own, after, ok, fast, {}, wide);
        }
        return false;
    }
    EXPECT_EQ(fast.returnValue, expected.returnValue) << detail::excerpt(own);
    EXPECT_EQ(fast.name, expected.name) << detail::excerpt(own);
    EXPECT_EQ(fast.comment, expected.comment) << detail::excerpt(own);
    std::vector<std::string_view> params = {"stale"};
    scan::splitParams(fast.params, params, fast.line);
    EXPECT_EQ(params, expected.params) << detail::excerpt(own);
    if (!own.empty()) {
        for (const bool wide : {false, true}) {
            if (wide && !scan::cpuHasWideBlocks()) continue;
            expectSameApiLineInBuffer(own, after, ok, fast, params, wide);
        }
    }
    return true;
}

TEST(TraceParserScan, ApiLinesOfTheFixtureShapes) {
    for (const char* line : {"CL_SUCCESS = clGetPlatformIDs ( 0;NULL;[1] )",
                             "0x2071c40 = clCreateContext ( "
                             "[{CL_CONTEXT_PLATFORM,139759432704448,NULL}];1;[0x1f3a6b0];"
                             "NULL;NULL;[CL_SUCCESS] )",
                             "CL_SUCCESS = clGetEventInfo ( "
                             "0x2233aa0;CL_EVENT_COMMAND_EXECUTION_STATUS;4;[CL_COMPLETE];"
                             "NULL /*37 consecutive calls*/ )",
                             "CL_SUCCESS = clBuildProgram ( 0x21aa300;1;[0x1f3a6b0];\"-O3 -D "
                             "A=\\\"x;y\\\"\";NULL;NULL )",
                             "hsa_init (  )",
                             "hsa_shut_down ( )",
                             "a ( )",
                             "x = y ( /*only*/ )",
                             "CL_SUCCESS = clFinish ( 0x20f4a30 ) ",
                             "\tCL_SUCCESS = clFinish ( 0x20f4a30 )\r",
                             "CL_SUCCESS = clFinish ( 0x20f4a30 /*unterminated )",
                             " = f ( 1 )",
                             "r =  f ( 1 )",
                             "r = f g ( 1 )",
                             "r = = f ( 1 )",
                             "r=f ( 1 )",
                             "f(1)",
                             "f ( 1)",
                             "f ( 1 ) x",
                             "r = f ( a;(b;c);[d;e];{f;g};]h;i )",
                             "r = f ( \"a\\\";b\";c )",
                             "r = f ( ;; )",
                             "r = f ( a /* b */ c */ )",
                             "r = f ( \"/*\" )",
                             "r = f ( x /*\"*/ )",
                             "r = f ( \"q /*not*/\" /*c*/ )",
                             "r = f ( \"q\" /*c*/ )",
                             "r = f ( a/*b /*c*/ )",
                             "r = f ( a/*b*/ )",
                             "r = f ( \" /*c*/ )",
                             "f( ( 1 )",
                             "r = f(x ( 1 )",
                             "r = f( x ( 1 )",
                             "f (x ( 1 )"}) {
        expectSameApiLine(line);
    }
}

TEST(TraceParserScan, RandomApiLines) {
    std::mt19937 rng(11);
    // The bytes that steer the parse, with plain ones between them.
    const std::string alphabet = "aaaaaaaa  ;;[]{}()\"\\/*=\t\r|x0";
    int accepted = 0;
    for (int round = 0; round < 20000; ++round) {
        std::string line;
        switch (round % 4) {
            case 0:  // a well-formed frame around random parameters
                line = randomText(rng, "abcRET_0x", rng() % 20) + " = " +
                       randomText(rng, "abcdNAME_", 1 + rng() % 70) + " ( " +
                       randomText(rng, alphabet, rng() % 200) + " )";
                break;
            case 1:  // a void API (HSA)
                line = randomText(rng, "hsa_init", 1 + rng() % 30) + " ( " +
                       randomText(rng, alphabet, rng() % 90) + " )";
                break;
            case 2:  // a head longer than 64 bytes
                line = randomText(rng, "RETab= ", 40 + rng() % 60) + " = " +
                       randomText(rng, "name ", 20 + rng() % 40) + " ( " +
                       randomText(rng, alphabet, rng() % 30) + " )";
                break;
            default:
                line = randomText(rng, alphabet + " ( ) = ", rng() % 150);
                break;
        }
        // (The next lines of the buffer: random bytes, '\n' among them, of random length.)
        accepted += expectSameApiLine(line, randomText(rng, alphabet + "\n", rng() % 200)) ? 1 : 0;
        if (HasFailure()) return;
    }
    // Both outcomes are exercised, and often.
    EXPECT_GT(accepted, 5000);
    EXPECT_LT(accepted, 15000);
}

TEST(TraceParserScan, TokensAcrossBlocks) {
    std::mt19937 rng(5);
    const std::vector<std::string> alphabets = {"        \t\r\nab0\x01", "a ", " ", "a"};
    std::vector<std::string_view> fast, reference;
    for (int round = 0; round < 20000; ++round) {
        const std::string& alphabet = alphabets[round % alphabets.size()];
        const std::string line = randomText(rng, alphabet, rng() % 300);
        scan::splitTokens(line, fast);
        splitFields(line, reference);
        ASSERT_EQ(fast, reference) << detail::excerpt(line);
    }
    scan::Fields fields;  // reused, as the parts do, from long lines to short ones
    for (size_t length : {300u, 64u, 128u, 63u, 65u, 1u, 0u, 17u}) {
        const std::string line = randomText(rng, "ab  ", length);
        scan::splitTokens(line, fields);
        splitFields(line, reference);
        ASSERT_EQ(std::vector<std::string_view>(fields.begin(), fields.end()), reference);
    }
}

// splitLineTokens(): the first line of a buffer (lines of 0 to 1100 bytes, then more lines),
// found and split in one pass, as findByte() and splitFields() find and split it. It may leave a
// line to the caller only when the line is too long or its '\n' is not in whole 64-byte blocks
// of the buffer.
TEST(TraceParserScan, LineTokensWithTheirEnd) {
    std::mt19937 rng(21);
    const std::vector<std::string> alphabets = {"        \t\rab0\x01", "a  ", " ", "a",
                                                "0123456789 clFoo"};
    scan::Fields fields;
    std::vector<std::string_view> reference;
    int split = 0;
    int left = 0;
    for (int round = 0; round < 20000; ++round) {
        const std::string& alphabet = alphabets[round % alphabets.size()];
        const size_t length = round % 7 == 0 ? 1000 + rng() % 100 : rng() % 300;
        std::string buffer = "x" + randomText(rng, alphabet, length);
        if (round % 5 != 0) buffer += "\n" + randomText(rng, "ab \n", rng() % 200);
        const std::string own(buffer);  // exactly these bytes, so ASan sees any read beyond
        const char* p = own.data();
        const char* end = p + own.size();
        const char* got = scan::splitLineTokens(p, end, fields);
#if PERFMARKER_SCAN_WIDE
        if (scan::cpuHasWideBlocks()) {  // the wide blocks split it alike
            scan::Fields wideFields;
            const char* wideGot = scan::splitLineTokensWide(p, end, wideFields);
            ASSERT_EQ(wideGot, got) << detail::excerpt(own);
            if (got != nullptr) {
                ASSERT_EQ(std::vector<std::string_view>(wideFields.begin(), wideFields.end()),
                          std::vector<std::string_view>(fields.begin(), fields.end()));
            }
        }
#endif
        const char* nl = std::find(p, end, '\n');
        const size_t readable = std::min<size_t>(own.size(), scan::kLineTokensBytes);
        const bool mustSplit = nl != end && static_cast<size_t>(nl - p) < readable / 64 * 64;
        if (got == nullptr) {
            ASSERT_FALSE(mustSplit) << detail::excerpt(own);
            ++left;
            continue;
        }
        ++split;
        ASSERT_EQ(got, nl) << detail::excerpt(own);
        const std::string_view line(p, static_cast<size_t>(nl - p));
        splitFields(line, reference);
        ASSERT_EQ(std::vector<std::string_view>(fields.begin(), fields.end()), reference)
            << detail::excerpt(own);
        // The line trimmed ends with its last field.
        const std::string_view last = reference.back();
        EXPECT_EQ(detail::trimText(line).size(),
                  static_cast<size_t>(last.data() + last.size() - p));
    }
    EXPECT_GT(split, 10000);
    EXPECT_GT(left, 2000);
}

TEST(TraceParserScan, NumbersAsFromChars) {
    std::mt19937 rng(3);
    std::vector<std::string> cases = {"",
                                      "0",
                                      "00000000",
                                      "0000000000000000001",
                                      "4035211901000",
                                      "18446744073709551615",
                                      "18446744073709551616",
                                      "99999999999999999999",
                                      "00000000000000000000018",
                                      "12345678",
                                      "123456789",
                                      "1234567890123456",
                                      "12345678901234567",
                                      "-1",
                                      "+1",
                                      "1 ",
                                      " 1",
                                      "0x10",
                                      "12345678:",
                                      "1234567/",
                                      "9999999999999999999"};
    for (int round = 0; round < 20000; ++round) {
        std::string digits = randomText(rng, "0123456789", rng() % 24);
        if (!digits.empty() && round % 3 == 0) {
            digits[rng() % digits.size()] = "/:a \x80-"[rng() % 6];
        }
        cases.push_back(digits);
    }
    for (const std::string& text : cases) {
        const std::string own(text);
        uint64_t expected = 0, fast = 0;
        const auto r = std::from_chars(own.data(), own.data() + own.size(), expected);
        const bool ok = r.ec == std::errc() && r.ptr == own.data() + own.size();
        ASSERT_EQ(scan::parseU64(own, fast), ok) << own;
        if (ok) {
            ASSERT_EQ(fast, expected) << own;
        }
        // Inside a line, after 0 to 19 other bytes (digits among them), which must not count.
        for (const size_t before :
             {size_t{0}, size_t{3}, 16 - std::min<size_t>(16, own.size()), size_t{19}}) {
            const std::string line = randomText(rng, "0123456789 x\x80", before) + own;
            uint64_t inLine = 0;
            ASSERT_EQ(scan::parseU64In(std::string_view(line).substr(before), line.data(), inLine),
                      ok)
                << line;
            if (ok) {
                ASSERT_EQ(inLine, expected) << line;
            }
        }
        int expectedInt = 0, fastInt = 0;
        const auto ri = std::from_chars(own.data(), own.data() + own.size(), expectedInt);
        const bool okInt = ri.ec == std::errc() && ri.ptr == own.data() + own.size();
        ASSERT_EQ(scan::parseInt(own, fastInt), okInt) << own;
        if (okInt) {
            ASSERT_EQ(fastInt, expectedInt) << own;
        }
    }
}

TEST(TraceParserScan, ByteSearchAndTrimming) {
    std::mt19937 rng(9);
    for (int round = 0; round < 5000; ++round) {
        const std::string text =
            randomText(rng, "aaaaaaaaaaaaaaaaaaaaaaaaaaaa\n \t\r", rng() % 200);
        const char* end = text.data() + text.size();
        const void* expected = std::memchr(text.data(), '\n', text.size());
        EXPECT_EQ(scan::findByte(text.data(), end, '\n'),
                  expected != nullptr ? static_cast<const char*>(expected) : end);
        // A range within the text: the bytes before and after it (read by the search, which
        // loads 16 bytes at a time) never count.
        const size_t from = text.empty() ? 0 : rng() % (text.size() + 1);
        const size_t to = from + rng() % (text.size() - from + 1);
        const void* inRange = std::memchr(text.data() + from, '\n', to - from);
        EXPECT_EQ(scan::findByte(text.data() + from, text.data() + to, '\n'),
                  inRange != nullptr ? static_cast<const char*>(inRange) : text.data() + to)
            << from << ".." << to << " of " << text.size();
        // Trimming a byte at a time, as the reference: the text, and the text with column
        // padding of up to 40 blanks after it (trimmed 8 bytes at a time).
        const auto trimmedByBytes = [](std::string_view s) {
            while (!s.empty() && std::strchr(" \t\r", s.front()) != nullptr) s.remove_prefix(1);
            while (!s.empty() && std::strchr(" \t\r", s.back()) != nullptr) s.remove_suffix(1);
            return s;
        };
        EXPECT_EQ(detail::trimText(text), trimmedByBytes(text));
        const std::string padded = text + randomText(rng, "   \t\r", rng() % 41);
        EXPECT_EQ(detail::trimText(padded), trimmedByBytes(padded));
    }
}

// sameText() against ==: every size across its word steps, equal texts and texts that differ in
// one byte at each position (by one bit, or a byte that is equal in another word), and texts
// of different sizes. Each text is a heap buffer of exactly its size, so that ASan sees any
// load beyond it.
TEST(TraceParserScan, SameTextAsEquality) {
    std::mt19937 rng(11);
    for (size_t n = 0; n <= 70; ++n) {
        for (int round = 0; round < 20; ++round) {
            const std::string base = randomText(rng, "abcdefghijklmnopqrstuvwxyz_0123456789", n);
            const std::unique_ptr<char[]> a(new char[n + 1]);
            const std::unique_ptr<char[]> b(new char[n + 1]);
            std::memcpy(a.get(), base.data(), n);
            std::memcpy(b.get(), base.data(), n);
            const std::string_view left(a.get(), n);
            const std::string_view right(b.get(), n);
            ASSERT_TRUE(scan::sameText(left, right)) << n;
            for (size_t at = 0; at < n; ++at) {
                const char kept = b[at];
                b[at] = static_cast<char>(kept ^ (1 << (rng() % 8)));
                ASSERT_FALSE(scan::sameText(left, right)) << n << " at " << at;
                b[at] = base[(at + 8) % n];  // (the same byte where the text repeats)
                ASSERT_EQ(scan::sameText(left, right), left == right) << n << " at " << at;
                b[at] = kept;
            }
            if (n > 0) {
                EXPECT_FALSE(scan::sameText(left, right.substr(0, n - 1)));
                EXPECT_FALSE(scan::sameText(left.substr(1), right));
                EXPECT_TRUE(scan::sameText(left.substr(1), right.substr(1)));
            }
        }
    }
    EXPECT_TRUE(scan::sameText({}, {}));
    EXPECT_TRUE(scan::sameText("clEnqueueNDRangeKernel", "clEnqueueNDRangeKernel"));
    EXPECT_FALSE(scan::sameText("clEnqueueNDRangeKernel", "clEnqueueNDRangeKerne1"));
}

}  // namespace
}  // namespace perfmarker::atp
