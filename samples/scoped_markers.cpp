// scoped_markers: the ActivityLogger API from a multi-threaded C++17 program.
//
// Four worker threads label their work with amdtScopedMarker (nested markers, group names, user
// strings such as colors), and one marker is renamed when it ends (amdtEndMarkerEx). Run it under
// a perfmarker session to get a marker file (see docs/session.md):
//
//   PERFMARKER_OUTPUT=/tmp/demo ./scoped_markers   # writes /tmp/demo.amdtperfmarker
//
// Without a session every call returns quickly, nothing is written, and the program still
// succeeds.
#include <ActivityLogger.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr int kThreadCount = 4;
constexpr int kIterations = 3;

std::atomic<bool> g_sessionActive{false};
std::atomic<int> g_calls{0};
std::atomic<int> g_failures{0};

// Under a session every marker call must succeed; without one they all report that the logger
// is not initialized.
void expectMarkerCall(const char* what, int code) {
    const int expected = g_sessionActive ? AL_SUCCESS : AL_UNINITIALIZED_ACTIVITY_LOGGER;
    ++g_calls;
    if (code != expected) {
        ++g_failures;
        std::fprintf(stderr, "scoped_markers: %s returned %d, expected %d\n", what, code, expected);
    }
}

// Stands in for real work so that the markers have some width on a timeline.
double busyWork(long iterations) {
    volatile double sum = 0.0;
    for (long i = 1; i <= iterations; ++i) {
        sum = sum + 1.0 / static_cast<double>(i);
    }
    return sum;
}

void iteration(int index) {
    const std::string name = "Iteration " + std::to_string(index);
    amdtScopedMarker outer(name.c_str());  // nested: the group of the top-level marker applies
    expectMarkerCall("amdtBeginMarker(Iteration)", outer.result());
    {
        amdtScopedMarker compute("Compute", nullptr, "#ff8800");
        expectMarkerCall("amdtBeginMarker(Compute)", compute.result());
        busyWork(60000);
    }
    {
        amdtScopedMarker reduce("Reduce", nullptr, "#0088ff");
        expectMarkerCall("amdtBeginMarker(Reduce)", reduce.result());
        busyWork(20000);
    }
}

// Begins a marker under a provisional name and renames it once the outcome is known.
void renamedMarker() {
    expectMarkerCall("amdtBeginMarker(Load)", amdtBeginMarker("Load cache", "Startup", "#00aa00"));
    busyWork(30000);
    const bool cacheHit = busyWork(10) > 0.0;
    expectMarkerCall(
        "amdtEndMarkerEx",
        amdtEndMarkerEx(cacheHit ? "Load cache (hit)" : "Load cache (miss)", "Startup", "#00aa00"));
}

void worker(int index) {
    const std::string name = "Worker " + std::to_string(index);
    amdtScopedMarker thread(name.c_str(), "Workers", "#ff8800");
    expectMarkerCall("amdtBeginMarker(Worker)", thread.result());
    for (int i = 0; i < kIterations; ++i) {
        iteration(i);
    }
}

}  // namespace

int main() {
    int code = amdtInitializeActivityLogger();
    std::printf("amdtInitializeActivityLogger: %d\n", code);
    if (code == AL_SUCCESS) {
        g_sessionActive = true;
    } else if (code == AL_GPU_PROFILER_NOT_DETECTED) {
        std::printf(
            "No profiler session detected: markers are not recorded.\n"
            "Set PERFMARKER_OUTPUT=<base path> to record them (see docs/session.md).\n");
    } else {
        std::fprintf(stderr, "scoped_markers: unexpected result of amdtInitializeActivityLogger\n");
        return 1;
    }

    renamedMarker();
    std::vector<std::thread> threads;
    for (int i = 0; i < kThreadCount; ++i) {
        threads.emplace_back(worker, i);
    }
    for (std::thread& thread : threads) {
        thread.join();
    }
    std::printf("%d marker calls on %d threads, %d unexpected results\n", g_calls.load(),
                kThreadCount + 1, g_failures.load());

    code = amdtFinalizeActivityLogger();
    std::printf("amdtFinalizeActivityLogger: %d\n", code);
    if (g_sessionActive && code != AL_SUCCESS) {
        ++g_failures;
    }
    return g_failures == 0 ? 0 : 1;
}
