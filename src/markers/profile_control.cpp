#include "markers/profile_control.h"

#include <dlfcn.h>

#include <mutex>
#include <vector>

#include "ActivityLogger.h"

namespace perfmarker::markers {
namespace {

// Our agents first, then the original profiler's names, so an old agent still obeys.
constexpr AgentLibrary kAgents[] = {
    {AMDT_TRACE_PROFILING, "libCLTraceAgent.so"},
    {AMDT_TRACE_PROFILING, "libHSATraceAgent.so"},
    {AMDT_TRACE_PROFILING, "libRCPCLTraceAgent.so"},
    {AMDT_TRACE_PROFILING, "libRCPHSATraceAgent.so"},
    {AMDT_PERF_COUNTER_PROFILING, "libRCPCLProfileAgent.so"},
    {AMDT_PERF_COUNTER_PROFILING, "libRCPHSAProfileAgent.so"},
};

// Entry points of an agent (docs/session.md#pause-and-resume), plus our agents' state query, which
// lets the warning codes reflect pauses the agent did itself (start disabled, delay, duration).
constexpr const char* kPauseSymbol = "amdtCodeXLStopProfiling";
constexpr const char* kResumeSymbol = "amdtCodeXLResumeProfiling";
constexpr const char* kIsPausedSymbol = "perfmarkerAgentIsPaused";

struct LoadedAgent {
    void* handle;
    void (*control)();
    int (*isPaused)();
};

std::mutex g_mutex;  // guards g_paused and serializes calls into the agents
int g_paused = 0;    // modes paused through this library (for agents without the query)

std::vector<LoadedAgent> loadedAgents(int mode, bool pause) {
    std::vector<LoadedAgent> out;
    for (const AgentLibrary& agent : kAgents) {
        if ((agent.mode & mode) == 0) continue;
        void* handle = dlopen(agent.soname, RTLD_NOW | RTLD_NOLOAD);
        if (handle == nullptr) continue;
        auto control = reinterpret_cast<void (*)()>(
            dlsym(handle, pause ? kPauseSymbol : kResumeSymbol));
        if (control == nullptr) {
            dlclose(handle);
            continue;
        }
        out.push_back({handle, control, reinterpret_cast<int (*)()>(dlsym(handle, kIsPausedSymbol))});
    }
    return out;
}

// True when every agent already is in the requested state.
bool alreadyThere(const std::vector<LoadedAgent>& agents, int mode, bool pause) {
    bool anyQuery = false;
    for (const LoadedAgent& a : agents) {
        if (a.isPaused == nullptr) continue;
        anyQuery = true;
        if ((a.isPaused() != 0) != pause) return false;
    }
    if (anyQuery) return true;
    return pause ? (g_paused & mode) == mode : (g_paused & mode) == 0;
}

}  // namespace

int controlProfiling(int mode, bool pause) {
    std::lock_guard<std::mutex> lock(g_mutex);
    mode &= AMDT_ALL_PROFILING;
    std::vector<LoadedAgent> agents = loadedAgents(mode, pause);
    if (agents.empty()) return AL_FAILED_TO_ATTACH_TO_PROFILER;
    int code = AL_SUCCESS;
    if (alreadyThere(agents, mode, pause)) {
        code = pause ? AL_WARN_PROFILE_ALREADY_PAUSED : AL_WARN_PROFILE_ALREADY_RESUMED;
    } else {
        for (const LoadedAgent& a : agents) a.control();
        g_paused = pause ? (g_paused | mode) : (g_paused & ~mode);
    }
    for (const LoadedAgent& a : agents) dlclose(a.handle);  // balances RTLD_NOLOAD's reference
    return code;
}

}  // namespace perfmarker::markers
