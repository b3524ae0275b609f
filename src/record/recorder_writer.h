// The recorder's writer (recorder.h): routes sealed chunks to their threads in sequence order,
// converts their timestamps to trace-clock nanoseconds, and appends them as blocks to the
// recorder's fragment file (timeout mode) or keeps them in memory (cached mode, or after a
// failed write); it also keeps the chunk pool topped up and retires threads that ended. Used
// under SharedState::flushMutex, by the writer thread and by flushes from other threads.
#pragma once

#include <cstddef>

#include "record/recorder_state.h"

namespace perfmarker::record {

class RecordWriter {
public:
    RecordWriter(SharedState& s, const RecorderOptions& o) : m_s(s), m_o(o) {}

    // Routes sealed chunks to their owners' pending lists and flushes what is in order.
    void acceptSealed(Chunk* const* chunks, size_t n);

    // Flushes every thread's committed records and retires exited threads. `final`: the flush
    // of a stopped recorder, after which no chunk arrives; one that never arrived (an internal
    // error) is reported, and the chunks after it are written all the same.
    void flushAll(bool final = false);

    // Keeps chunks ready so owners rarely allocate (and page-fault) themselves. The target
    // starts at one per thread (at least 4) and doubles whenever the writer finds the pool
    // drained, up to kMaxPoolTarget chunks (16 MB of 64 KB chunks) and half the memory cap: a
    // bursty producer gets a deeper pool, one that outruns the writer for good does not get
    // more memory, since more would not help.
    void topUpPool();

    // Appends the records a thread holds in memory to its fragment file (see
    // Recorder::spillToFragments). False when the write failed; the records stay in memory.
    bool spill(ThreadLog& log);

private:
    void processSealed(ThreadLog& log);

    // The final flush's check of one thread: its chunks held back behind one that never came.
    void flushPastGap(ThreadLog& log);

    void releaseSealedCurrent(ThreadLog& log);

    void retire(const std::shared_ptr<ThreadLog>& log, Chunk* cur);

    // A thread that ended handed over its last chunk `last`, now written out: its log leaves
    // the registry and every chunk it had goes back to the pool.
    void retireEnded(ThreadLog& log, Chunk* last);

    void finishRetiring(const std::shared_ptr<ThreadLog>& log);

    void recycle(Chunk* c);

    // Converts records [c.processed, end) to nanoseconds, packs them into one block
    // (fragments/packed_block.h) and writes it out, or keeps it in memory.
    void flushSpan(ThreadLog& log, Chunk& c, uint32_t end);

    // Packs the compact records from p[pos] on as marker words, up to `end` or the first that
    // needs more (another record, a slot the block has not defined, a tick conversion outside
    // the converter's last segment). Returns where it stopped.
    size_t packWords(ThreadLog::WriterSide& w, const unsigned char* p, size_t pos, size_t end);

    // Packs the API calls after the one at p[pos] (just added with addPayloadRecord; its kind
    // and payload size in `kindAndLen0`, as its header holds them) that have its header words
    // and its payload but for the end time, in one loop, up to `end` or the first that differs
    // (or needs a tick conversion outside the converter's last segment). Returns where it
    // stopped: the record after the last one packed.
    size_t packApiRun(unsigned char* p, size_t pos, size_t end, uint64_t kindAndLen0);

    // Keeps a thread's packed block in memory (cached mode, or a block the file did not take).
    static void keepInMemory(ThreadLog::WriterSide& w, const unsigned char* p, size_t n,
                             uint32_t records);

    // Timeout mode: adds a packed block of `log` to the blocks staged for the fragment file,
    // and writes them once they reach the batch size.
    void stage(ThreadLog& log, const unsigned char* p, size_t n, uint32_t records);

    // Appends the staged blocks to the fragment file in one write; when that fails (or the
    // writer is degraded) each block goes to its thread's memory instead. Nothing stays staged.
    void writeStaged();

    // Appends whole blocks, headers included, to the fragment file. A failed write is cut
    // back, so the file holds whole blocks only; the caller then keeps the blocks in memory.
    bool writeBlocks(const unsigned char* p, size_t n);

    bool openFragment(std::string& error);

    bool fail(const std::string& path, const std::string& error);

    SharedState& m_s;
    const RecorderOptions& m_o;
    size_t m_poolTarget = 0;
};

}  // namespace perfmarker::record
