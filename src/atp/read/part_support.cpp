// Shared pieces of the streaming reader's parts (part_support.h).
#include "atp/read/part_support.h"

#include <cstring>

namespace perfmarker::atp::detail {
namespace {

constexpr size_t kExcerptBytes = 60;

// A cursor over BufferedLines.
class BufferedCursor final : public LineCursor {
public:
    BufferedCursor(std::string_view text, const std::vector<uint64_t>& lineNumbers)
        : m_text(text), m_lineNumbers(lineNumbers) {}

    bool next(std::string_view& line, uint64_t& lineNumber) override {
        if (m_index >= m_lineNumbers.size()) return false;
        const size_t end = m_text.find('\n', m_pos);
        line = m_text.substr(m_pos, end - m_pos);
        lineNumber = m_lineNumbers[m_index++];
        m_pos = end + 1;
        return true;
    }
    bool linesStay() const override { return true; }  // while the BufferedLines live

private:
    std::string_view m_text;
    const std::vector<uint64_t>& m_lineNumbers;
    size_t m_pos = 0;
    size_t m_index = 0;
};

}  // namespace

std::string excerpt(std::string_view text) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "'";
    for (const char c : text.substr(0, kExcerptBytes)) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte < 0x7f) {
            out.push_back(c);
        } else {
            out.append("\\x");
            out.push_back(kHex[byte >> 4]);
            out.push_back(kHex[byte & 0xf]);
        }
    }
    if (text.size() > kExcerptBytes) out.append("...");
    out.push_back('\'');
    return out;
}

std::string atLine(const SectionContext& context, uint64_t line, std::string_view message) {
    std::string out = context.where(line);
    out.append(message);
    return out;
}

std::string expectedGot(const SectionContext& context, uint64_t line, std::string_view what,
                        std::string_view got) {
    std::string out = context.where(line);
    out.append("expected ");
    out.append(what);
    out.append(", got ");
    out.append(excerpt(got));
    return out;
}

void warn(const SectionContext& context, uint64_t line, std::string_view message) {
    const std::string text = atLine(context, line, message);
    for (TraceListener* listener : context.listeners()) listener->onWarning(text);
}

// ---- TimeChecks ----------------------------------------------------------------------------

namespace {

constexpr std::string_view kWhat[TimeChecks::kKinds] = {"the call", "the command", "the transfer",
                                                        "the dispatch"};
constexpr std::string_view kWithoutTimes[TimeChecks::kKinds] = {
    " API calls without times", " commands without device times",
    " async copies without transfer times", " kernel dispatches without device times"};

}  // namespace

void TimeChecks::endsBeforeStart(const SectionContext& context, uint64_t line, Kind kind,
                                 uint64_t start, uint64_t end, std::string_view name) {
    if (++m_endsBeforeStart > kMaxNamed) return;
    std::string message(name);
    message.append(": ").append(kWhat[kind]).append(" ends (");
    message.append(std::to_string(end)).append(") before it starts (");
    message.append(std::to_string(start)).append("): its times are left out");
    warn(context, line, message);
}

void TimeChecks::report(const SectionContext& context) const {
    const std::string file(context.fileName());
    for (size_t kind = 0; kind < kKinds; ++kind) {
        if (m_unknown[kind] == 0) continue;
        const std::string text = file + ": " + std::to_string(m_unknown[kind]) +
                                 std::string(kWithoutTimes[kind]) + " (unknown), left out";
        for (TraceListener* listener : context.listeners()) listener->onWarning(text);
    }
    if (m_endsBeforeStart <= kMaxNamed) return;
    const std::string text = file + ": " + std::to_string(m_endsBeforeStart) +
                             " records end before they start (the first " +
                             std::to_string(kMaxNamed) +
                             " are named above): their times are "
                             "left out";
    for (TraceListener* listener : context.listeners()) listener->onWarning(text);
}

// ---- ThreadBlocks --------------------------------------------------------------------------

bool ThreadBlocks::feedCount(std::string_view text, Step& step, std::string& what) {
    switch (m_state) {
        case State::Tid:
            if (!parseU64(text, m_tid)) {
                what = "a thread id (decimal)";
                return false;
            }
            m_state = State::Count;
            step = Step::Tid;
            return true;
        case State::Count:
            if (!parseU64(text, m_count)) {
                what = "the line count of thread " + std::to_string(m_tid);
                return false;
            }
            m_remaining = m_count;
            m_state = m_count == 0 ? State::Tid : State::Entries;
            step = Step::Count;
            return true;
        case State::Entries:
            if (--m_remaining == 0) m_state = State::Tid;
            step = Step::Entry;
            return true;
    }
    return true;
}

