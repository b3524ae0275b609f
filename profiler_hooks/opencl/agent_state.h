// The agent's process-wide state: the session it records for (or none), its recorder, which
// slots it intercepts and records, and its life cycle (init at the loader's clInitLayer, flush
// at exit, the merge call point at unload).
#pragma once

#include <cstdint>

#include "cl_api.h"
#include "record/recorder.h"

namespace perfmarker::cltrace {

// The recorder of the session; null when the process has no (valid) session, and then every
// wrapper is a pure pass-through. Written once by initAgent, before the loader routes any call
// to the layer (the loader initializes under its own lock), then only read.
extern record::Recorder* g_recorder;

// Per dispatch slot: intercepted at all (an API filter can leave a slot pointing at the next
// layer), and recorded (the must-intercept APIs a filter names are intercepted, not recorded).
bool isSlotIntercepted(unsigned slot);

// The must-intercept slots an API filter names. Written by initAgent before the loader routes
// any call to the layer, then only read (inline, by every wrapper while a session is on).
extern bool g_slotUnrecorded[kDispatchSlotCount];
inline bool isSlotRecorded(unsigned slot) {
    return slot < kDispatchSlotCount && !g_slotUnrecorded[slot];
}

// Reads the session and, when there is one, creates the recorder, applies the API filter and
// the start-disabled / delay / duration controls and registers the exit flush. Idempotent.
void initAgent();

// The exit flush (also run by the unload hook if exit did not run it): finishes every live
// queue so each command's device times are recorded, then stops the recorder (fragments
// written). Idempotent.
void flushAtExit();

// The unload hook's work: after every atexit handler (so the marker libraries have flushed
// too), merges this process's fragments into the .atp.
void finishProcessTrace();

}  // namespace perfmarker::cltrace
