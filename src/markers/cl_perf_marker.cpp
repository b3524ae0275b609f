// The CLPerfMarker C API: a thin facade over one process-wide MarkerCore.
#include "CLPerfMarker.h"

#include <cstdlib>

#include "markers/marker_core.h"

namespace {

using perfmarker::markers::MarkerCore;

// Never destroyed: threads may still call in while the process exits.
MarkerCore& core() {
    static MarkerCore* instance = new MarkerCore(perfmarker::markers::kCLPerfMarker);
    return *instance;
}

}  // namespace

extern "C" {

AP_EXPORT int AP_API_CALL clInitializePerfMarkerAMD(void) {
    const int code = core().initialize();
    static bool registered = false;
    if (code == AP_SUCCESS && !registered) {
        registered = true;
        std::atexit([] { core().flush(); });  // exit without finalize keeps the fragments
    }
    return code;
}

AP_EXPORT int AP_API_CALL clBeginPerfMarkerAMD(const char* szMarkerName, const char* szGroupName) {
    return core().begin(szMarkerName, szGroupName, nullptr);
}

AP_EXPORT int AP_API_CALL clEndPerfMarkerAMD(void) { return core().end(); }

AP_EXPORT int AP_API_CALL clFinalizePerfMarkerAMD(void) { return core().finalize(); }

}  // extern "C"
