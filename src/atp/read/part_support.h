// Pieces the parts of the streaming reader share (trace_parser.h): text helpers, messages in
// the "<file>:<line>: expected ..., got '...'" form, the thread-block state machine of
// docs/format.md#thread-blocks and the reader of the first of two paired sections. Internal to
// src/atp.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "atp/read/trace_parser.h"
#include "atp/read/read_ahead.h"
#include "atp/read/scan.h"

namespace perfmarker::atp::detail {

// Spaces, tabs and CR at both ends removed (NUL and other bytes are content).
inline std::string_view trimText(std::string_view text) {
    const auto trimmed = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    while (!text.empty() && trimmed(text.front())) text.remove_prefix(1);
    // (Timestamp lines end in column padding: eight spaces at a time.)
    while (text.size() >= 8 && std::memcmp(text.data() + text.size() - 8, "        ", 8) == 0) {
        text.remove_suffix(8);
    }
    while (!text.empty() && trimmed(text.back())) text.remove_suffix(1);
    return text;
}

// The whole of `text` as a decimal number (no sign, no spaces, no overflow).
using scan::parseU64;

// Splits on spaces, tabs, CR and LF, as splitFields() of ocl_timestamp.h (64 bytes at a time).
using scan::splitTokens;

// "'text'" for messages: at most 60 bytes, bytes outside printable ASCII as \xNN.
std::string excerpt(std::string_view text);

// "<file>:<line>: expected <what>, got '<excerpt of got>'".
std::string expectedGot(const SectionContext& context, uint64_t line, std::string_view what,
                        std::string_view got);
// "<file>:<line>: <message>".
std::string atLine(const SectionContext& context, uint64_t line, std::string_view message);
// Sends "<file>:<line>: <message>" to every listener's onWarning().
void warn(const SectionContext& context, uint64_t line, std::string_view message);

// The times of the records of one input (docs/format.md#unknown-times): an interval that ends
// before it starts is named with its line (the first kMaxNamed of an input, then a count);
// unknown times (0) are counted per kind and reported once, at the end of the input.
class TimeChecks {
public:
    enum Kind : size_t { ApiCall, Command, Transfer, Dispatch, kKinds };
    static constexpr uint64_t kMaxNamed = 20;

    void reset() { *this = TimeChecks{}; }
    // `what` names the record for a message: "clEnqueueNDRangeKernel: the command".
    void check(const SectionContext& context, uint64_t line, Kind kind, uint64_t start,
               uint64_t end, std::string_view name) {
        const Times times = timesOf(start, end);
        if (times == Times::Known) return;
        if (times == Times::Unknown) {
            ++m_unknown[kind];
        } else {
            endsBeforeStart(context, line, kind, start, end, name);
        }
    }
    // The counts of the input, one warning each ("<file>: 12 commands without device times
    // (unknown), left out").
    void report(const SectionContext& context) const;

private:
    [[gnu::cold, gnu::noinline]] void endsBeforeStart(const SectionContext& context, uint64_t line,
                                                      Kind kind, uint64_t start, uint64_t end,
                                                      std::string_view name);
    uint64_t m_unknown[kKinds] = {};
    uint64_t m_endsBeforeStart = 0;
};

// The thread blocks of docs/format.md#thread-blocks: "<tid>", "<count>", then count entry lines.
class ThreadBlocks {
public:
    enum class Step { Tid, Count, Entry };

    void reset() { *this = ThreadBlocks{}; }
    // Consumes one non-blank line. False with `what` / `got` (for expectedGot) when the line is
    // not what the block structure asks for.
    bool feed(std::string_view text, Step& step, std::string& what) {
        if (m_state != State::Entries) return feedCount(text, step, what);
        if (--m_remaining == 0) m_state = State::Tid;
        step = Step::Entry;
        return true;
    }
    // Empty when the section may end here, else what was expected instead.
    std::string unfinished() const;