std::string ThreadBlocks::unfinished() const {
    if (m_state == State::Count) {
        return "the line count of thread " + std::to_string(m_tid) + " before the section ends";
    }
    if (m_state == State::Entries) {
        return std::to_string(m_count) + " lines in thread " + std::to_string(m_tid) +
               " before the section ends, got " + std::to_string(m_count - m_remaining) +
               " (at the end of the section)";
    }
    return {};
}

// ---- BufferedLines -------------------------------------------------------------------------

void BufferedLines::clear() {
    m_text.clear();
    m_lineNumbers.clear();
}

void BufferedLines::add(std::string_view text, uint64_t lineNumber) {
    m_text.append(text);
    m_text.push_back('\n');
    m_lineNumbers.push_back(lineNumber);
}

std::unique_ptr<LineCursor> BufferedLines::cursor() const {
    return std::make_unique<BufferedCursor>(m_text, m_lineNumbers);
}

// ---- BlockCursor ---------------------------------------------------------------------------

BlockCursor::BlockCursor(std::unique_ptr<LineCursor> cursor, SectionContext& context,
                         bool ahead, uint64_t sectionBytes)
    : m_cursor(std::move(cursor)), m_context(context) {
    if (ahead) m_ahead = context.readAhead(m_cursor, sectionBytes);  // (null: read it here)
}

BlockCursor::Result BlockCursor::nextAheadLine(std::string_view& text, uint64_t& lineNumber,
                                               std::string& error) {
    m_aheadLine = m_ahead->next();
    if (m_aheadLine != nullptr) {
        text = m_aheadLine->text;
        lineNumber = m_aheadLine->number;
        return Result::Ok;
    }
    m_ended = true;
    m_ahead->lastNumber(lineNumber);
    error = m_ahead->error();
    return error.empty() ? Result::End : Result::Error;
}

BlockCursor::Result BlockCursor::nextLine(std::string_view& text, uint64_t& lineNumber,
                                          std::string& error) {
    if (m_ended) return Result::End;
    if (m_ahead) return nextAheadLine(text, lineNumber, error);
    while (m_cursor->next(text, lineNumber)) {
        text = trimText(text);
        if (text.empty()) continue;
        if (text.front() == '=') break;  // the next section line
        return Result::Ok;
    }
    m_ended = true;
    error = m_cursor->error();
    return error.empty() ? Result::End : Result::Error;
}

BlockCursor::Result BlockCursor::nextBlock(std::string& error) {
    std::string_view text;
    uint64_t line = 0;
    while (m_remaining > 0) {
        const Result r = nextEntry(text, line, error);
        if (r != Result::Ok) return r;
    }
    for (;;) {
        const Result r = nextLine(text, line, error);
        if (r == Result::End && m_blocks.inBlock()) {
            error = atLine(m_context, line, "expected " + m_blocks.unfinished());
            return Result::Error;
        }
        if (r != Result::Ok) return r;
        ThreadBlocks::Step step = ThreadBlocks::Step::Tid;
        std::string what;
        if (!m_blocks.feed(text, step, what)) {
            error = expectedGot(m_context, line, what, text);
            return Result::Error;
        }
        if (step == ThreadBlocks::Step::Count) {
            m_remaining = m_blocks.count();
            return Result::Ok;
        }
    }
}

BlockCursor::Result BlockCursor::nextLineEntry(std::string_view& text, uint64_t& lineNumber,
                                               std::string& error) {
    if (m_remaining == 0) return Result::End;
    const Result r = nextLine(text, lineNumber, error);
    if (r == Result::End) {
        error = atLine(m_context, lineNumber, "expected " + m_blocks.unfinished());
        return Result::Error;
    }
    if (r != Result::Ok) return r;
    ThreadBlocks::Step step = ThreadBlocks::Step::Entry;
    std::string what;
    m_blocks.feed(text, step, what);  // an entry line: always accepted
    --m_remaining;
    return Result::Ok;
}

}  // namespace perfmarker::atp::detail
