// The streaming .atp reader with its second thread (src/atp/read/read_ahead.h): an API section
// read again ahead of its Timestamp section gives the same records, warnings and errors, in the
// same order and on the calling thread, as one read on the parsing thread; the thread stops when
// the parse ends early (an error, a listener's exception). Also the first pass that only counts
// the entry lines of an API section (scan::skipPlainLines()).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "atp/read/trace_parser.h"
#include "atp/read/read_ahead.h"
#include "atp/read/part_support.h"
#include "trace_parser_support.h"
#include "sanitizers.h"

namespace perfmarker::atp {
namespace {

using testing::readFixture;
using testing::Recorder;

constexpr uint64_t kAlways = 0;
constexpr uint64_t kNever = UINT64_MAX;

// The OpenCL blocks of ocl_vecadd.atp repeated `copies` times (thread ids made distinct, so a
// block paired with the wrong one shows), header and markers once.
std::string bigTrace(int copies) {
    const std::string text = readFixture("ocl_vecadd.atp");
    const size_t api = text.find("=====ocl API Trace Output=====\n");
    const size_t ts = text.find("=====ocl Timestamp Output=====\n");
    const size_t pm = text.find("=====Perfmarker Output=====\n");
    const size_t apiBody = text.find('\n', api) + 1;
    const size_t tsBody = text.find('\n', ts) + 1;
    const auto renumber = [](std::string body, int copy) {
        for (const char* tid : {"4711\n", "4712\n"}) {
            const size_t at = body.find(tid);
            body.replace(at, 4, std::to_string(100000 + copy * 2 + (tid[3] - '1')));
        }
        return body;
    };
    std::string out = text.substr(0, apiBody);
    for (int i = 0; i < copies; ++i) out += renumber(text.substr(apiBody, ts - apiBody), i);
    out.append(text, ts, tsBody - ts);
    for (int i = 0; i < copies; ++i) out += renumber(text.substr(tsBody, pm - tsBody), i);
    out.append(text, pm, std::string::npos);
    return out;
}

struct AheadOutcome {
    bool ok = false;
    std::string error;
    std::string log;
    std::string params;  // of every OpenCL call, each followed by ';'
    size_t calls = 0;
};

// how: 0 buffer, 1 stream, 2 file (written to a temporary file). takeLines: whether parts may
// read lines in bulk (TraceParser::setTakeLines()).
AheadOutcome parseWith(const std::string& text, uint64_t readAhead, int how, bool takeLines = true) {
    AheadOutcome o;
    Recorder r;
    TraceParser parser;
    parser.setReadAhead(readAhead);
    parser.setTakeLines(takeLines);
    parser.addListener(r);
    if (how == 0) {
        o.ok = parser.parseBuffer(text, "t.atp", o.error);
    } else if (how == 1) {
        std::istringstream in(text);
        o.ok = parser.parseStream(in, "t.atp", o.error);
    } else {
        // (One file per test and process: ctest runs the tests side by side.)
        const std::string path = ::testing::TempDir() + "/trace_parser_ahead_" +
                                 ::testing::UnitTest::GetInstance()->current_test_info()->name() +
                                 "_" + std::to_string(::getpid()) + ".atp";
        {
            std::ofstream out(path, std::ios::binary);
            out << text;
        }
        o.ok = parser.parseFile(path, o.error);
        std::remove(path.c_str());
        for (std::string* text : {&o.error, &r.log}) {  // the name the others are given
            for (size_t at = 0; (at = text->find(path, at)) != std::string::npos;) {
                text->replace(at, path.size(), "t.atp");
            }
        }
    }
    o.log = r.log;
    for (const auto& call : r.ocl) {
        for (const std::string& param : call.params) o.params.append(param).push_back(';');
    }
    o.calls = r.ocl.size() + r.hsa.size();
    return o;
}

// The scan's wide blocks (AVX-512) on or off for the life of the object, then on again where
// the processor has them.
class WideBlocks {
public:
    explicit WideBlocks(bool on) { detail::scan::setWideBlocks(on); }
    ~WideBlocks() { detail::scan::setWideBlocks(true); }
    WideBlocks(const WideBlocks&) = delete;
    WideBlocks& operator=(const WideBlocks&) = delete;
};

// Under ThreadSanitizer only the ways that start the second thread are read, with the scan's
// default blocks: the others are single-threaded code, which the plain and ASan builds read
// every way, and at ThreadSanitizer's speed they were most of its phase's time.
constexpr bool kThreadedWaysOnly = PERFMARKER_TEST_TSAN;

// The outcome of reading `text` every way, with and without the second thread, with and
// without lines read in bulk, with and without the scan's wide blocks (where the processor has
// them), is one.
AheadOutcome sameEveryWay(const std::string& text) {
    AheadOutcome plain;
    {
        const WideBlocks narrow(false);
        plain = parseWith(text, kNever, 0, false);
    }
    for (const bool wide : {false, true}) {
        if (wide && !detail::scan::cpuHasWideBlocks()) continue;
        if (kThreadedWaysOnly && wide != detail::scan::cpuHasWideBlocks()) continue;
        const WideBlocks blocks(wide);
        for (int how = 0; how < 3; ++how) {
            for (const uint64_t ahead : {kAlways, kNever}) {
                if (kThreadedWaysOnly && ahead == kNever) continue;
                for (const bool takeLines : {true, false}) {
                    if (!wide && how == 0 && ahead == kNever && !takeLines) continue;  // (plain)
                    SCOPED_TRACE("how " + std::to_string(how) + ", ahead " +
                                 std::to_string(ahead == 0) + ", in bulk " +
                                 std::to_string(takeLines) + ", wide " + std::to_string(wide));
                    const AheadOutcome o = parseWith(text, ahead, how, takeLines);
                    EXPECT_EQ(o.ok, plain.ok);
                    EXPECT_EQ(o.error, plain.error);
                    EXPECT_TRUE(o.log == plain.log);  // (not printed: megabytes)
                    EXPECT_TRUE(o.params == plain.params);
                }
            }
        }
    }
    return plain;
}

TEST(TraceParserAhead, FixturesReadTheSame) {
    for (const char* fixture :
         {"ocl_vecadd.atp", "hsa_reduce.atp", "ocl_stack.atp", "legacy_codexl.atp",
          "hsa_kernels_only.atp", "bad_count.atp", "bad_name_mismatch.atp",
          "bad_timestamp_field.atp", "bad_truncated.atp"}) {
        SCOPED_TRACE(fixture);
        sameEveryWay(readFixture(fixture));
    }
}

// Thousands of lines: many batches of the reading thread, several buffers of the first pass.
TEST(TraceParserAhead, LargeTraceReadsTheSame) {
    const std::string text = bigTrace(600);
    ASSERT_GT(text.size(), TraceParser::kReadAheadBytes);  // the default reads it ahead too
    const AheadOutcome o = sameEveryWay(text);
    EXPECT_TRUE(o.ok) << o.error;
    EXPECT_EQ(o.calls, 600u * 25);
    const AheadOutcome byDefault = parseWith(text, TraceParser::kReadAheadBytes, 2);
    EXPECT_EQ(byDefault.log, o.log);
}

// Blank lines, CRLF, indented lines and a line longer than a batch inside the API blocks: the
// first pass passes over none of them unseen, the reading thread keeps them all.
TEST(TraceParserAhead, OddLinesInTheApiSection) {
    std::string text = bigTrace(400);
    const std::string longParam(detail::ReadAhead::kBatchBytes + 1000, 'x');
    const std::string marker = "CL_SUCCESS = clFinish ( 0x20f4a30 )\n";
    size_t at = text.find(marker);
    text.insert(at + marker.size(), "\n   \n\t\r\n");
    at = text.find(marker, text.size() / 8);
    text.replace(at, marker.size(), "   CL_SUCCESS = clFinish ( 0x20f4a30 )\r\n");
    at = text.find(marker, text.size() / 5);
    text.replace(at, marker.size(), "CL_SUCCESS = clFinish ( 0x20f4a30;\"" + longParam + "\" )\n");
    const AheadOutcome o = sameEveryWay(text);
    EXPECT_TRUE(o.ok) << o.error;
    EXPECT_NE(o.log.find("p2"), std::string::npos);
}

// Timestamp lines that the bulk path (AtpPart::takeLines()) leaves to the line-by-line one, or
// splits itself, in random places: blank and indented lines, CRLF, tabs, padding, lines longer
// than kLineTokensBytes, ends at every offset of a 64-byte block, and lines cut across the
// file's 1 MiB buffers.
TEST(TraceParserAhead, OddLinesInTheTimestampSection) {
    std::mt19937 rng(17);
    const std::string base = bigTrace(200);
    const size_t tsStart = base.find("=====ocl Timestamp Output=====");
    const size_t tsEnd = base.find("=====Perfmarker Output=====");
    for (int round = 0; round < 6; ++round) {
        std::string text = base.substr(0, tsStart);
        std::istringstream lines(base.substr(tsStart, tsEnd - tsStart));
        std::string line;
        bool first = true;
        while (std::getline(lines, line)) {
            const bool entry = line.size() > 20;
            if (first || !entry || rng() % 4 != 0) {
                text += line + "\n";
                first = false;
                continue;
            }
            switch (rng() % 7) {
                case 0: text += line + "\n\n   \n"; break;
                case 1: text += "  " + line + "\n"; break;
                case 2: text += line + "\r\n"; break;
                case 3: text += line.substr(0, 4) + "\t" + line.substr(5) + "\t\n"; break;
                case 4: text += line + std::string(rng() % 1200, ' ') + "\n"; break;
                case 5: text += line.substr(0, line.find_last_not_of(' ') + 1) + "\n"; break;
                default: text += line + std::string(rng() % 64, ' ') + "\n"; break;
            }
        }
        text += base.substr(tsEnd);
        SCOPED_TRACE("round " + std::to_string(round));
        const AheadOutcome o = sameEveryWay(text);
        EXPECT_TRUE(o.ok) << o.error;
        EXPECT_EQ(o.calls, 200u * 25);
    }
}

// Lines longer than the buffer a file is read in (1 MiB), one at the start of the API section
// and one deep inside it: the reading thread holds the buffers its lines lie in, so the file
// source moves on to a larger buffer instead of growing one that is held (its lines are kept
// as they were, never copied), and the records are the same every way.
TEST(TraceParserAhead, LinesLongerThanTheFileBuffer) {
    std::string text = bigTrace(300);
    const std::string marker = "CL_SUCCESS = clFinish ( 0x20f4a30 )\n";
    const std::string first = "CL_SUCCESS = clGetPlatformIDs ( 0;NULL;[1] )\n";
    size_t at = text.find(first);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, first.size(),
                 "CL_SUCCESS = clGetPlatformIDs ( 0;\"" + std::string(size_t{3} << 20, 'a') +
                     "\";[1] )\n");
    at = text.find(marker, text.size() / 6);
    ASSERT_NE(at, std::string::npos);
    text.replace(at, marker.size(),
                 "CL_SUCCESS = clFinish ( 0x20f4a30;" + std::string(size_t{5} << 19, 'b') + " )\n");
    const AheadOutcome o = sameEveryWay(text);
    EXPECT_TRUE(o.ok) << o.error;
    EXPECT_EQ(o.calls, 300u * 25);
    EXPECT_NE(o.params.find(";\"" + std::string(size_t{3} << 20, 'a') + "\";"), std::string::npos);
    EXPECT_NE(o.params.find(";" + std::string(size_t{5} << 19, 'b') + ";"), std::string::npos);
}

// An API line that is not one, deep inside a large section: only the join finds it; the
// records before it have been announced, the error names its line.
TEST(TraceParserAhead, ErrorInTheMiddleOfTheApiSection) {
    std::string text = bigTrace(400);
    const std::string marker = "CL_SUCCESS = clReleaseKernel ( 0x21ff890 )\n";
    const size_t at = text.find(marker, text.size() / 6);
    text.replace(at, marker.size(), "CL_SUCCESS = clReleaseKernel 0x21ff890\n");
    const auto line = 1 + std::count(text.begin(), text.begin() + static_cast<ptrdiff_t>(at), '\n');
    const AheadOutcome o = sameEveryWay(text);
    EXPECT_FALSE(o.ok);
    EXPECT_EQ(o.error, "t.atp:" + std::to_string(line) +
                           ": expected an API line 'Ret = Name ( params )', got 'CL_SUCCESS = "
                           "clReleaseKernel 0x21ff890'");
    EXPECT_GT(o.calls, 100u);
    EXPECT_LT(o.calls, 400u * 25);
}

// A bad number in a timestamp line in the middle: the reading thread is far ahead and stops.
TEST(TraceParserAhead, ErrorInTheMiddleOfTheTimestampSection) {
    std::string text = bigTrace(400);
    const std::string field = "4035307336512";
    const size_t at = text.find(field, text.size() * 2 / 3);
    text.replace(at, field.size(), "4035307x36512");
    const AheadOutcome o = sameEveryWay(text);
    EXPECT_FALSE(o.ok);
    EXPECT_NE(o.error.find("expected the device end time (a decimal number) in field 10, got "
                           "'4035307x36512'"),
              std::string::npos)
        << o.error;
}

// A block cut short by a section line inside the API section: the first pass stops there.
TEST(TraceParserAhead, SectionLineInsideAnApiBlock) {
    std::string text = bigTrace(400);
    const std::string marker = "CL_SUCCESS = clFinish ( 0x20f4a30 )\n";
    const size_t at = text.find(marker, text.size() / 5);
    text.replace(at, marker.size(), "  =====Perfmarker Output=====\n");
    const AheadOutcome o = sameEveryWay(text);
    EXPECT_FALSE(o.ok);
    EXPECT_NE(o.error.find("lines in thread"), std::string::npos) << o.error;
}

// An API section without its Timestamp section, and one with fewer timestamp lines.
TEST(TraceParserAhead, LeniencesReadTheSame) {
    const std::string text = bigTrace(500);
    sameEveryWay(text.substr(0, text.find("=====ocl Timestamp Output=====")));
    // The last timestamp block one line short (its count line says so).
    std::string fewer = text;
    const size_t at = fewer.rfind("51   clFinish ");
    fewer.erase(at, fewer.find('\n', at) + 1 - at);
    fewer.replace(fewer.rfind("\n6\n", at), 3, "\n5\n");
    const AheadOutcome o = sameEveryWay(fewer);
    EXPECT_NE(o.log.find("without a timestamp line"), std::string::npos);
}

class StopAfter final : public TraceListener {
public:
    explicit StopAfter(size_t calls) : m_left(calls) {}
    size_t seen = 0;
    std::thread::id thread;
    void onOclApiCall(const OclApiCall&) override {
        if (seen == 0) thread = std::this_thread::get_id();
        EXPECT_EQ(std::this_thread::get_id(), thread);
        ++seen;
        if (--m_left == 0) throw std::runtime_error("enough");
    }

private:
    size_t m_left;
};

// A listener that stops the parse with an exception: the reading thread is stopped and waited
// for (it may be waiting for a free batch), and the parser reads the next input as usual.
TEST(TraceParserAhead, ListenerStopsEarly) {
    const std::string text = bigTrace(400);
    for (const size_t stopAt : {size_t{1}, size_t{3000}, size_t{400 * 25}}) {
        SCOPED_TRACE(stopAt);
        StopAfter stop(stopAt);
        TraceParser parser;
        parser.setReadAhead(kAlways);
        parser.addListener(stop);
        std::string error;
        EXPECT_THROW(parser.parseBuffer(text, "t.atp", error), std::runtime_error);
        EXPECT_EQ(stop.seen, stopAt);
        EXPECT_EQ(stop.thread, std::this_thread::get_id());

        Recorder r;
        TraceParser again;
        again.setReadAhead(kAlways);
        again.addListener(r);
        EXPECT_TRUE(again.parseBuffer(text, "t.atp", error)) << error;
        EXPECT_EQ(r.ocl.size(), 400u * 25);
    }
}

// ---- ReadAhead on its own ----------------------------------------------------------------

// Lines from a list, each one in a buffer that the next call overwrites (as a file's cursor
// does), then an optional error.
class ListCursor final : public LineCursor {
public:
    ListCursor(std::vector<std::string> lines, std::string error)
        : m_lines(std::move(lines)), m_error(std::move(error)) {}
    bool next(std::string_view& line, uint64_t& lineNumber) override {
        if (m_index == m_lines.size()) return false;
        m_buffer = m_lines[m_index++];
        line = m_buffer;
        lineNumber = 10 + m_index;
        return true;
    }
    std::string error() const override { return m_index == m_lines.size() ? m_error : ""; }

private:
    std::vector<std::string> m_lines;
    std::string m_error;
    std::string m_buffer;
    size_t m_index = 0;
};

TEST(ReadAhead, GivesTheTrimmedLinesSplitAndStopsAtTheSectionLine) {
    std::vector<std::string> lines = {"1",
                                      "",
                                      "3",
                                      "  r = f ( a;b;[c;d] )  ",
                                      "x = g ( )",
                                      "not an API line",
                                      "=====next=====",
                                      "after"};
    std::unique_ptr<LineCursor> cursor = std::make_unique<ListCursor>(lines, "");
    detail::ReadAhead ahead(cursor);
    ASSERT_TRUE(ahead.started());
    EXPECT_EQ(cursor, nullptr);
    std::vector<std::string> texts;
    const detail::ReadAhead::Line* line = nullptr;
    while ((line = ahead.next()) != nullptr) {
        texts.push_back(std::string(line->text) + "@" + std::to_string(line->number));
        if (line->text.front() == 'r') {
            ASSERT_TRUE(line->split);
            EXPECT_EQ(line->api.name, "f");
            EXPECT_EQ(line->api.returnValue, "r");
            ASSERT_EQ(line->params.size(), 3u);
            EXPECT_EQ(line->params[2], "[c;d]");
        }
        if (line->text.front() == 'x') {
            EXPECT_EQ(line->params.size(), 0u);
        }
        if (line->text.front() == 'n') {
            EXPECT_FALSE(line->split);
        }
    }
    EXPECT_EQ(texts, (std::vector<std::string>{"1@11", "3@13", "r = f ( a;b;[c;d] )@14",
                                               "x = g ( )@15", "not an API line@16"}));
    uint64_t last = 0;
    EXPECT_TRUE(ahead.lastNumber(last));
    EXPECT_EQ(last, 17u);  // the section line
    EXPECT_EQ(ahead.error(), "");
    EXPECT_EQ(ahead.next(), nullptr);
}

TEST(ReadAhead, ManyBatchesThenTheCursorsError) {
    std::vector<std::string> lines;
    for (int i = 0; i < 20000; ++i) {
        lines.push_back("r = f" + std::to_string(i) + " ( " + std::string(i % 300, 'p') + ";q )");
    }
    lines.push_back("   ");
    std::unique_ptr<LineCursor> cursor = std::make_unique<ListCursor>(lines, "t:20012: broken");
    detail::ReadAhead ahead(cursor);
    size_t count = 0;
    while (const detail::ReadAhead::Line* line = ahead.next()) {
        ASSERT_EQ(line->number, 11 + count);
        ASSERT_TRUE(line->split);
        ASSERT_EQ(line->api.name, "f" + std::to_string(count));
        ASSERT_EQ(line->params[1], "q");
        ++count;
    }
    EXPECT_EQ(count, 20000u);
    uint64_t last = 0;
    EXPECT_TRUE(ahead.lastNumber(last));
    EXPECT_EQ(last, 20011u);  // the blank line
    EXPECT_EQ(ahead.error(), "t:20012: broken");
}

// Lines of one text, each call with the rest of it in a buffer of its own (the one before is
// freed: a view kept of it is a use after free under ASan), which tells what follows the line
// (unread()) but cannot be held: the thread finds the next lines in it, and copies them.
class UnheldCursor final : public LineCursor {
public:
    explicit UnheldCursor(std::string text) : m_text(std::move(text)) {}
    bool next(std::string_view& line, uint64_t& lineNumber) override {
        if (m_at >= m_text.size()) return false;
        const size_t rest = m_text.size() - m_at;
        m_buffer = std::make_unique<char[]>(rest);
        std::memcpy(m_buffer.get(), m_text.data() + m_at, rest);
        const char* nl = static_cast<const char*>(std::memchr(m_buffer.get(), '\n', rest));
        const size_t size = nl != nullptr ? static_cast<size_t>(nl - m_buffer.get()) : rest;
        line = std::string_view(m_buffer.get(), size);
        m_unread = std::string_view(m_buffer.get(), rest).substr(std::min(rest, size + 1));
        m_at += std::min(rest, size + 1);
        lineNumber = ++m_line;
        return true;
    }
    std::string_view unread() const override { return m_unread; }
    void advance(size_t bytes, uint64_t lines) override {
        m_at += bytes;
        m_line += lines;
        m_unread.remove_prefix(bytes);
    }

private:
    std::string m_text;
    std::unique_ptr<char[]> m_buffer;
    std::string_view m_unread;
    size_t m_at = 0;
    uint64_t m_line = 0;
};

TEST(ReadAhead, LinesOfACursorThatCannotHoldItsBufferAreCopied) {
    std::string text;
    for (int i = 0; i < 3000; ++i) {
        text += "r = f" + std::to_string(i) + " ( " + std::string(i % 100, 'p') + ";q )\n";
        if (i % 700 == 0) text += "17\n";  // (a line left to the usual way)
    }
    std::unique_ptr<LineCursor> cursor = std::make_unique<UnheldCursor>(text);
    detail::ReadAhead ahead(cursor);
    size_t calls = 0;
    size_t others = 0;
    while (const detail::ReadAhead::Line* line = ahead.next()) {
        if (!line->split) {
            EXPECT_EQ(line->text, "17");
            ++others;
            continue;
        }
        ASSERT_EQ(line->api.name, "f" + std::to_string(calls));
        ASSERT_EQ(line->params.size(), 2u);
        ASSERT_EQ(line->params[0], std::string(calls % 100, 'p'));
        ASSERT_EQ(line->params[1], "q");
        ++calls;
    }
    EXPECT_EQ(calls, 3000u);
    EXPECT_EQ(others, 5u);
    EXPECT_EQ(ahead.error(), "");
}

// Destroyed while its thread waits for a free batch, or before anything was taken.
TEST(ReadAhead, StopsWhereverItIs) {
    std::vector<std::string> lines(50000, "r = f ( a )");
    for (const int taken : {0, 1, 3000}) {
        std::unique_ptr<LineCursor> cursor = std::make_unique<ListCursor>(lines, "");
        detail::ReadAhead ahead(cursor);
        for (int i = 0; i < taken; ++i) ASSERT_NE(ahead.next(), nullptr);
    }
}

// ---- the first pass ----------------------------------------------------------------------

uint64_t skipPlainly(const char*& p, const char* end, uint64_t max) {
    uint64_t count = 0;
    while (count < max && p < end && detail::scan::plainStart(*p)) {
        const char* nl = static_cast<const char*>(std::memchr(p, '\n', end - p));
        if (nl == nullptr) break;
        p = nl + 1;
        ++count;
    }
    return count;
}

// Random API sections (blocks of 0 to 40 entries; blank, CRLF and indented lines; now and then
// a bad thread id or count, a count beyond the section, a section cut short), their Timestamp
// sections, and a section of filler of random size after them: the first pass counts entry
// lines in bulk (AtpPart::takeLines()) up to each of them; read every way, the records,
// warnings and errors are one.
TEST(TraceParserAhead, RandomApiSectionsReadTheSame) {
    std::mt19937 rng(23);
    int good = 0;
    for (int round = 0; round < 60; ++round) {
        std::string api = "=====ocl API Trace Output=====\n";
        std::string ts = "=====ocl Timestamp Output=====\n";
        const int blocks = 1 + static_cast<int>(rng() % 12);
        for (int b = 0; b < blocks; ++b) {
            const int entries = static_cast<int>(rng() % 41);
            const unsigned odd = rng() % 60;
            const std::string tid = std::to_string(100 + b);
            api += odd == 0 ? "x" + tid + "\n" : odd == 1 ? "  " + tid + "\r\n" : tid + "\n";
            api += odd == 2 ? std::to_string(entries + 1) + "\n"
                            : odd == 3 ? "-" + std::to_string(entries) + "\n"
                                       : std::to_string(entries) + "\n";
            ts += tid + "\n" + std::to_string(entries) + "\n";
            for (int e = 0; e < entries; ++e) {
                const unsigned kind = rng() % 60;
                if (kind == 0) api += "\n";  // (not an entry: the first pass passes over it)
                api += kind == 1   ? "CL_SUCCESS = clFinish ( 0x" + std::to_string(e) + " )\r\n"
                       : kind == 2 ? "   CL_SUCCESS = clFinish ( 0x1 )\n"
                                   : "CL_SUCCESS = clFinish ( 0x" + std::to_string(e) + " )\n";
                ts += "51 clFinish " + std::to_string(1000 + e) + " " + std::to_string(2000 + e) +
                      "\n";
            }
        }
        if (rng() % 10 == 0) api.resize(api.size() - 1 - rng() % (api.size() / 2));  // cut
        std::string filler = "=====Filler=====\n";
        const size_t fillerLines = rng() % 400;
        for (size_t i = 0; i < fillerLines; ++i) filler += "filler line " + std::to_string(i) + "\n";
        const std::string text = "TraceFileVersion=3.2\n" + api +
                                 (api.back() == '\n' ? "" : "\n") + ts + filler;
        SCOPED_TRACE("round " + std::to_string(round));
        const AheadOutcome o = sameEveryWay(text);
        good += o.ok ? 1 : 0;
        if (HasFailure()) return;
    }
    EXPECT_GT(good, 30);  // (of the 60 traces, 44 read without error)
}

// A block with more lines than its count and no number after them (the first pass expects a
// thread id at the third): the count of lines in bulk stops at the block's end, and the error
// names the line, however many entries come before and whatever follows.
TEST(TraceParserAhead, LinesBeyondTheCount) {
    for (int first = 0; first < 30; ++first) {  // (the entries of a first block move it)
        std::string api = "=====ocl API Trace Output=====\n1\n" + std::to_string(first) + "\n";
        for (int i = 0; i < first; ++i) api += "CL_SUCCESS = clFlush ( 0x1 )\n";
        api += "2\n2\n";
        for (int i = 0; i < 40; ++i) {
            api += "CL_SUCCESS = clFinish ( 0x" + std::to_string(i) + " )\n";
        }
        for (const int fillerLines : {0, 10, 40}) {
            std::string filler = "=====Filler=====\n";
            for (int i = 0; i < fillerLines; ++i) filler += "filler line\n";
            SCOPED_TRACE(std::to_string(first) + " entries, filler " + std::to_string(fillerLines));
            const AheadOutcome o = sameEveryWay(api + "=====ocl Timestamp Output=====\n" + filler);
            EXPECT_FALSE(o.ok);
            EXPECT_EQ(o.error, "t.atp:" + std::to_string(first + 8) +
                                   ": expected a thread id (decimal), got 'CL_SUCCESS = clFinish "
                                   "( 0x2 )'");
            if (HasFailure()) return;
        }
    }
}

TEST(TraceParserScan, SkipPlainLinesMatchesThePlainDefinition) {
    std::mt19937 random(7);
    const char bytes[] = {'a', 'b', '\n', ' ', '\t', '\r', '=', '(', '\n', 'x'};
    for (int round = 0; round < 20000; ++round) {
        std::string text(random() % 400, 'a');
        const unsigned density = 2 + random() % 60;
        for (char& c : text) {
            if (random() % density == 0) c = bytes[random() % sizeof bytes];
        }
        const uint64_t max = random() % 3 == 0 ? UINT64_MAX : random() % 20;
        const size_t from = text.empty() ? 0 : random() % text.size();
        const char* fast = text.data() + from;
        const char* plain = fast;
        const uint64_t n = detail::scan::skipPlainLines(fast, text.data() + text.size(), max);
        ASSERT_EQ(n, skipPlainly(plain, text.data() + text.size(), max)) << text;
        ASSERT_EQ(fast, plain) << text;
    }
}

}  // namespace
}  // namespace perfmarker::atp
