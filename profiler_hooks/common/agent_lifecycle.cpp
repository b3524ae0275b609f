#include "agent_lifecycle.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "agent_exports.h"
#include "api/api_filter.h"
#include "atp/format/module_lines.h"
#include "atp/format/safe_files.h"
#include "atp/merge/agent_registry.h"
#include "atp/merge/session_merge.h"
#include "record/session_files.h"

namespace perfmarker::hooks {

record::Recorder* g_recorder = nullptr;
std::atomic<bool> g_paused{false};
bool g_recordCallSites = false;

namespace {

// Never destroyed: the merge runs from an ELF destructor, after the library's own C++
// destructors have run.
record::SessionConfig& g_config = *new record::SessionConfig();
AgentIdentity g_agent;
long g_initPid = 0;
atp::ProcessStart& g_processStart = *new atp::ProcessStart();  // for the header (see g_config)
bool g_started = false;
std::once_flag g_startOnce;
std::once_flag g_flushOnce;

void report(const std::string& message) {
    std::fprintf(stderr, "perfmarker: %s: %s\n", g_agent.name, message.c_str());
}

// Start-disabled, delay and duration (docs/session.md): the same flag the control entry points
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

record::RecorderOptions recorderOptions(const record::SessionConfig& c, const std::string& dir) {
    record::RecorderOptions o;
    o.mode = c.mode;
    o.intervalMs = c.intervalMs;
    o.fragmentDir = dir;
    o.fragmentTag = std::string(g_agent.fragmentTag);
    o.maxMemoryBytes = size_t{c.maxMemoryMb} << 20;
    return o;
}

void exitHandler() { flushAgent(); }

// PERFMARKER_SYM=1: the modules file `<pid>.modules` next to the fragments (docs/call-sites.md#
// the-modules-file), with the modules loaded at the start and, appended at the exit flush,
// those loaded then (dlopen'ed ones included). Kept open in between.
int g_modulesFd = -1;
uint64_t g_modulesBytes = 0;  // written to it so far

void appendModules(bool header) {
    if (g_modulesFd < 0) return;
    std::string text;
    if (header) atp::appendModulesFileHeader(text);
    atp::appendLoadedModules(text);
    if (const int err = atp::appendAll(g_modulesFd, g_modulesBytes, text.data(), text.size())) {
        report(std::string("cannot write the modules file: ") + std::strerror(err) +
               "; call sites will lack names");
        return;
    }
    g_modulesBytes += text.size();
}

void startModulesFile(const std::string& dir, long pid) {
    const std::string path = dir + "/" + std::to_string(pid) + std::string(atp::kModulesSuffix);
    g_modulesFd = atp::createNewFile(path, 0600);
    if (g_modulesFd < 0) {
        report("cannot create " + path + ": " + std::strerror(errno) +
               "; call sites will lack names");
        return;
    }
    appendModules(true);
}

void startOnce() {
    const record::SessionResult session = record::readSession();
    if (session.status == record::SessionStatus::Absent) return;
    if (session.status == record::SessionStatus::Invalid) {
        report("invalid session, not tracing: " + session.error);
        return;
    }
    const long pid = static_cast<long>(getpid());
    std::string dirError;
    const std::string dir =
        record::processFilesDir(record::sessionTempDir(session.config, pid), pid, true, dirError);
    if (dir.empty()) {
        report("not tracing: " + dirError);
        return;
    }
    g_config = session.config;
    g_initPid = pid;
    g_processStart = atp::ProcessStart::now();
    startControls(g_config);
    g_recordCallSites = g_config.sym;
    if (g_config.sym) startModulesFile(dir, pid);
    g_recorder = new record::Recorder(recorderOptions(g_config, dir));  // lives until exit
    std::string liveError;
    if (!atp::registerLiveAgent(dir, g_initPid, g_agent.fragmentTag, liveError)) {
        report(liveError);
    }
    std::atexit(&exitHandler);
    g_started = true;
}

}  // namespace

bool startAgent(const AgentIdentity& agent) {
    std::call_once(g_startOnce, [&agent] {
        g_agent = agent;
        startOnce();
    });
    return g_started;
}

const record::SessionConfig& sessionConfig() { return g_config; }

std::set<std::string> sessionApiFilter() {
    std::set<std::string> names;
    std::string error;
    if (!g_config.apiFilterFile.empty() &&
        !atp::readApiFilter(g_config.apiFilterFile, names, error)) {
        report(error);
    }
    return names;
}

void flushAgent() {
    if (g_recorder == nullptr) return;
    std::call_once(g_flushOnce, [] {
        if (g_agent.beforeFlush != nullptr) g_agent.beforeFlush();
        appendModules(false);
        std::string error;
        if (!g_recorder->stop(error)) report(error);
        // Cached mode (or a failed interval write) kept records in memory: the merge reads
        // fragments, so they go to disk now.
        error.clear();
        if (!g_recorder->spillToFragments(error)) report(error);
    });
}

void finishAgent() {
    if (g_recorder == nullptr || static_cast<long>(getpid()) != g_initPid) return;
    flushAgent();
    atp::mergeAtAgentExit(g_config, g_initPid, g_agent.fragmentTag, g_agent.name, g_processStart);
}

}  // namespace perfmarker::hooks

using perfmarker::hooks::g_paused;

extern "C" {

void amdtCodeXLStopProfiling(void) { g_paused.store(true, std::memory_order_relaxed); }

void amdtCodeXLResumeProfiling(void) { g_paused.store(false, std::memory_order_relaxed); }

int perfmarkerAgentIsPaused(void) { return g_paused.load(std::memory_order_relaxed) ? 1 : 0; }

}  // extern "C"

// Runs after every atexit handler of the process (ELF destructors of a library loaded after the
// program run after its atexit handlers), so the marker libraries' exit flush is done; covers
// applications that never shut their runtime down.
__attribute__((destructor)) static void perfmarkerAgentUnload() {
    perfmarker::hooks::finishAgent();
}
