// Runtime control of the agent: the paused flag (spec §7.4).
#pragma once

#include <atomic>

namespace perfmarker::cltrace {

// Set by amdtCodeXLStopProfiling, cleared by amdtCodeXLResumeProfiling. Only ever read and
// written with relaxed ordering: it publishes no data, and a call racing with a pause may be
// recorded or not.
extern std::atomic<bool> g_paused;

inline bool isPaused() { return g_paused.load(std::memory_order_relaxed); }

}  // namespace perfmarker::cltrace
