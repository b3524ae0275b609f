// The subcommands of `perfmarker`, after the command line was parsed.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "cli/agent_options.h"

namespace CLI {
class App;
}

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
    bool hsa = false;  // --hsa: also load the HSA trace agent through HSA_TOOLS_LIB
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

// A subcommand of the tool that defines its own options: add*Command() adds it to `app`, and
// main() calls run() when it is the one given on the command line. run() returns the exit
// status (0, kExitFailure, kExitUsage for inputs that do not make sense together).
struct Subcommand {
    CLI::App* command = nullptr;
    std::function<int()> run;
};

// `perfmarker profile [options] -- app [args]` (profile_command.cpp).
Subcommand addProfileCommand(CLI::App& app);
// `perfmarker summary trace.atp...` (summary_command.cpp).
Subcommand addSummaryCommand(CLI::App& app);
// `perfmarker export --format perfetto|vtune|csv trace.atp...` (export_command.cpp).
Subcommand addExportCommand(CLI::App& app);
// `perfmarker report trace.atp... -o report.html` (report_command.cpp).
Subcommand addReportCommand(CLI::App& app);

}  // namespace perfmarker::cli
