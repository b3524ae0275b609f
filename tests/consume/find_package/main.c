/*
 * Consumer of the installed CLPerfMarker library. Checks the documented return codes:
 *   consume_c none      no session in the environment
 *   consume_c session   PERFMARKER_OUTPUT is set; writes <base>.clperfmarker
 */
#include <CLPerfMarker.h>
#include <stdio.h>
#include <string.h>

static int g_failures;

static void expect(const char* call, int actual, int expected) {
    if (actual == expected) {
        printf("%-32s %d\n", call, actual);
    } else {
        ++g_failures;
        fprintf(stderr, "%-32s %d, expected %d\n", call, actual, expected);
    }
}

static void withoutSession(void) {
    expect("clInitializePerfMarkerAMD", clInitializePerfMarkerAMD(), AP_APP_PROFILER_NOT_DETECTED);
    expect("clBeginPerfMarkerAMD", clBeginPerfMarkerAMD("Consume", "Consumer"),
           AP_UNINITIALIZED_PERF_MARKER);
    expect("clEndPerfMarkerAMD", clEndPerfMarkerAMD(), AP_UNINITIALIZED_PERF_MARKER);
    expect("clFinalizePerfMarkerAMD", clFinalizePerfMarkerAMD(), AP_UNINITIALIZED_PERF_MARKER);
}

static void withSession(void) {
    expect("clInitializePerfMarkerAMD", clInitializePerfMarkerAMD(), AP_SUCCESS);
    expect("clBeginPerfMarkerAMD", clBeginPerfMarkerAMD("Consume", "Consumer"), AP_SUCCESS);
    expect("clBeginPerfMarkerAMD (nested)", clBeginPerfMarkerAMD("Nested", NULL), AP_SUCCESS);
    expect("clEndPerfMarkerAMD (nested)", clEndPerfMarkerAMD(), AP_SUCCESS);
    expect("clEndPerfMarkerAMD", clEndPerfMarkerAMD(), AP_SUCCESS);
    expect("clEndPerfMarkerAMD (unbalanced)", clEndPerfMarkerAMD(), AP_UNBALANCED_MARKER);
    expect("clFinalizePerfMarkerAMD", clFinalizePerfMarkerAMD(), AP_SUCCESS);
    expect("clFinalizePerfMarkerAMD (again)", clFinalizePerfMarkerAMD(), AP_FINALIZED_PERF_MARKER);
}

int main(int argc, char** argv) {
    if (argc != 2 || (strcmp(argv[1], "none") != 0 && strcmp(argv[1], "session") != 0)) {
        fprintf(stderr, "usage: %s none|session\n", argv[0]);
        return 2;
    }
    if (strcmp(argv[1], "session") == 0) {
        withSession();
    } else {
        withoutSession();
    }
    return g_failures == 0 ? 0 : 1;
}
