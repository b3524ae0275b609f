// Consumer of the installed ActivityLogger library. Checks the documented return codes:
//   consume_cpp none      no session in the environment
//   consume_cpp session   PERFMARKER_OUTPUT is set; writes <base>.amdtperfmarker
#include <ActivityLogger.h>

#include <cstdio>
#include <cstring>

namespace {

int g_failures = 0;

void expect(const char* call, int actual, int expected) {
    if (actual == expected) {
        std::printf("%-36s %d\n", call, actual);
    } else {
        ++g_failures;
        std::fprintf(stderr, "%-36s %d, expected %d\n", call, actual, expected);
    }
}

void withoutSession() {
    expect("amdtInitializeActivityLogger", amdtInitializeActivityLogger(),
           AL_GPU_PROFILER_NOT_DETECTED);
    {
        amdtScopedMarker scoped("Consume", "Consumer", "#ff8800");
        expect("amdtScopedMarker", scoped.result(), AL_UNINITIALIZED_ACTIVITY_LOGGER);
    }
    expect("amdtBeginMarker", amdtBeginMarker("Consume", nullptr, nullptr),
           AL_UNINITIALIZED_ACTIVITY_LOGGER);
    expect("amdtEndMarker", amdtEndMarker(), AL_UNINITIALIZED_ACTIVITY_LOGGER);
    expect("amdtFinalizeActivityLogger", amdtFinalizeActivityLogger(),
           AL_UNINITIALIZED_ACTIVITY_LOGGER);
}

void withSession() {
    expect("amdtInitializeActivityLogger", amdtInitializeActivityLogger(), AL_SUCCESS);
    {
        amdtScopedMarker scoped("Consume", "Consumer", "#ff8800");
        expect("amdtScopedMarker", scoped.result(), AL_SUCCESS);
        expect("amdtBeginMarker (nested)", amdtBeginMarker("Provisional", nullptr, nullptr),
               AL_SUCCESS);
        expect("amdtEndMarkerEx (rename)", amdtEndMarkerEx("Renamed", "Consumer", "#00ff00"),
               AL_SUCCESS);
        expect("amdtBeginMarker (nested)", amdtBeginMarker("Nested", nullptr, nullptr), AL_SUCCESS);
        expect("amdtEndMarker (nested)", amdtEndMarker(), AL_SUCCESS);
    }
    expect("amdtEndMarker (unbalanced)", amdtEndMarker(), AL_UNBALANCED_MARKER);
    expect("amdtFinalizeActivityLogger", amdtFinalizeActivityLogger(), AL_SUCCESS);
    expect("amdtFinalizeActivityLogger (again)", amdtFinalizeActivityLogger(),
           AL_FINALIZED_ACTIVITY_LOGGER);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2 || (std::strcmp(argv[1], "none") != 0 && std::strcmp(argv[1], "session") != 0)) {
        std::fprintf(stderr, "usage: %s none|session\n", argv[0]);
        return 2;
    }
    if (std::strcmp(argv[1], "session") == 0) {
        withSession();
    } else {
        withoutSession();
    }
    return g_failures == 0 ? 0 : 1;
}
