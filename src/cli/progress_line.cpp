#include "cli/progress_line.h"

#include <cstdio>

namespace perfmarker::cli {

ProgressLine::ProgressLine(bool requested, bool terminal)
    : m_enabled(requested || terminal), m_terminal(terminal) {}

ProgressLine::~ProgressLine() { finish(); }

void ProgressLine::update(long pid, uint64_t done, uint64_t total) {
    if (!m_enabled) return;
    const int percent = total == 0 ? 100 : static_cast<int>(done * 100 / total);
    if (pid != m_pid) {
        m_pid = pid;
        m_lastPercent = -1;
    }
    // On a terminal redraw at every percent; in a log only every 10%.
    const int step = m_terminal ? 1 : 10;
    if (m_lastPercent >= 0 && percent / step == m_lastPercent / step) return;
    m_lastPercent = percent;
    const double mib = static_cast<double>(total) / (1024.0 * 1024.0);
    std::fprintf(stderr, "%sperfmarker: merging process %ld: %3d%% of %.1f MiB%s",
                 m_terminal ? "\r" : "", pid, percent, mib, m_terminal ? "" : "\n");
    std::fflush(stderr);
    m_drawn = m_terminal;
}

void ProgressLine::finish() {
    if (m_drawn) std::fputc('\n', stderr);
    m_drawn = false;
}

}  // namespace perfmarker::cli
