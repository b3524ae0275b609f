/*
 * Compile test of ActivityLogger.h: uses every function, every code and the control modes the
 * way an application would (and amdtScopedMarker when compiled as C++). Built as C99, C++11 and
 * C++17 with -Wall -Wextra -Werror -pedantic; never run.
 */
#include <ActivityLogger.h>
#include <ActivityLogger.h> /* the include guard must make a second inclusion harmless */
#include <stddef.h>

int perfmarkerUseActivityLogger(void);

int perfmarkerUseActivityLogger(void) {
    /* Every function, through a pointer of exactly its documented type. */
    int(AL_API_CALL * initialize)(void) = amdtInitializeActivityLogger;
    int(AL_API_CALL * begin)(const char*, const char*, const char*) = amdtBeginMarker;
    int(AL_API_CALL * end)(void) = amdtEndMarker;
    int(AL_API_CALL * endEx)(const char*, const char*, const char*) = amdtEndMarkerEx;
    int(AL_API_CALL * finalize)(void) = amdtFinalizeActivityLogger;
    int(AL_API_CALL * stop)(amdtProfilingControlMode) = amdtStopProfiling;
    int(AL_API_CALL * resume)(amdtProfilingControlMode) = amdtResumeProfiling;
    int(AL_API_CALL * stopEx)(void) = amdtStopProfilingEx;
    int(AL_API_CALL * resumeEx)(void) = amdtResumeProfilingEx;

    /* Every code and mode, usable in integer constant expressions. */
    static const int kCodes[] = {
        AL_SUCCESS,
        AL_UNINITIALIZED_ACTIVITY_LOGGER,
        AL_FINALIZED_ACTIVITY_LOGGER,
        AL_UNBALANCED_MARKER,
        AL_GPU_PROFILER_NOT_DETECTED,
        AL_APP_PROFILER_NOT_DETECTED,
        AL_CODEXL_GPU_PROFILER_NOT_DETECTED,
        AL_NULL_MARKER_NAME,
        AL_INTERNAL_ERROR,
        AL_OUT_OF_MEMORY,
        AL_FAILED_TO_OPEN_OUTPUT_FILE,
        AL_FAILED_TO_ATTACH_TO_PROFILER,
        AL_WARN_PROFILE_ALREADY_RESUMED,
        AL_WARN_PROFILE_ALREADY_PAUSED,
        AL_GPU_PROFILER_MISMATCH,
    };
    static const amdtProfilingControlMode kModes[] = {
        AMDT_TRACE_PROFILING,
        AMDT_PERF_COUNTER_PROFILING,
        AMDT_CPU_PROFILING,
        AMDT_ALL_PROFILING,
    };
    int failures = 0;
    size_t i;

    switch (initialize()) {
        case AL_SUCCESS:
            break;
        case AL_GPU_PROFILER_NOT_DETECTED:
            return 0;
        default:
            return -1;
    }
    failures += begin("Marker", "Group", "#ff8800") != AL_SUCCESS;
    failures += amdtBeginMarker("Nested", NULL, NULL) != AL_SUCCESS;
    failures += endEx("Renamed", "Group", NULL) != AL_SUCCESS;
    failures += end() != AL_SUCCESS;
#ifdef __cplusplus
    {
        amdtScopedMarker scoped("Scoped");
        const amdtScopedMarker grouped("Grouped", "Group", "#00ff00");
        failures += scoped.result() != AL_SUCCESS;
        failures += grouped.result() != AL_SUCCESS;
    }
#endif
    for (i = 0; i < sizeof kModes / sizeof kModes[0]; ++i) {
        failures += stop(kModes[i]) != AL_SUCCESS;
        failures += resume(kModes[i]) != AL_SUCCESS;
    }
    failures += amdtStopProfiling(AMDT_TRACE_PROFILING) == AL_WARN_PROFILE_ALREADY_PAUSED;
    failures += amdtResumeProfiling(AMDT_TRACE_PROFILING) == AL_WARN_PROFILE_ALREADY_RESUMED;
    failures += stopEx() == AL_FAILED_TO_ATTACH_TO_PROFILER;
    failures += resumeEx() == AL_FAILED_TO_ATTACH_TO_PROFILER;
    for (i = 0; i < sizeof kCodes / sizeof kCodes[0]; ++i) {
        failures += kCodes[i] > 0;
    }
    return failures + (finalize() != AL_SUCCESS);
}