    uint64_t tid() const { return m_tid; }
    uint64_t count() const { return m_count; }
    uint64_t index() const { return m_count - m_remaining - 1; }  // of the entry just fed
    bool inBlock() const { return m_state != State::Tid; }
    // The entry lines still to come in the current block (0 outside the entries).
    uint64_t entriesLeft() const { return m_state == State::Entries ? m_remaining : 0; }
    // As if feed() had been given `n` <= entriesLeft() entry lines.
    void skipEntries(uint64_t n) {
        m_remaining -= n;
        if (m_remaining == 0) m_state = State::Tid;
    }

private:
    enum class State { Tid, Count, Entries };
    bool feedCount(std::string_view text, Step& step, std::string& what);  // a tid or a count
    State m_state = State::Tid;
    uint64_t m_tid = 0;
    uint64_t m_count = 0;
    uint64_t m_remaining = 0;
};

// Lines kept in memory for an input that cannot be read again (parseStream).
class BufferedLines {
public:
    void clear();
    void add(std::string_view text, uint64_t lineNumber);
    // A cursor over the kept lines; valid while this object lives and is not changed.
    std::unique_ptr<LineCursor> cursor() const;

private:
    std::string m_text;  // the lines, each followed by '\n'
    std::vector<uint64_t> m_lineNumbers;
};

// Reads the thread blocks of a section a second time, through a LineCursor positioned at its
// first line; the next section line ends it. Blank lines are skipped. With `ahead`, the cursor
// is read on a second thread (ReadAhead), which also splits the API lines.
class BlockCursor {
public:
    enum class Result { Ok, End, Error };

    // `ahead`: the cursor may be read on a second thread (SectionContext::readAhead(), for a
    // section of `sectionBytes`).
    BlockCursor(std::unique_ptr<LineCursor> cursor, SectionContext& context, bool ahead = false,
                uint64_t sectionBytes = 0);

    // Skips what is left of the current block, then reads the next block's tid and count.
    Result nextBlock(std::string& error);
    // The next entry of the current block (Result::End when the block has no more).
    Result nextEntry(std::string_view& text, uint64_t& lineNumber, std::string& error) {
        // (Inline for a line that the reading thread has handed over already.)
        if (m_remaining > 0 && m_ahead != nullptr && !m_ended) {
            if (ReadAhead::Line* line = m_ahead->ready()) {
                m_aheadLine = line;
                text = line->text;
                lineNumber = line->number;
                m_blocks.skipEntries(1);  // (an entry line, as nextLineEntry() feeds it)
                --m_remaining;
                return Result::Ok;
            }
        }
        return nextLineEntry(text, lineNumber, error);
    }

    uint64_t tid() const { return m_blocks.tid(); }
    uint64_t count() const { return m_blocks.count(); }
    uint64_t remaining() const { return m_remaining; }
    // The line nextEntry() gave last as the reading thread split it (null without one).
    ReadAhead::Line* aheadLine() const { return m_aheadLine; }

private:
    Result nextLineEntry(std::string_view& text, uint64_t& lineNumber, std::string& error);
    Result nextLine(std::string_view& text, uint64_t& lineNumber, std::string& error);
    Result nextAheadLine(std::string_view& text, uint64_t& lineNumber, std::string& error);

    std::unique_ptr<LineCursor> m_cursor;
    std::shared_ptr<ReadAhead> m_ahead;
    ReadAhead::Line* m_aheadLine = nullptr;
    const SectionContext& m_context;
    ThreadBlocks m_blocks;
    uint64_t m_remaining = 0;
    bool m_ended = false;
};

// The parts of trace_parser.cpp's standardParts().
std::unique_ptr<AtpPart> makeOclPart();
std::unique_ptr<AtpPart> makeHsaPart();
std::unique_ptr<AtpPart> makePerfmarkerPart();
std::unique_ptr<AtpPart> makeStackPart();

}  // namespace perfmarker::atp::detail
