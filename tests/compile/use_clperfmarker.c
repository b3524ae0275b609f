/*
 * Compile test of CLPerfMarker.h: uses every function and every code the way an application
 * would. Built as C99, C++11 and C++17 with -Wall -Wextra -Werror -pedantic; never run.
 */
#include <CLPerfMarker.h>
#include <CLPerfMarker.h> /* the include guard must make a second inclusion harmless */
#include <stddef.h>

int perfmarkerUseClPerfMarker(void);

int perfmarkerUseClPerfMarker(void) {
    /* Every function, through a pointer of exactly its documented type. */
    int(AP_API_CALL * initialize)(void) = clInitializePerfMarkerAMD;
    int(AP_API_CALL * begin)(const char*, const char*) = clBeginPerfMarkerAMD;
    int(AP_API_CALL * end)(void) = clEndPerfMarkerAMD;
    int(AP_API_CALL * finalize)(void) = clFinalizePerfMarkerAMD;

    /* Every code, usable in integer constant expressions. */
    static const int kCodes[] = {
        AP_SUCCESS,
        AP_UNINITIALIZED_PERF_MARKER,
        AP_FINALIZED_PERF_MARKER,
        AP_UNBALANCED_MARKER,
        AP_APP_PROFILER_NOT_DETECTED,
        AP_NULL_MARKER_NAME,
        AP_INTERNAL_ERROR,
        AP_OUT_OF_MEMORY,
        AP_FAILED_TO_OPEN_OUTPUT_FILE,
    };
    int failures = 0;
    size_t i;

    switch (initialize()) {
        case AP_SUCCESS:
            break;
        case AP_APP_PROFILER_NOT_DETECTED:
            return 0;
        default:
            return -1;
    }
    failures += begin("Marker", "Group") != AP_SUCCESS;
    failures += clBeginPerfMarkerAMD("Nested", NULL) != AP_SUCCESS;
    failures += end() != AP_SUCCESS;
    failures += clEndPerfMarkerAMD() != AP_SUCCESS;
    failures += finalize() != AP_SUCCESS;
    for (i = 0; i < sizeof kCodes / sizeof kCodes[0]; ++i) {
        failures += kCodes[i] > 0;
    }
    return failures;
}
