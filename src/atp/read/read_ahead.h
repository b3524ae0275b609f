// Reading an API Trace section again on a second thread, ahead of the Timestamp section it is
// joined with (parts/joined_sections.h): the reader's one speed-up beside the byte scanning,
// started and stopped by the parser (SectionContext::readAhead()). Internal to src/atp/read.
//
// The thread takes the lines of the section from a LineCursor (trimmed, blank lines left out,
// up to the next section line or the end of the input), splits each one that is an API line
// (scan::splitApiLineIn() where it can, straight from the cursor's buffer; else
// scan::parseApiText(), scan::appendParams()) and hands them over in batches through a queue of
// kBatches; the parsing thread takes them in order. A batch keeps the cursor's buffers its lines
// lie in (LineCursor::holdBuffer()), so that the text is not copied; only the lines of a cursor
// that cannot hold its buffers are copied into the batch. Memory is bounded by the batches and
// the buffers they hold, never by the section. The thread only reads: what a line means (block
// structure, errors, records) is decided on the parsing thread, from the same lines in the same
// order as without it.
//
// Concurrency: a batch belongs to the reading thread from the free list until it is queued,
// then to the parsing thread until it goes back to the free list; m_mutex guards the two lists
// and m_stop, and each hand-over through it orders the writes to a batch before its reads. A
// thread that finds no batch for it first waits a little without sleeping (spin(), on the list
// sizes kept in atomics), then on a condition variable.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "atp/read/trace_parser.h"
#include "atp/read/api_line_scan.h"

namespace perfmarker::atp::detail {

class ReadAhead {
public:
    // One line of the section, as BlockCursor would have read it.
    struct Line {
        std::string_view text;  // trimmed, not blank
        uint64_t number = 0;
        bool split = false;  // an API line: `api` and `params` are set
        scan::ApiText api;
        // The parameters (scan::appendParams()). The parsing thread may swap them for a list of
        // its own (the line is used again for a later one, its list with it).
        std::vector<std::string_view> params;
    };

    static constexpr size_t kBatches = 4;
    static constexpr size_t kBatchBytes = size_t{256} << 10;  // of copied text
    static constexpr size_t kBatchLines = 4096;
    static constexpr size_t kLineParams = 16;  // room for parameters of each line

    // Starts the thread on `cursor` and takes it; when no thread can be started, leaves it
    // where it is and started() is false.
    explicit ReadAhead(std::unique_ptr<LineCursor>& cursor);
    ~ReadAhead() { stop(); }
    // Stops the thread (it may be waiting for a free batch, or reading) and waits for it; the
    // parser does so when the input is done with (SectionContext::readAhead()). Nothing may be
    // read after it.
    void stop();
    bool started() const { return m_thread.joinable(); }
    ReadAhead(const ReadAhead&) = delete;
    ReadAhead& operator=(const ReadAhead&) = delete;

    // The next line; valid until the next call. Null at the end of the section: then
    // lastNumber() is the number of the last line the cursor gave (a blank one, or the next
    // section line, included; false when it gave none since the previous line) and error()
    // is the cursor's error, empty at the section's end. An exception of the reading thread
    // (no memory for a long line) is thrown here, where the line it failed on would be.
    Line* next();
    // The next line when the batch being read has one (no waiting), else null: then next().
    Line* ready() {
        if (m_current == nullptr || m_index == m_current->count) return nullptr;
        return &m_current->lines[m_index++];
    }
    bool lastNumber(uint64_t& number) const;
    const std::string& error() const { return m_current->error; }

private:
    struct alignas(64) Batch {  // (one filled while the one before is read)
        std::string text;       // copies of the lines (m_copy), never reallocated
        std::vector<std::shared_ptr<const void>> holds;  // the cursor's buffers of the lines
        uint64_t heldSerial = 0;                          // the cursor's last one of them
        // kBatchLines lines, of which the first `count` are this batch's (the others are kept
        // for their parameter lists' memory).
        std::vector<Line> lines;
        size_t count = 0;
        bool end = false;    // the section ends after these lines
        bool ended = false;  // `endNumber` is set
        uint64_t endNumber = 0;
        std::string error;
        std::exception_ptr failure;
        void clear();
    };

    template <typename Ready>
    static void spin(Ready ready);
    void work();
    bool fill(Batch& batch);
    // fill() with the scan's Load64 or (PERFMARKER_SCAN_WIDE) Wide64 blocks.
    template <typename Block>
    [[gnu::always_inline]] inline bool fillIn(Batch& batch);
#if PERFMARKER_SCAN_WIDE
    bool fillWide(Batch& batch);
#endif
    [[gnu::always_inline]] inline bool keepsViews(Batch& batch);
    [[gnu::always_inline]] inline Line& nextLine(Batch& batch);
    [[gnu::always_inline]] inline bool nextRaw(std::string_view& raw, uint64_t& number);
    bool add(Batch& batch, std::string_view text, uint64_t number);
    Batch* takeFree();
    void queue(Batch* batch);

    // The members of each thread, and those they share, on cache lines of their own: a line
    // that one thread writes for every line of the section while the other reads it would
    // bounce between the cores.
    alignas(64) std::unique_ptr<LineCursor> m_cursor;  // used by the reading thread only
    bool m_linesStay;
    // The lines after the cursor's last one, found here (LineCursor::unread()): `m_taken` bytes
    // holding `m_takenLines` lines are taken, not yet passed over in the cursor.
    std::string_view m_unread;
    size_t m_taken = 0;
    uint64_t m_takenLines = 0;
    uint64_t m_cursorNumber = 0;  // of the cursor's last line
    uint64_t m_serial = 0;        // the cursor's bufferSerial() at its last line
    bool m_copy = false;  // lines neither stay nor can be held: copied into the batch's text
    // A line that did not fit into the previous batch (its view is still valid: the cursor has
    // not been asked again since).
    bool m_pending = false;
    std::string_view m_pendingText;
    uint64_t m_pendingNumber = 0;

    alignas(64) std::vector<std::unique_ptr<Batch>> m_batches;
    std::mutex m_mutex;  // guards m_free, m_ready, m_stop
    std::condition_variable m_freed;
    std::condition_variable m_queued;
    std::vector<Batch*> m_free;
    std::deque<Batch*> m_ready;
    bool m_stop = false;
    // The sizes of m_free and m_ready, read without the mutex while waiting (spin()).
    std::atomic<size_t> m_freeCount{0};
    std::atomic<size_t> m_readyCount{0};

    alignas(64) Batch* m_current = nullptr;  // the parsing thread's batch
    size_t m_index = 0;
    std::thread m_thread;  // last: started when everything else is ready
};

}  // namespace perfmarker::atp::detail
