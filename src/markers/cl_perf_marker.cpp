// The CLPerfMarker C API: a thin facade over the process-wide marker core.

// The library defines the functions the header's fast path wraps.
#define PERFMARKER_NO_INLINE_FAST_PATH
#include "CLPerfMarker.h"

#include "markers/marker_core.h"

namespace {

using perfmarker::markers::MarkerCore;

perfmarker::markers::GlobalCore g_core(perfmarker::markers::kCLPerfMarker,
                                       &perfmarker_cl_idle_code);

// Out of line so the idle path of the exported functions needs no stack frame; reached by a
// tail jump when recording.
[[gnu::noinline]] int recordBegin(MarkerCore* core, const char* name, const char* group) {
    return core->recordBegin(name, group, nullptr);
}
[[gnu::noinline]] int recordEnd(MarkerCore* core) { return core->recordEnd(); }

}  // namespace

extern "C" {

// The header's fast-path word (0 while recording, else the idle code); see GlobalCore.
AP_EXPORT int perfmarker_cl_idle_code = perfmarker::markers::kUninitialized;

AP_EXPORT int AP_API_CALL clInitializePerfMarkerAMD(void) {
    return g_core.initialize([] { g_core.flushAtExit(); });
}

AP_EXPORT int AP_API_CALL clBeginPerfMarkerAMD(const char* szMarkerName, const char* szGroupName) {
    MarkerCore* core = g_core.get();
    if (PERFMARKER_UNLIKELY(!MarkerCore::isRecording(core))) return MarkerCore::idleCode(core);
    return recordBegin(core, szMarkerName, szGroupName);
}

AP_EXPORT int AP_API_CALL clEndPerfMarkerAMD(void) {
    MarkerCore* core = g_core.get();
    if (PERFMARKER_UNLIKELY(!MarkerCore::isRecording(core))) return MarkerCore::idleCode(core);
    return recordEnd(core);
}

AP_EXPORT int AP_API_CALL clFinalizePerfMarkerAMD(void) { return g_core.finalize(); }

}  // extern "C"
