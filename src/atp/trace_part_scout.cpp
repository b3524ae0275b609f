// The scout that reads the second half of an API section's first pass (trace_part_scout.h).
#include "atp/trace_part_scout.h"

#include <string>
#include <system_error>

namespace perfmarker::atp::detail {
namespace {

std::atomic<uint64_t> g_jumps{0};

}  // namespace

uint64_t scoutJumps() { return g_jumps.load(std::memory_order_relaxed); }
void countScoutJump() { g_jumps.fetch_add(1, std::memory_order_relaxed); }

BlockScout::BlockScout(std::unique_ptr<LineCursor> cursor, int64_t start)
    : m_cursor(std::move(cursor)), m_start(start) {
    try {
        m_thread = std::thread([this] { run(); });
    } catch (const std::system_error&) {  // no thread: the first pass reads it all
    }
}

BlockScout::~BlockScout() {
    m_stop.store(true, std::memory_order_relaxed);
    if (m_thread.joinable()) m_thread.join();
}

const BlockScout::Found& BlockScout::found() {
    if (m_thread.joinable()) m_thread.join();
    return m_found;
}

void BlockScout::run() {
    Found found;
    int64_t at = m_start;  // the offset of the next line
    ThreadBlocks& blocks = found.blocks;
    std::string what;
    // One whole line (without its '\n'); false when it is B (the first pass takes it itself).
    const auto take = [&](std::string_view raw) {
        if (raw.empty() || !scan::plainStart(raw.front())) return false;
        const std::string_view text = trimText(raw);
        if (!found.anyNumber) {
            uint64_t value = 0;
            if (!parseU64(text, value)) return true;  // (before it: entries of a block)
            found.anyNumber = true;
            found.firstNumber = found.lines;
        }
        ThreadBlocks::Step step = ThreadBlocks::Step::Tid;
        found.fits = blocks.feed(text, step, what);
        return found.fits;  // (a line the first pass refuses: it finds it itself)
    };
    found.fits = true;
    for (;;) {
        if (m_stop.load(std::memory_order_relaxed)) return;  // (found.done stays false)
        // The whole lines the cursor has in memory after its last one.
        const std::string_view unread = m_cursor->unread();
        const char* const begin = unread.data();
        const char* const end = begin + unread.size();
        const char* p = begin;
        uint64_t taken = 0;
        bool stop = false;
        // (In a buffer grown for a long line, lines are read one at a time, as the first pass
        // reads them: a line too long to accept is left to it.)
        while (!stop && p < end && unread.size() <= kMaxTraceLineBytes) {
            if (found.anyNumber && blocks.entriesLeft() > 0) {
                const uint64_t n = scan::skipPlainLines(p, end, blocks.entriesLeft());
                blocks.skipEntries(n);
                taken += n;
                found.lines += n;
                if (blocks.entriesLeft() == 0) continue;
                stop = p < end && !scan::plainStart(*p);  // (else a line goes on after `end`)
                break;
            }
            const char* nl = scan::findByte(p, end, '\n');
            if (nl == end) break;
            if (!take(std::string_view(p, static_cast<size_t>(nl - p)))) {
                stop = true;
                break;
            }
            ++taken;
            ++found.lines;
            p = nl + 1;
        }
        if (taken > 0) m_cursor->advance(static_cast<size_t>(p - begin), taken);
        at += p - begin;
        if (stop) break;
        // The next line from the cursor, which reads on.
        std::string_view raw;
        uint64_t number = 0;
        if (!m_cursor->next(raw, number)) break;  // the end of the input, or an error
        const std::string_view after = m_cursor->unread();
        // (The last line of the input, without a line end, is left to the first pass.)
        if (after.empty() || !take(raw)) break;
        ++found.lines;
        at += after.data() - raw.data();
    }
    found.end = at;
    found.done = true;
    m_found = found;
}

bool lineStartAfter(LineCursor& cursor, int64_t offset, int64_t& start) {
    std::string_view raw;
    uint64_t number = 0;
    if (!cursor.next(raw, number)) return false;
    const std::string_view after = cursor.unread();
    if (after.empty()) return false;
    start = offset + (after.data() - raw.data());
    return true;
}

}  // namespace perfmarker::atp::detail
