// The ActivityLogger C API: a thin facade over the process-wide marker core, plus the
// profiling control of the loaded tracing agents.

// The library defines the functions the header's fast path wraps.
#define PERFMARKER_NO_INLINE_FAST_PATH
#include "ActivityLogger.h"

#include "markers/marker_core.h"
#include "markers/profile_control.h"

namespace {

using perfmarker::markers::MarkerCore;

perfmarker::markers::GlobalCore g_core(perfmarker::markers::kActivityLogger,
                                       &perfmarker_al_idle_code);

// Out of line so the idle path of the exported functions needs no stack frame; reached by a
// tail jump when recording.
[[gnu::noinline]] int recordBegin(MarkerCore* core, const char* name, const char* group,
                                  const char* userString) {
    return core->recordBegin(name, group, userString);
}
[[gnu::noinline]] int recordEnd(MarkerCore* core) { return core->recordEnd(); }

}  // namespace

extern "C" {

// The header's fast-path word (0 while recording, else the idle code); see GlobalCore.
AL_EXPORT int perfmarker_al_idle_code = perfmarker::markers::kUninitialized;

AL_EXPORT int AL_API_CALL amdtInitializeActivityLogger(void) {
    return g_core.initialize([] { g_core.flushAtExit(); });
}

AL_EXPORT int AL_API_CALL amdtBeginMarker(const char* szMarkerName, const char* szGroupName,
                                          const char* szUserString) {
    MarkerCore* core = g_core.get();
    if (PERFMARKER_UNLIKELY(!MarkerCore::isRecording(core))) return MarkerCore::idleCode(core);
    return recordBegin(core, szMarkerName, szGroupName, szUserString);
}

AL_EXPORT int AL_API_CALL amdtEndMarker(void) {
    MarkerCore* core = g_core.get();
    if (PERFMARKER_UNLIKELY(!MarkerCore::isRecording(core))) return MarkerCore::idleCode(core);
    return recordEnd(core);
}

AL_EXPORT int AL_API_CALL amdtEndMarkerEx(const char* szMarkerName, const char* szGroupName,
                                          const char* szUserString) {
    MarkerCore* core = g_core.get();
    if (!MarkerCore::isRecording(core)) return MarkerCore::idleCode(core);
    return core->recordEndEx(szMarkerName, szGroupName, szUserString);
}

AL_EXPORT int AL_API_CALL amdtFinalizeActivityLogger(void) { return g_core.finalize(); }

AL_EXPORT int AL_API_CALL amdtStopProfiling(amdtProfilingControlMode mode) {
    return perfmarker::markers::controlProfiling(mode, true);
}

AL_EXPORT int AL_API_CALL amdtResumeProfiling(amdtProfilingControlMode mode) {
    return perfmarker::markers::controlProfiling(mode, false);
}

AL_EXPORT int AL_API_CALL amdtStopProfilingEx(void) {
    return perfmarker::markers::controlProfiling(AMDT_CPU_PROFILING, true);
}

AL_EXPORT int AL_API_CALL amdtResumeProfilingEx(void) {
    return perfmarker::markers::controlProfiling(AMDT_CPU_PROFILING, false);
}

}  // extern "C"
