#include "control.h"

#include "agent_exports.h"

namespace perfmarker::cltrace {

std::atomic<bool> g_paused{false};

}  // namespace perfmarker::cltrace

using perfmarker::cltrace::g_paused;

extern "C" {

void amdtCodeXLStopProfiling(void) { g_paused.store(true, std::memory_order_relaxed); }

void amdtCodeXLResumeProfiling(void) { g_paused.store(false, std::memory_order_relaxed); }

int perfmarkerAgentIsPaused(void) { return g_paused.load(std::memory_order_relaxed) ? 1 : 0; }

}  // extern "C"
