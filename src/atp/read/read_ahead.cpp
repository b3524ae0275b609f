// The second thread that reads an API Trace section ahead (read_ahead.h).
#include "atp/read/read_ahead.h"

#if defined(__x86_64__) || defined(__i386__)
#include <emmintrin.h>
#endif

#include <chrono>
#include <system_error>

#include "atp/read/part_support.h"

namespace perfmarker::atp::detail {
namespace {

// A hint to the processor that this thread waits for another one.
inline void pause() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#elif defined(__aarch64__)
    asm volatile("yield");
#endif
}

}  // namespace

void ReadAhead::Batch::clear() {
    if (text.capacity() > 4 * kBatchBytes) {  // it held a long line: give the memory back
        std::string().swap(text);
        text.reserve(kBatchBytes);
    }
    text.clear();
    holds.clear();
    count = 0;
    end = ended = false;
    endNumber = 0;
    error.clear();
    failure = nullptr;
}

ReadAhead::ReadAhead(std::unique_ptr<LineCursor>& cursor) : m_linesStay(cursor->linesStay()) {
    for (size_t i = 0; i < kBatches; ++i) {
        m_batches.push_back(std::make_unique<Batch>());
        Batch& batch = *m_batches.back();
        batch.lines.resize(kBatchLines);
        m_free.push_back(&batch);
    }
    m_freeCount.store(m_free.size(), std::memory_order_relaxed);
    m_cursor = std::move(cursor);
    try {
        m_thread = std::thread([this] { work(); });
    } catch (const std::system_error&) {
        cursor = std::move(m_cursor);  // the caller reads the section itself
    }
}

void ReadAhead::stop() {
    if (!m_thread.joinable()) return;
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        m_stop = true;
    }
    m_freed.notify_all();
    m_thread.join();
}

// Waits up to kSpin for `ready` without sleeping: waking a sleeping thread costs both threads
// tens of microseconds on some machines (a virtual machine's interrupts), about as long as
// the wait itself usually is.
// (Not on a single processor, where the thread waited for cannot run meanwhile.)
template <typename Ready>
void ReadAhead::spin(Ready ready) {
    constexpr auto kSpin = std::chrono::microseconds(100);
    static const bool several = std::thread::hardware_concurrency() > 1;
    if (!several) return;
    const auto start = std::chrono::steady_clock::now();
    while (!ready()) {
        for (int i = 0; i < 64; ++i) pause();
        if (std::chrono::steady_clock::now() - start > kSpin) return;
    }
}

ReadAhead::Line* ReadAhead::next() {
    for (;;) {
        if (m_current != nullptr) {
            if (m_index < m_current->count) return &m_current->lines[m_index++];
            if (m_current->failure) std::rethrow_exception(m_current->failure);
            if (m_current->end) return nullptr;
        }
        if (m_current != nullptr) {
            {
                const std::lock_guard<std::mutex> lock(m_mutex);
                m_free.push_back(m_current);
                m_freeCount.store(m_free.size(), std::memory_order_relaxed);
            }
            m_freed.notify_one();
            m_current = nullptr;
        }
        spin([this] { return m_readyCount.load(std::memory_order_relaxed) != 0; });
        std::unique_lock<std::mutex> lock(m_mutex);
        m_queued.wait(lock, [this] { return !m_ready.empty(); });
        m_current = m_ready.front();
        m_ready.pop_front();
        m_readyCount.store(m_ready.size(), std::memory_order_relaxed);
        m_index = 0;
    }
}

bool ReadAhead::lastNumber(uint64_t& number) const {
    if (!m_current->ended) return false;
    number = m_current->endNumber;
    return true;
}

ReadAhead::Batch* ReadAhead::takeFree() {
    spin([this] { return m_freeCount.load(std::memory_order_relaxed) != 0; });
    std::unique_lock<std::mutex> lock(m_mutex);
    m_freed.wait(lock, [this] { return m_stop || !m_free.empty(); });
    if (m_stop) return nullptr;
    Batch* batch = m_free.back();
    m_free.pop_back();
    m_freeCount.store(m_free.size(), std::memory_order_relaxed);
    return batch;
}

void ReadAhead::queue(Batch* batch) {
    {
        const std::lock_guard<std::mutex> lock(m_mutex);
        m_ready.push_back(batch);
        m_readyCount.store(m_ready.size(), std::memory_order_relaxed);
    }
    m_queued.notify_one();
}

void ReadAhead::work() {
    for (;;) {
        Batch* batch = takeFree();
        if (batch == nullptr) return;
        bool more = false;
        try {
            batch->clear();
            more = fill(*batch);
        } catch (...) {  // no memory for a long line: thrown on the parsing thread
            batch->end = true;
            batch->failure = std::current_exception();
        }
        queue(batch);
        if (!more) return;
    }
}

