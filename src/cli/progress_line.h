// The "merging" progress line on stderr: redrawn in place on a terminal, one line per 10% step
// otherwise (only when asked for with --progress). Silent when disabled.
#pragma once

#include <cstdint>

namespace perfmarker::cli {

class ProgressLine {
public:
    // requested: --progress was given; terminal: stderr is a tty (then on by default).
    ProgressLine(bool requested, bool terminal);
    ~ProgressLine();
    ProgressLine(const ProgressLine&) = delete;
    ProgressLine& operator=(const ProgressLine&) = delete;

    void update(long pid, uint64_t done, uint64_t total);
    void finish();  // ends a line drawn in place

private:
    bool m_enabled;
    bool m_terminal;
    bool m_drawn = false;
    long m_pid = -1;
    int m_lastPercent = -1;
};

}  // namespace perfmarker::cli
