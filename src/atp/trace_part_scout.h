// The second half of a large API Trace section's first pass, on a thread of its own (the
// first pass over an API section only counts its lines and checks its blocks, spec §1.3; the
// second core has nothing else to do meanwhile). Internal to src/atp.
//
// The part starts a scout at a line start C some way into the section, on a cursor of its own
// positioned there. The scout reads on from C as the first pass would, up to the first line
// that does not start with a plain byte (scan::plainStart(): a blank line, a section line), a
// line too long to read, or the end of the input; that is B. It does not know how the blocks
// stand at C, so it reads its first line that is a decimal number as a thread id and checks the
// blocks from there exactly as ThreadBlocks would (entry lines counted, not looked at). When
// the first pass reaches C, the part takes the scout's count and block state and the parser
// goes on at B, provided the first pass's own state at C agrees: the entries of the current
// block end exactly at the scout's first decimal line (or there is none, and the block goes on
// past B). Otherwise, or where the scout met a line ThreadBlocks would refuse, the first pass
// goes on line by line and finds the same thing itself: the records, warnings and errors are
// those of one pass.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>

#include "atp/trace_part_common.h"

namespace perfmarker::atp::detail {

class BlockScout {
public:
    struct Found {
        bool done = false;          // it read up to `end` (false: stopped, or no thread)
        int64_t end = 0;            // B: the offset of the first line not read
        uint64_t lines = 0;         // the lines from C to B
        uint64_t firstNumber = 0;   // of them, the index of the first decimal number
        bool anyNumber = false;     // (none: all of them are entries of one block)
        bool fits = false;          // from it on, the blocks are as ThreadBlocks reads them
        ThreadBlocks blocks;        // the blocks at B, read from the first decimal number on
    };

    // Starts the thread on `cursor`, whose next line starts at offset `start`; when no thread
    // can be started, found() tells nothing (done is false).
    BlockScout(std::unique_ptr<LineCursor> cursor, int64_t start);
    // Stops the thread, wherever it is, and waits for it.
    ~BlockScout();
    BlockScout(const BlockScout&) = delete;
    BlockScout& operator=(const BlockScout&) = delete;

    int64_t start() const { return m_start; }
    // Waits for the thread to finish its reading; what it found.
    const Found& found();

private:
    void run();

    std::unique_ptr<LineCursor> m_cursor;
    int64_t m_start;
    std::atomic<bool> m_stop{false};
    Found m_found;
    std::thread m_thread;  // last: started when everything else is ready
};

// How many first passes have gone on at a scout's end in this process (tests, diagnostics).
uint64_t scoutJumps();
void countScoutJump();

// The line start after the line that holds byte `offset`: the cursor (opened at `offset`) has
// given that line. False when there is none (the input ends first, or the cursor failed).
bool lineStartAfter(LineCursor& cursor, int64_t offset, int64_t& start);

}  // namespace perfmarker::atp::detail
