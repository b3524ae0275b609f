// The layer's process-wide state besides the shared life cycle (agent_lifecycle.h: session,
// recorder, pause, exit flush and merge): which slots it intercepts and records, and its init at
// the loader's clInitLayer.
#pragma once

#include <cstdint>

#include "agent_lifecycle.h"
#include "cl_api.h"

namespace perfmarker::cltrace {

// The session's recorder (null: every wrapper is a pure pass-through) and the paused flag.
using hooks::g_recorder;
using hooks::isPaused;

// Per dispatch slot: intercepted at all (an API filter can leave a slot pointing at the next
// layer), and recorded (the special-case APIs a filter names are intercepted, not recorded).
bool isSlotIntercepted(unsigned slot);

// The special-case slots an API filter names. Written by initAgent before the loader routes
// any call to the layer, then only read (inline, by every wrapper while a session is on).
extern bool g_slotUnrecorded[kDispatchSlotCount];
inline bool isSlotRecorded(unsigned slot) {
    return slot < kDispatchSlotCount && !g_slotUnrecorded[slot];
}

// Starts the shared life cycle and, with a session, applies the API filter. Idempotent.
void initAgent();

}  // namespace perfmarker::cltrace
