/* The public headers' inline fast path, seen from an application: the word the headers read
 * must follow the library's state in every kind of executable (position-independent, and
 * fixed-address, where the linker copies the word into the executable), and the inline calls
 * must answer what the exported functions answer.
 *
 * usage: fast_path_app <output base>   (exit status 0 when every check held) */
#include <stdio.h>
#include <stdlib.h>

#include "ActivityLogger.h"
#include "CLPerfMarker.h"

static int failures = 0;

static void check(int actual, int expected, const char* what, int line) {
    if (actual != expected) {
        fprintf(stderr, "line %d: %s = %d, expected %d\n", line, what, actual, expected);
        ++failures;
    }
}
#define CHECK(actual, expected) check((actual), (expected), #actual, __LINE__)

int main(int argc, char** argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: fast_path_app <output base>\n");
        return 2;
    }
    unsetenv("PERFMARKER_TMPDIR");
    unsetenv("PERFMARKER_INTERVAL_MS");
    unsetenv("PERFMARKER_MAX_MEMORY_MB");

    /* Before initialize. */
    CHECK(perfmarker_cl_idle_code, AP_UNINITIALIZED_PERF_MARKER);
    CHECK(perfmarker_al_idle_code, AL_UNINITIALIZED_ACTIVITY_LOGGER);
    CHECK(clBeginPerfMarkerAMD("a", "g"), AP_UNINITIALIZED_PERF_MARKER);
    CHECK((clBeginPerfMarkerAMD)("a", "g"), AP_UNINITIALIZED_PERF_MARKER);
    CHECK(amdtEndMarkerEx("a", "g", "u"), AL_UNINITIALIZED_ACTIVITY_LOGGER);
    CHECK((amdtEndMarkerEx)("a", "g", "u"), AL_UNINITIALIZED_ACTIVITY_LOGGER);

    /* No session: still idle. */
    unsetenv("PERFMARKER_OUTPUT");
    CHECK(amdtInitializeActivityLogger(), AL_GPU_PROFILER_NOT_DETECTED);
    CHECK(perfmarker_al_idle_code, AL_UNINITIALIZED_ACTIVITY_LOGGER);
    CHECK(amdtBeginMarker("a", "g", "u"), AL_UNINITIALIZED_ACTIVITY_LOGGER);
    CHECK((amdtBeginMarker)("a", "g", "u"), AL_UNINITIALIZED_ACTIVITY_LOGGER);

    /* A session: the word says "recording" and the calls reach the library. */
    setenv("PERFMARKER_OUTPUT", argv[1], 1);
    setenv("PERFMARKER_MODE", "cached", 1);
    CHECK(clInitializePerfMarkerAMD(), AP_SUCCESS);
    CHECK(amdtInitializeActivityLogger(), AL_SUCCESS);
    CHECK(perfmarker_cl_idle_code, 0);
    CHECK(perfmarker_al_idle_code, 0);
    CHECK(clBeginPerfMarkerAMD("inline", "g"), AP_SUCCESS);
    CHECK((clBeginPerfMarkerAMD)("called", "g"), AP_SUCCESS);
    CHECK(clEndPerfMarkerAMD(), AP_SUCCESS);
    CHECK((clEndPerfMarkerAMD)(), AP_SUCCESS);
    CHECK(clEndPerfMarkerAMD(), AP_UNBALANCED_MARKER);
    CHECK(clBeginPerfMarkerAMD(NULL, "g"), AP_NULL_MARKER_NAME);
    CHECK(amdtBeginMarker("inline", "g", "#ff0000"), AL_SUCCESS);
    CHECK(amdtEndMarkerEx("done", "g", NULL), AL_SUCCESS);
    CHECK(amdtEndMarker(), AL_UNBALANCED_MARKER);

    /* Finalized: the word carries the finalized codes. */
    CHECK(clFinalizePerfMarkerAMD(), AP_SUCCESS);
    CHECK(amdtFinalizeActivityLogger(), AL_SUCCESS);
    CHECK(perfmarker_cl_idle_code, AP_FINALIZED_PERF_MARKER);
    CHECK(perfmarker_al_idle_code, AL_FINALIZED_ACTIVITY_LOGGER);
    CHECK(clBeginPerfMarkerAMD("late", "g"), AP_FINALIZED_PERF_MARKER);
    CHECK((clBeginPerfMarkerAMD)("late", "g"), AP_FINALIZED_PERF_MARKER);
    CHECK(clEndPerfMarkerAMD(), AP_FINALIZED_PERF_MARKER);
    CHECK(amdtBeginMarker("late", "g", NULL), AL_FINALIZED_ACTIVITY_LOGGER);
    CHECK(amdtEndMarker(), AL_FINALIZED_ACTIVITY_LOGGER);
    CHECK((amdtEndMarker)(), AL_FINALIZED_ACTIVITY_LOGGER);
    return failures == 0 ? 0 : 1;
}
