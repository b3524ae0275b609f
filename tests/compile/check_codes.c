/*
 * The numeric values of every return code and profiling mode of both public headers, checked at
 * compile time (and listed at run time so that ctest has something to report). The values are
 * the ABI of the original libraries and must never change. Built as C99, C++11 and C++17.
 */
#include <ActivityLogger.h>
#include <CLPerfMarker.h>
#include <stdio.h>

/* C99 has no _Static_assert: a negative array size stops the build instead. */
#ifdef __cplusplus
#define PERFMARKER_CHECK_VALUE(name, value) static_assert((name) == (value), #name);
#else
#define PERFMARKER_CHECK_VALUE(name, value) \
    typedef char perfmarker_check_##name[((name) == (value)) ? 1 : -1];
#endif

#define PERFMARKER_EXPECTED_VALUES(X)          \
    X(AP_SUCCESS, 0)                           \
    X(AP_UNINITIALIZED_PERF_MARKER, -1)        \
    X(AP_FINALIZED_PERF_MARKER, -2)            \
    X(AP_UNBALANCED_MARKER, -3)                \
    X(AP_APP_PROFILER_NOT_DETECTED, -4)        \
    X(AP_NULL_MARKER_NAME, -5)                 \
    X(AP_INTERNAL_ERROR, -6)                   \
    X(AP_OUT_OF_MEMORY, -7)                    \
    X(AP_FAILED_TO_OPEN_OUTPUT_FILE, -8)       \
    X(AL_SUCCESS, 0)                           \
    X(AL_UNINITIALIZED_ACTIVITY_LOGGER, -1)    \
    X(AL_FINALIZED_ACTIVITY_LOGGER, -2)        \
    X(AL_UNBALANCED_MARKER, -3)                \
    X(AL_GPU_PROFILER_NOT_DETECTED, -4)        \
    X(AL_APP_PROFILER_NOT_DETECTED, -4)        \
    X(AL_CODEXL_GPU_PROFILER_NOT_DETECTED, -4) \
    X(AL_NULL_MARKER_NAME, -5)                 \
    X(AL_INTERNAL_ERROR, -6)                   \
    X(AL_OUT_OF_MEMORY, -7)                    \
    X(AL_FAILED_TO_OPEN_OUTPUT_FILE, -8)       \
    X(AL_FAILED_TO_ATTACH_TO_PROFILER, -9)     \
    X(AL_WARN_PROFILE_ALREADY_RESUMED, -10)    \
    X(AL_WARN_PROFILE_ALREADY_PAUSED, -11)     \
    X(AL_GPU_PROFILER_MISMATCH, -12)           \
    X(AMDT_TRACE_PROFILING, 1)                 \
    X(AMDT_PERF_COUNTER_PROFILING, 2)          \
    X(AMDT_CPU_PROFILING, 4)                   \
    X(AMDT_ALL_PROFILING, 7)

PERFMARKER_EXPECTED_VALUES(PERFMARKER_CHECK_VALUE)

/* The codes are plain ints (they are compared with the int results of the API). */
#ifdef __cplusplus
static_assert(sizeof(AP_SUCCESS) == sizeof(int) && sizeof(AL_SUCCESS) == sizeof(int), "int");
#else
typedef char perfmarker_check_codes_are_int
    [(sizeof(AP_SUCCESS) == sizeof(int) && sizeof(AL_SUCCESS) == sizeof(int)) ? 1 : -1];
#endif

struct PerfmarkerValue {
    const char* name;
    int value;
    int expected;
};

#define PERFMARKER_VALUE_ROW(name, value) {#name, (int)(name), value},

static const struct PerfmarkerValue kValues[] = {PERFMARKER_EXPECTED_VALUES(PERFMARKER_VALUE_ROW)};

int main(void) {
    size_t i;
    int failures = 0;
    for (i = 0; i < sizeof kValues / sizeof kValues[0]; ++i) {
        const int ok = kValues[i].value == kValues[i].expected;
        printf("%-40s %4d %s\n", kValues[i].name, kValues[i].value, ok ? "ok" : "WRONG");
        failures += !ok;
    }
    return failures == 0 ? 0 : 1;
}
