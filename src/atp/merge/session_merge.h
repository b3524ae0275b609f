// The merge as a session runs it: options and header taken from the session contract and from
// the process itself. One entry point for the agent's merge at exit and the launcher's merge
// after the application ended, so both write the same .atp for the same fragments.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "atp/merge/merger.h"
#include "record/session.h"

namespace perfmarker::atp {

// Applies the session's trace options (collapse, maximum API calls, keeping fragments) to
// `options`, and its API
// filter to the header's CLExcludedAPIs. A filter file that cannot be read is reported in
// `error` and otherwise ignored (the trace still gets written).
void applySessionToMerge(const record::SessionConfig& session, AtpHeader& header,
                         MergeOptions& options, std::string& error);

// What an agent notes when its session starts, for the header its merge at exit writes.
struct ProcessStart {
    std::string workingDirectory;  // getcwd() then
    ClockAnchor clocks;            // readClockAnchor() then

    static ProcessStart now();
};

// The header lines the calling process can say about itself: Application= and ApplicationArgs=
// (/proc/self/exe, /proc/self/cmdline), HostName=, and from `start` WorkingDirectory= and
// ClockAnchorStart=; ClockAnchorEnd= is read now.
void describeThisProcess(const ProcessStart& start, AtpHeader& header);

// A tracing agent's merge at the end of process `pid`, after it flushed its fragments: it leaves
// the live-agent registry (atp/merge/agent_registry.h) under `tag` and, when it was the process's
// last live agent, merges the process's fragments and marker files into <base>.atp the way the
// launcher would, with the header describeThisProcess(start) gives. Problems go to stderr, prefixed
// with `who` ("OpenCL trace layer"); returns whether this agent merged and the merge succeeded.
bool mergeAtAgentExit(const record::SessionConfig& session, long pid, std::string_view tag,
                      const char* who, const ProcessStart& start);

}  // namespace perfmarker::atp