// The cursor's next line: one of the whole lines after its last one (unread()) while there are
// any, found here without a call to the cursor; then the cursor's.
bool ReadAhead::nextRaw(std::string_view& raw, uint64_t& number) {
    if (m_taken < m_unread.size()) {
        const char* p = m_unread.data() + m_taken;
        const char* end = m_unread.data() + m_unread.size();
        const char* nl = scan::findByte(p, end, '\n');
        if (nl != end && static_cast<size_t>(nl - p) <= kMaxTraceLineBytes) {
            raw = std::string_view(p, static_cast<size_t>(nl - p));  // (trimmed of any '\r')
            m_taken = static_cast<size_t>(nl + 1 - m_unread.data());
            number = m_cursorNumber + ++m_takenLines;
            return true;
        }
    }
    if (m_takenLines > 0) m_cursor->advance(m_taken, m_takenLines);
    m_taken = 0;
    m_takenLines = 0;
    if (!m_cursor->next(raw, number)) {
        m_unread = {};
        return false;
    }
    m_cursorNumber = number;
    m_unread = m_cursor->unread();
    m_serial = m_cursor->bufferSerial();
    return true;
}

// False when the section ended in this batch.
bool ReadAhead::fill(Batch& batch) {
#if PERFMARKER_SCAN_WIDE
    if (scan::wideBlocks()) return fillWide(batch);
#endif
    return fillIn<scan::Load64>(batch);
}

#if PERFMARKER_SCAN_WIDE
[[PERFMARKER_SCAN_WIDE_TARGET]] bool ReadAhead::fillWide(Batch& batch) {
    return fillIn<scan::Wide64>(batch);
}
#endif

template <typename Block>
bool ReadAhead::fillIn(Batch& batch) {
    // Whether the cursor gave a line (blank, or the next section line) after the last one kept,
    // and its number: what BlockCursor leaves in its line number at the end.
    bool seen = false;
    uint64_t seenNumber = 0;
    for (;;) {
        // An API line among the whole lines after the cursor's last one, found and split in one
        // pass where it can be (scan::splitApiLineIn()); any other line as below.
        // (The buffer is held once the line is split here: one the line is left to does not
        // stay held for nothing. A hold that fails leaves the line to the usual way too.)
        if (!m_pending && !m_copy && m_taken < m_unread.size() && batch.count < kBatchLines) {
            Line& line = nextLine(batch);
            const char* p = m_unread.data() + m_taken;
            const char* nl = scan::splitApiLineIn<Block>(p, m_unread.data() + m_unread.size(),
                                                         line.api, line.params);
            if (nl != nullptr && keepsViews(batch)) {
                // (From the pointers at hand: a 16-byte load of the view just written as two
                // 8-byte halves would wait for them to reach the cache.)
                line.text = std::string_view(p, static_cast<size_t>(nl - p));
                line.number = m_cursorNumber + ++m_takenLines;
                line.split = true;
                m_taken = static_cast<size_t>(nl + 1 - m_unread.data());
                ++batch.count;
                seen = false;
                continue;
            }
        }
        std::string_view text;
        uint64_t number = 0;
        if (m_pending) {
            m_pending = false;
            text = m_pendingText;
            number = m_pendingNumber;
        } else {
            std::string_view raw;
            if (!nextRaw(raw, number)) {
                batch.error = m_cursor->error();
                break;
            }
            seen = true;
            seenNumber = number;
            text = trimText(raw);
            if (text.empty()) continue;
            if (text.front() == '=') break;
        }
        seen = false;
        if (!add(batch, text, number)) {
            m_pending = true;
            m_pendingText = text;
            m_pendingNumber = number;
            return true;
        }
    }
    batch.end = true;
    batch.ended = seen;
    batch.endNumber = seenNumber;
    return false;
}

// Whether the batch may keep views of the lines in the cursor's buffer: they stay, or the batch
// holds the buffer (taken here). False once a buffer could not be held: the lines are copied
// from then on.
bool ReadAhead::keepsViews(Batch& batch) {
    if (m_copy) return false;
    if (m_linesStay) return true;
    if (batch.holds.empty() || m_serial != batch.heldSerial) {
        std::shared_ptr<const void> hold = m_cursor->holdBuffer();
        if (!hold) {
            m_copy = true;
            return false;
        }
        batch.holds.push_back(std::move(hold));
        batch.heldSerial = m_serial;
    }
    return true;
}

// The batch's next line, its parameter list empty.
ReadAhead::Line& ReadAhead::nextLine(Batch& batch) {
    Line& line = batch.lines[batch.count];
    line.params.clear();
    // (Room for the usual lists at once: the lists go round between the lines and the parsing
    // thread's records, and would grow again and again from small ones.)
    if (line.params.capacity() < kLineParams) line.params.reserve(kLineParams);
    return line;
}

// False when the batch is full (the line goes into the next one).
bool ReadAhead::add(Batch& batch, std::string_view text, uint64_t number) {
    if (batch.count == kBatchLines) return false;
    if (!keepsViews(batch)) {
        if (batch.text.capacity() < kBatchBytes) batch.text.reserve(kBatchBytes);
        if (batch.text.size() + text.size() > batch.text.capacity()) {
            if (batch.count > 0) return false;
            batch.text.reserve(text.size());  // a long line alone in a batch
        }
        const size_t at = batch.text.size();
        batch.text.append(text);
        text = std::string_view(batch.text.data() + at, text.size());
    }
    Line& line = nextLine(batch);
    ++batch.count;
    line.text = text;
    line.number = number;
    line.split = scan::parseApiText(text, line.api);
    if (line.split) scan::appendParams(line.api.params, line.params, line.api.line);
    return true;
}

}  // namespace perfmarker::atp::detail
