// What both tracing agents (profiler_hooks/opencl, profiler_hooks/hsa) do around their wrappers:
// read the session (docs/session.md), create the recorder, run the start-disabled / delay /
// duration controls and the runtime pause, read the API filter, flush the records at exit, and
// merge the process's fragments after every atexit handler (docs/hsa-trace.md, "With the
// OpenCL layer in the same process"). Each agent's shared library links its own copy of this
// state; the agents differ only in what AgentIdentity says.
#pragma once

#include <atomic>
#include <set>
#include <string>
#include <string_view>

#include "record/recorder.h"
#include "record/session.h"

namespace perfmarker::hooks {

// The recorder of the session; null when the process has no (valid) session, and then every
// wrapper is a pure pass-through. Written once by startAgent, before the agent routes any call
// to its wrappers, then only read (the exit flush stops it, the pointer stays).
extern record::Recorder* g_recorder;

// Set by amdtCodeXLStopProfiling, cleared by amdtCodeXLResumeProfiling, and driven by the
// session's start-disabled, delay and duration. Only ever read and written with relaxed
// ordering: it publishes no data, and a call racing with a pause may be recorded or not.
extern std::atomic<bool> g_paused;

inline bool isPaused() { return g_paused.load(std::memory_order_relaxed); }

// PERFMARKER_SYM=1: the wrappers record each call's call site (docs/call-sites.md). Written by
// startAgent before the agent routes any call to its wrappers, then only read.
extern bool g_recordCallSites;

// The agent, as the shared life cycle needs to know it.
struct AgentIdentity {
    const char* name = "";         // in messages: "perfmarker: <name>: ..."
    std::string_view fragmentTag;  // its fragments and live file (atp/merge/merger.h)
    // Run by the flush before the recorder stops (the last records of the agent: finishing
    // queues, device times); may be null.
    void (*beforeFlush)() = nullptr;
};

// Reads the session and, when there is a valid one: keeps its config, starts the controls,
// creates the recorder (g_recorder), registers the agent as live for the exit-time merge and
// registers the exit flush. Only the first call does anything; true when a session is on.
bool startAgent(const AgentIdentity& agent);

// The session read by startAgent (defaults before, or without a session).
const record::SessionConfig& sessionConfig();

// The API names of the session's filter file (empty without one); a file that cannot be read
// is reported on stderr and filters nothing.
std::set<std::string> sessionApiFilter();

// The exit flush (atexit, or the agent's own unload): the agent's beforeFlush, then the
// recorder stops and every record goes to the fragments. Idempotent; nothing without a session.
void flushAgent();

// After every atexit handler (the ELF destructor in agent_lifecycle.cpp), so the marker
// libraries have flushed too: the flush if it has not run, then the same merge the launcher
// runs, in the process that started the session only. With both agents in the process only the
// last to finish merges (atp/merge/agent_registry.h).
void finishAgent();

}  // namespace perfmarker::hooks
