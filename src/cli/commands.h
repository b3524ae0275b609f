// The subcommands of `perfmarker`, after the command line was parsed.
#pragma once

#include <string>
#include <vector>

#include "cli/agent_options.h"

namespace perfmarker::cli {

// Exit statuses of the launcher itself (the application's own status is passed through).
inline constexpr int kExitFailure = 1;  // perfmarker could not do its job (agent missing, ...)
inline constexpr int kExitUsage = 2;    // bad command line
inline constexpr int kExitNotRunnable = 126;
inline constexpr int kExitNotFound = 127;

struct TraceSettings {
    std::string output;                       // -o as given ("" = default)
    EnvValues sessionValues;                  // session variables from the flags
    std::vector<std::string> envAssignments;  // -e NAME=VALUE, in order
    std::string workingDir;                   // -w ("" = inherit)
    std::vector<std::string> command;         // application and its arguments
    bool progress = false;
};

// `perfmarker trace`: returns the process exit status.
int runTrace(const TraceSettings& settings);

struct MergeSettings {
    std::string sessionDir;
    std::string output;  // -o as given ("" = default)
    bool progress = false;
};

// `perfmarker merge`: returns the process exit status (0 when every process was merged).
int runMerge(const MergeSettings& settings);

}  // namespace perfmarker::cli
