#include "agent_state.h"

#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>

#include "api/ocl_api.h"
#include "control.h"
#include "object_tracker.h"
#include "record/session.h"

#include "atp/merge/agent_registry.h"
#include "atp/merge/session_merge.h"

namespace perfmarker::cltrace {

record::Recorder* g_recorder = nullptr;
bool g_slotUnrecorded[kDispatchSlotCount] = {};  // intercepted, not recorded

namespace {

std::array<bool, kDispatchSlotCount> g_filtered{};  // not intercepted at all
// Never destroyed: the merge runs from an ELF destructor, after the library's own C++
// destructors have run.
record::SessionConfig& g_config = *new record::SessionConfig();
long g_initPid = 0;
std::once_flag g_initOnce;
std::once_flag g_flushOnce;

// APIs a filter cannot turn off: the agent needs them for object ids and names, the flush and
// the transparency of forced profiling (spec §3.6 names the first seven; the others keep the
// queue bookkeeping and the profiling masks right). They are intercepted but not recorded.
constexpr std::string_view kMustIntercept[] = {"clCreateContext",
                                               "clCreateContextFromType",
                                               "clCreateCommandQueue",
                                               "clCreateCommandQueueWithProperties",
                                               "clCreateKernelsInProgram",
                                               "clCreateKernel",
                                               "clReleaseContext",
                                               "clRetainCommandQueue",
                                               "clReleaseCommandQueue",
                                               "clGetCommandQueueInfo",
                                               "clSetCommandQueueProperty",
                                               "clGetEventProfilingInfo",
                                               "clCloneKernel"};

bool mustIntercept(std::string_view name) {
    for (std::string_view m : kMustIntercept) {
        if (m == name) return true;
    }
    return false;
}

std::string trimmed(const std::string& line) {
    const size_t begin = line.find_first_not_of(" \t\r");
    if (begin == std::string::npos) return {};
    return line.substr(begin, line.find_last_not_of(" \t\r") - begin + 1);
}

void applyApiFilter(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "perfmarker: cannot read the API filter file %s\n", path.c_str());
        return;
    }
    for (std::string line; std::getline(in, line);) {
        const std::string name = trimmed(line);
        const atp::ocl::ApiSpec* api = name.empty() ? nullptr : atp::ocl::apiByName(name);
        if (api == nullptr) continue;
        if (mustIntercept(name)) {
            g_slotUnrecorded[api->slot] = true;
        } else {
            g_filtered[api->slot] = true;
        }
    }
}

// Start-disabled, delay and duration (spec §7.1): the same pause flag the control entry points
// use. The timer thread only sleeps and flips the flag; it is detached and holds no resources,
// so process exit may end it anywhere.
void startControls(const record::SessionConfig& c) {
    if (c.startDisabled) {
        g_paused.store(true, std::memory_order_relaxed);
        return;
    }
    if (c.delayMs == 0 && c.durationMs == 0) return;
    if (c.delayMs > 0) g_paused.store(true, std::memory_order_relaxed);
    std::thread([delay = c.delayMs, duration = c.durationMs] {
        if (delay > 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(delay));
            g_paused.store(false, std::memory_order_relaxed);
        }
        if (duration > 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(duration));
            g_paused.store(true, std::memory_order_relaxed);
        }
    }).detach();
}

record::RecorderOptions recorderOptions(const record::SessionConfig& c, long pid) {
    record::RecorderOptions o;
    o.mode = c.mode;
    o.intervalMs = c.intervalMs;
    o.fragmentDir = atp::sessionTempDir(c, pid);
    o.fragmentTag = "ocl";
    o.maxMemoryBytes = size_t{c.maxMemoryMb} << 20;
    return o;
}

void exitHandler() { flushAtExit(); }

void initOnce() {
    const record::SessionResult session = record::readSession();
    if (session.status == record::SessionStatus::Absent) return;
    if (session.status == record::SessionStatus::Invalid) {
        std::fprintf(stderr, "perfmarker: OpenCL trace layer: invalid session, not tracing: %s\n",
                     session.error.c_str());
        return;
    }
    g_config = session.config;
    g_initPid = static_cast<long>(getpid());
    if (!g_config.apiFilterFile.empty()) applyApiFilter(g_config.apiFilterFile);
    startControls(g_config);
    g_recorder = new record::Recorder(recorderOptions(g_config, g_initPid));  // lives until exit
    std::string liveError;
    const std::string tempDir = atp::sessionTempDir(g_config, g_initPid);
    if (!atp::registerLiveAgent(tempDir, g_initPid, atp::kOclFragmentTag, liveError)) {
        std::fprintf(stderr, "perfmarker: OpenCL trace layer: %s\n", liveError.c_str());
    }
    std::atexit(&exitHandler);
}

}  // namespace

bool isSlotIntercepted(unsigned slot) { return slot < kDispatchSlotCount && !g_filtered[slot]; }

void initAgent() { std::call_once(g_initOnce, &initOnce); }

void flushAtExit() {
    if (g_recorder == nullptr) return;
    std::call_once(g_flushOnce, [] {
        finishLiveQueues();
        waitForDeviceTimes(std::chrono::seconds(2));
        std::string error;
        if (!g_recorder->stop(error)) {
            std::fprintf(stderr, "perfmarker: OpenCL trace layer: %s\n", error.c_str());
        }
        // Cached mode (or a failed interval write) kept records in memory: the merge reads
        // fragments, so they go to disk now.
        error.clear();
        if (!g_recorder->spillToFragments(error)) {
            std::fprintf(stderr, "perfmarker: OpenCL trace layer: %s\n", error.c_str());
        }
    });
}

void finishProcessTrace() {
    if (g_recorder == nullptr || static_cast<long>(getpid()) != g_initPid) return;
    flushAtExit();
    // The same merge the launcher runs: this process's fragments and marker files -> <base>.atp.
    // With both agents in the process, only the last to finish merges (atp/merge/agent_registry.h).
    atp::mergeAtAgentExit(g_config, g_initPid, atp::kOclFragmentTag, "OpenCL trace layer");
}

}  // namespace perfmarker::cltrace

// Runs after every atexit handler of the process (ELF destructors of a library loaded after the
// program run after its atexit handlers), so the marker libraries' exit flush is done.
__attribute__((destructor)) static void perfmarkerClTraceUnload() {
    perfmarker::cltrace::finishProcessTrace();
}
