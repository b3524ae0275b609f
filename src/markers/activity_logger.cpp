// The ActivityLogger C API: a thin facade over one process-wide MarkerCore plus the profiling
// control of the loaded agents.
#include "ActivityLogger.h"

#include <cstdlib>

#include "markers/marker_core.h"
#include "markers/profile_control.h"

namespace {

using perfmarker::markers::MarkerCore;

// Never destroyed: threads may still call in while the process exits.
MarkerCore& core() {
    static MarkerCore* instance = new MarkerCore(perfmarker::markers::kActivityLogger);
    return *instance;
}

}  // namespace

extern "C" {

AL_EXPORT int AL_API_CALL amdtInitializeActivityLogger(void) {
    const int code = core().initialize();
    static bool registered = false;
    if (code == AL_SUCCESS && !registered) {
        registered = true;
        std::atexit([] { core().flush(); });  // exit without finalize keeps the fragments
    }
    return code;
}

AL_EXPORT int AL_API_CALL amdtBeginMarker(const char* szMarkerName, const char* szGroupName,
                                          const char* szUserString) {
    return core().begin(szMarkerName, szGroupName, szUserString);
}

AL_EXPORT int AL_API_CALL amdtEndMarker(void) { return core().end(); }

AL_EXPORT int AL_API_CALL amdtEndMarkerEx(const char* szMarkerName, const char* szGroupName,
                                          const char* szUserString) {
    return core().endEx(szMarkerName, szGroupName, szUserString);
}

AL_EXPORT int AL_API_CALL amdtFinalizeActivityLogger(void) { return core().finalize(); }

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
