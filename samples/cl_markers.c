/*
 * cl_markers: the CLPerfMarker API from a C99 program.
 *
 * A few "phases" of busy work, labelled with nested markers in several groups. Run it under a
 * perfmarker session to get a marker file (see docs/session.md):
 *
 *   PERFMARKER_OUTPUT=/tmp/demo ./cl_markers      # writes /tmp/demo.clperfmarker
 *
 * Without a session every call returns quickly, nothing is written, and the program still
 * succeeds.
 */
#include <CLPerfMarker.h>
#include <stdio.h>

static int g_sessionActive; /* clInitializePerfMarkerAMD() returned AP_SUCCESS */
static int g_calls;
static int g_failures;

static const char* codeName(int code) {
    switch (code) {
        case AP_SUCCESS:
            return "AP_SUCCESS";
        case AP_UNINITIALIZED_PERF_MARKER:
            return "AP_UNINITIALIZED_PERF_MARKER";
        case AP_FINALIZED_PERF_MARKER:
            return "AP_FINALIZED_PERF_MARKER";
        case AP_UNBALANCED_MARKER:
            return "AP_UNBALANCED_MARKER";
        case AP_APP_PROFILER_NOT_DETECTED:
            return "AP_APP_PROFILER_NOT_DETECTED";
        case AP_NULL_MARKER_NAME:
            return "AP_NULL_MARKER_NAME";
        case AP_INTERNAL_ERROR:
            return "AP_INTERNAL_ERROR";
        case AP_OUT_OF_MEMORY:
            return "AP_OUT_OF_MEMORY";
        case AP_FAILED_TO_OPEN_OUTPUT_FILE:
            return "AP_FAILED_TO_OPEN_OUTPUT_FILE";
        default:
            return "unknown code";
    }
}

/* Under a session every marker call must succeed; without one they all report that the
 * library is not initialized. */
static void expectMarkerCall(const char* call, const char* name, int code) {
    int expected = g_sessionActive ? AP_SUCCESS : AP_UNINITIALIZED_PERF_MARKER;
    ++g_calls;
    if (code != expected) {
        ++g_failures;
        fprintf(stderr, "cl_markers: %s(\"%s\") returned %s (%d), expected %s\n", call, name,
                codeName(code), code, codeName(expected));
    }
}

static void begin(const char* name, const char* group) {
    expectMarkerCall("clBeginPerfMarkerAMD", name, clBeginPerfMarkerAMD(name, group));
}

static void end(const char* name) {
    expectMarkerCall("clEndPerfMarkerAMD", name, clEndPerfMarkerAMD());
}

/* Stands in for real work so that the markers have some width on a timeline. */
static double busyWork(long iterations) {
    volatile double sum = 0.0;
    long i;
    for (i = 1; i <= iterations; ++i) {
        sum += 1.0 / (double)i;
    }
    return sum;
}

static void setupPhase(void) {
    begin("Setup", "Host");
    begin("Parse arguments", NULL);
    busyWork(20000);
    end("Parse arguments");
    begin("Allocate buffers", NULL);
    busyWork(50000);
    end("Allocate buffers");
    end("Setup");
}

static void computePhase(void) {
    static const char* const kFrameNames[] = {"Frame 0", "Frame 1", "Frame 2"};
    size_t frame;
    begin("Compute", "Device Work"); /* a group name with a space */
    for (frame = 0; frame < sizeof kFrameNames / sizeof kFrameNames[0]; ++frame) {
        begin(kFrameNames[frame], NULL);
        begin("Kernel", NULL);
        busyWork(100000);
        end("Kernel");
        begin("Readback", NULL);
        busyWork(30000);
        end("Readback");
        end(kFrameNames[frame]);
    }
    end("Compute");
}

static void outputPhase(void) {
    begin("Write results", "IO");
    busyWork(40000);
    end("Write results");
    begin("Teardown", ""); /* "" means the "Default" group */
    busyWork(10000);
    end("Teardown");
}

int main(void) {
    int code = clInitializePerfMarkerAMD();
    printf("clInitializePerfMarkerAMD: %s (%d)\n", codeName(code), code);
    if (code == AP_SUCCESS) {
        g_sessionActive = 1;
    } else if (code == AP_APP_PROFILER_NOT_DETECTED) {
        printf(
            "No profiler session detected: markers are not recorded.\n"
            "Set PERFMARKER_OUTPUT=<base path> to record them (see docs/session.md).\n");
    } else {
        fprintf(stderr, "cl_markers: unexpected result of clInitializePerfMarkerAMD\n");
        return 1;
    }

    setupPhase();
    computePhase();
    outputPhase();
    printf("%d marker calls, %d unexpected results\n", g_calls, g_failures);

    code = clFinalizePerfMarkerAMD();
    printf("clFinalizePerfMarkerAMD: %s (%d)\n", codeName(code), code);
    if (g_sessionActive && code != AP_SUCCESS) {
        ++g_failures;
    }
    return g_failures == 0 ? 0 : 1;
}
