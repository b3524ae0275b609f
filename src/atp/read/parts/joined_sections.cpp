// The join of an API Trace section with its Timestamp section (joined_sections.h).
#include "atp/read/parts/joined_sections.h"

namespace perfmarker::atp::detail {
namespace {

std::string apiSectionName(SectionKind kind) {
    return "the " + std::string(sectionName(kind)) + " section";
}

}  // namespace

void JoinedApiPart::beginFile(SectionContext& context) {
    m_fileName = context.fileName();
    m_current = SectionKind::Unknown;
    m_blocks.reset();
    m_apiPending = false;
    m_buffering = false;
    m_api.reset();
    m_buffered.clear();
    m_skipping = false;
    m_blockPaired = false;
    m_extraLines = 0;
    m_apiOffset = -1;
    m_apiLine = 0;
    m_checks.reset();
}

bool JoinedApiPart::beginSection(SectionKind kind, SectionContext& context, uint64_t line,
                                 std::string& error) {
    m_current = kind;
    m_blocks.reset();
    if (kind == m_apiKind) {
        if (m_apiPending && !announceUntimed(context, error)) return false;
        m_apiPending = true;
        m_apiOffset = context.sectionOffset(m_apiKind);
        m_apiLine = line;
        m_buffering = !context.canReopen();
        m_buffered.clear();
        return true;
    }
    if (kind != m_timestampKind) return true;
    m_extraLines = 0;
    m_blockPaired = false;
    m_skipping = !m_apiPending;
    if (m_skipping) {
        warn(context, line,
             "a " + std::string(sectionName(kind)) + " section without " +
                 apiSectionName(m_apiKind) + " before it: its lines are skipped");
        return true;
    }
    m_apiPending = false;
    // The API section's size: from its first line to the line after this section line.
    const int64_t timestamps = context.sectionOffset(m_timestampKind);
    const uint64_t bytes = m_apiOffset >= 0 && timestamps > m_apiOffset
                               ? static_cast<uint64_t>(timestamps - m_apiOffset)
                               : 0;
    return openApiCursor(context, error, true, bytes);
}

bool JoinedApiPart::openApiCursor(SectionContext& context, std::string& error, bool ahead,
                                  uint64_t sectionBytes) {
    std::unique_ptr<LineCursor> cursor;
    if (m_buffering) {
        cursor = m_buffered.cursor();
    } else if (!context.reopenAt(m_apiOffset, cursor, error)) {
        return false;
    }
    m_api = std::make_unique<BlockCursor>(std::move(cursor), context, ahead, sectionBytes);
    return true;
}

// The next entry of the API block into `joined` (`end`: the block has no more).
bool JoinedApiPart::nextEntry(JoinedLine& joined, std::string& error, bool& end) {
    const BlockCursor::Result r = m_api->nextEntry(joined.apiText, joined.apiLine, error);
    end = r == BlockCursor::Result::End;
    if (r != BlockCursor::Result::Ok) return r == BlockCursor::Result::End;
    ReadAhead::Line* ahead = m_api->aheadLine();
    if (ahead != nullptr && ahead->split) {
        joined.api = &ahead->api;
        joined.params = &ahead->params;
    } else {
        joined.api = nullptr;
    }
    return true;
}

bool JoinedApiPart::line(std::string_view text, uint64_t lineNumber, SectionContext& context,
                         std::string& error) {
    ThreadBlocks::Step step = ThreadBlocks::Step::Tid;
    std::string what;
    if (!m_blocks.feed(text, step, what)) {
        error = expectedGot(context, lineNumber, what, text);
        return false;
    }
    if (m_current == m_apiKind) {
        if (m_buffering) m_buffered.add(text, lineNumber);
        return true;
    }
    if (m_current != m_timestampKind || m_skipping) return true;
    if (step == ThreadBlocks::Step::Count) {
        return finishBlock(lineNumber, context, error) && startBlock(lineNumber, context, error);
    }
    if (step == ThreadBlocks::Step::Entry) {
        return timestampLine(text, lineNumber, context, error, false);
    }
    return true;
}

// On the first pass of the API section, its entry lines, only counted; in the Timestamp
// section, the entry lines of the block, each split into m_fields as its end is found.
bool JoinedApiPart::takeLines(std::string_view unread, uint64_t firstLine,
                              SectionContext& context, size_t& bytes, uint64_t& lines,
                              std::string& error) {
    if (m_current == m_apiKind) {
        const char* p = unread.data();
        const uint64_t left = m_buffering ? 0 : m_blocks.entriesLeft();
        lines = left == 0 ? 0 : scan::skipPlainLines(p, p + unread.size(), left);
        if (lines > 0) m_blocks.skipEntries(lines);
        bytes = static_cast<size_t>(p - unread.data());
        return true;
    }
#if PERFMARKER_SCAN_WIDE
    if (scan::wideBlocks()) return takeLinesWide(unread, firstLine, context, bytes, lines, error);
#endif
    return takeLinesIn<scan::Load64>(unread, firstLine, context, bytes, lines, error);
}

#if PERFMARKER_SCAN_WIDE
[[PERFMARKER_SCAN_WIDE_TARGET]] bool JoinedApiPart::takeLinesWide(std::string_view unread,
                                                                  uint64_t firstLine,
                                                                  SectionContext& context,
                                                                  size_t& bytes, uint64_t& lines,
                                                                  std::string& error) {
    return takeLinesIn<scan::Wide64>(unread, firstLine, context, bytes, lines, error);
}
#endif

template <typename Block>
bool JoinedApiPart::takeLinesIn(std::string_view unread, uint64_t firstLine,
                                SectionContext& context, size_t& bytes, uint64_t& lines,
                                std::string& error) {
    lines = 0;
    const char* const begin = unread.data();
    const char* const end = begin + unread.size();
    const char* p = begin;
    bool ok = true;
    if (m_current == m_timestampKind && !m_skipping) {
        // (A line that does not start with a plain byte may be blank or a section line.)
        while (ok && m_blocks.entriesLeft() > 0 && p < end && scan::plainStart(*p)) {
            const char* nl = scan::splitLineTokensIn<Block>(p, end, m_fields);
            if (nl == nullptr) break;
            // Trimmed, the line ends with its last token.
            const std::string_view last = m_fields[m_fields.size() - 1];
            const std::string_view text(p, static_cast<size_t>(last.data() + last.size() - p));
            m_blocks.skipEntries(1);
            ok = timestampLine(text, firstLine + lines, context, error, true);
            ++lines;
            p = nl + 1;
        }
    }
    bytes = static_cast<size_t>(p - begin);
    return ok;
}

bool JoinedApiPart::startBlock(uint64_t lineNumber, SectionContext& context, std::string& error) {
    const BlockCursor::Result r = m_api->nextBlock(error);
    if (r == BlockCursor::Result::Error) return false;
    if (r == BlockCursor::Result::End) {
        warn(context, lineNumber,
             "thread " + std::to_string(m_blocks.tid()) + " has no block in " +
                 apiSectionName(m_apiKind) + ": its " + std::to_string(m_blocks.count()) +
                 " timestamp lines are skipped");
        return true;
    }
    if (m_api->tid() != m_blocks.tid()) {
        error = atLine(context, lineNumber,
                       "expected the block of thread " + std::to_string(m_api->tid()) +
                           " (the next one in " + apiSectionName(m_apiKind) +
                           "), got thread " + std::to_string(m_blocks.tid()));
        return false;
    }
    m_blockPaired = true;
    return true;
}

bool JoinedApiPart::timestampLine(std::string_view text, uint64_t lineNumber,
                                  SectionContext& context, std::string& error, bool split) {
    if (!m_blockPaired) return true;
    JoinedLine& joined = m_joined;  // (every member is set below or by nextEntry())
    bool end = false;
    if (!nextEntry(joined, error, end)) return false;
    if (end) {
        ++m_extraLines;
        return true;
    }
    joined.tid = m_blocks.tid();
    joined.index = m_blocks.index();
    joined.hasTimestamp = true;
    joined.timestampText = text;
    joined.timestampLine = lineNumber;
    joined.timestampSplit = split;
    return announce(joined, context, error);
}

bool JoinedApiPart::finishBlock(uint64_t lineNumber, SectionContext& context, std::string& error,
                                bool warnMissing) {
    if (!m_blockPaired) return true;
    m_blockPaired = false;
    const uint64_t tid = m_api->tid();
    if (m_extraLines > 0) {
        warn(context, lineNumber,
             "thread " + std::to_string(tid) + " has " + std::to_string(m_extraLines) +
                 " more timestamp lines than API lines: the extra ones are skipped");
        m_extraLines = 0;
    }
    if (m_api->remaining() == 0) return true;
    if (warnMissing) {
        warn(context, lineNumber,
             "thread " + std::to_string(tid) + " has " + std::to_string(m_api->remaining()) +
                 " API calls without a timestamp line: their times are unknown");
    }
    JoinedLine joined;
    joined.tid = tid;
    for (;;) {
        joined.index = m_api->count() - m_api->remaining();
        bool end = false;
        if (!nextEntry(joined, error, end)) return false;
        if (end) return true;
        if (!announce(joined, context, error)) return false;
    }
}

// The API blocks after the last timestamp block (or all of them, for an API section without a
// Timestamp section): announced without times (zero: unknown).
bool JoinedApiPart::announceRest(uint64_t lineNumber, SectionContext& context,
                                 std::string& error, bool warnMissing) {
    for (;;) {
        const BlockCursor::Result r = m_api->nextBlock(error);
        if (r == BlockCursor::Result::Error) return false;
        if (r == BlockCursor::Result::End) return true;
        if (m_api->count() == 0) continue;
        m_blockPaired = true;
        if (!finishBlock(lineNumber, context, error, warnMissing)) return false;
    }
}

bool JoinedApiPart::announceUntimed(SectionContext& context, std::string& error) {
    m_apiPending = false;
    warn(context, m_apiLine,
         apiSectionName(m_apiKind) + " has no " + std::string(sectionName(m_timestampKind)) +
             " section after it: the times of its calls are unknown");
    if (!openApiCursor(context, error)) return false;
    const bool ok = announceRest(m_apiLine, context, error, false);
    m_api.reset();
    return ok;
}

bool JoinedApiPart::endSection(uint64_t lineNumber, SectionContext& context, std::string& error) {
    const SectionKind kind = m_current;
    m_current = SectionKind::Unknown;
    const std::string unfinished = m_blocks.unfinished();
    if (!unfinished.empty()) {
        error = atLine(context, lineNumber, "expected " + unfinished);
        return false;
    }
    if (kind != m_timestampKind || m_skipping || !m_api) return true;
    const bool ok = finishBlock(lineNumber, context, error) &&
                    announceRest(lineNumber, context, error, true);
    m_api.reset();
    return ok;
}

bool JoinedApiPart::endFile(SectionContext& context, std::string& error) {
    const bool ok = !m_apiPending || announceUntimed(context, error);
    m_api.reset();
    m_buffered.clear();
    if (ok) m_checks.report(context);
    return ok;
}

bool JoinedApiPart::notNumber(size_t index, const char* what, SectionContext& context,
                              std::string& error) {
    error = expectedGot(context, m_line,
                        std::string(what) + " (a decimal number) in field " +
                            std::to_string(index + 1),
                        m_fields[index]);
    return false;
}

bool JoinedApiPart::otherName(const JoinedLine& joined, std::string_view name,
                              SectionContext& context, std::string& error) {
    error = expectedGot(context, m_line,
                        "API '" + std::string(name) + "' as on line " +
                            std::to_string(joined.apiLine) + " of the API trace",
                        m_fields[1]);
    return false;
}

const scan::ApiText* splitApiLineHere(const JoinedLine& joined, const SectionContext& context,
                                      std::string_view expected, scan::ApiText& own,
                                      std::vector<std::string_view>& params, std::string& error) {
    if (!scan::parseApiText(joined.apiText, own)) {
        error = expectedGot(context, joined.apiLine, expected, joined.apiText);
        return nullptr;
    }
    scan::splitParams(own.params, params, own.line);
    return &own;
}

}  // namespace perfmarker::atp::detail
