// `perfmarker profile`: run an application under the profile layer (or, with --hsa, the HSA
// agent in profile mode) and leave one kernel profile `.csv` per process (docs/profile.md).
// The session mechanics are the trace's: a private directory next to the output, per-process
// files named by pid, moved to their final names after the application ends.
#include <dirent.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>

#include "atp/format/atp_header.h"
#include "cli/child_process.h"
#include "cli/commands.h"
#include "cli/hsa_tools_lib.h"
#include "cli/opencl_layers.h"
#include "cli/paths.h"
#include "profile/counters/perf_counters.h"
#include "profile/format/occupancy_file.h"
#include "profile/format/profile_csv.h"
#include "profile/format/profile_session.h"

namespace perfmarker::cli {
namespace {

namespace fs = std::filesystem;

constexpr char kProfileAgentFileName[] = "libCLProfileAgent.so";
constexpr char kLayersVariable[] = "OPENCL_LAYERS";
constexpr char kAgentDirVariable[] = "PERFMARKER_AGENT_DIR";
constexpr char kDefaultOutput[] = "session.csv";
constexpr char kSessionFileStem[] = "profile";
constexpr char kCsvExtension[] = "csv";
constexpr char kOccupancyExtension[] = "occupancy";

struct ProfileSettings {
    std::string output;
    std::string counters;
    bool listCounters = false;
    bool hsa = false;
    std::vector<std::string> envAssignments;
    std::string workingDir;
    std::vector<std::string> command;
};

void fail(const std::string& message) { std::cerr << "perfmarker profile: " << message << "\n"; }

std::string findProfileAgent(bool hsa) {
#ifdef PERFMARKER_BUILD_TREE_PROFILE_AGENT
    const std::string buildTree = PERFMARKER_BUILD_TREE_PROFILE_AGENT;
#else
    const std::string buildTree;
#endif
    const char* dir = std::getenv(kAgentDirVariable);
    const AgentLocation agent =
        hsa ? locateHsaAgent(dir, currentExecutable())
            : locateAgentFile(kProfileAgentFileName, buildTree, dir, currentExecutable());
    if (agent.path.empty()) {
        fail(std::string("cannot find the ") + (hsa ? kHsaAgentFileName : kProfileAgentFileName) +
             "; looked at:");
        for (const std::string& candidate : agent.searched) std::cerr << "  " << candidate << "\n";
        std::cerr << "set " << kAgentDirVariable << " to the directory that holds it\n";
    }
    return agent.path;
}

std::vector<std::string> childEnvironment(const ProfileSettings& settings,
                                          const std::string& sessionDir,
                                          const std::string& agentPath) {
    std::map<std::string, std::string> env = currentEnvironment();
    for (const AgentOption& option : agentOptions()) env.erase(option.env);
    env.erase(profile::kProfileOutputVariable);
    env.erase(profile::kProfileCountersVariable);
    for (const std::string& assignment : settings.envAssignments) {
        const size_t eq = assignment.find('=');
        env[assignment.substr(0, eq)] = assignment.substr(eq + 1);
    }
    env[profile::kProfileOutputVariable] = sessionDir + "/" + kSessionFileStem + "." +
                                           std::string(profile::kPidToken) + "." + kCsvExtension;
    if (!settings.counters.empty()) env[profile::kProfileCountersVariable] = settings.counters;
    if (settings.hsa) {
        auto tools = env.find(kHsaToolsVariable);
        env[kHsaToolsVariable] =
            mergeHsaToolsLib(agentPath, tools == env.end() ? nullptr : tools->second.c_str());
    } else {
        auto layers = env.find(kLayersVariable);
        env[kLayersVariable] =
            mergeOpenClLayers(agentPath, layers == env.end() ? nullptr : layers->second.c_str());
    }
    std::vector<std::string> out;
    for (const auto& [name, value] : env) out.push_back(name + "=" + value);
    return out;
}

// One process's files in the session directory.
struct ProcessFiles {
    std::string csv;        // profile.<pid>.csv, written whole by the agent
    std::string rows;       // profile.<pid>.csv.tmp.*: the rows of a process that did not finish
    std::string occupancy;  // profile.<pid>.occupancy
    std::string occupancyRows;  // profile.<pid>.occupancy.tmp.*: the same, unfinished
};

std::map<long, ProcessFiles> listSession(const std::string& dir) {
    std::map<long, ProcessFiles> files;
    const std::string prefix = std::string(kSessionFileStem) + ".";
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(dir, error)) {
        const std::string name = entry.path().filename().string();
        if (name.rfind(prefix, 0) != 0) continue;
        char* end = nullptr;
        const long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
        if (pid <= 0 || *end != '.') continue;
        const std::string rest = end + 1;
        ProcessFiles& process = files[pid];
        if (rest == kCsvExtension) {
            process.csv = entry.path().string();
        } else if (rest.rfind(std::string(kCsvExtension) + ".tmp.", 0) == 0) {
            process.rows = entry.path().string();
        } else if (rest == kOccupancyExtension) {
            process.occupancy = entry.path().string();
        } else if (rest.rfind(std::string(kOccupancyExtension) + ".tmp.", 0) == 0) {
            process.occupancyRows = entry.path().string();
        }
    }
    return files;
}

uint64_t countLines(const std::string& path) {
    std::ifstream in(path);
    uint64_t lines = 0;
    for (std::string line; std::getline(in, line);) lines += !line.empty();
    return lines;
}

uint64_t countRows(const std::string& csv) {
    std::ifstream in(csv);
    uint64_t rows = 0;
    bool columnsSeen = false;
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        if (!columnsSeen) {
            columnsSeen = true;  // the column line
        } else {
            ++rows;
        }
    }
    return rows;
}

// The header the launcher writes when the process left none: it ended before its agent wrote
// the file (killed, _exit), or it never loaded the agent (no OpenCL call at all).
std::string launcherHeader(const ProfileSettings& settings, const std::string& application) {
    profile::ProfileHeader header;
    header.api = settings.hsa ? profile::ProfileApi::Hsa : profile::ProfileApi::OpenCL;
    header.application = application;
    header.applicationArgs.assign(settings.command.begin() + 1, settings.command.end());
    std::error_code error;
    header.workingDirectory = settings.workingDir.empty() ? fs::current_path(error).string()
                                                          : absolutePath(settings.workingDir);
    std::vector<profile::CounterColumn> columns;
    for (const std::string& name : profile::splitCounterList(settings.counters)) {
        columns.push_back({name});
    }
    return profile::formatProfileHeader(header, columns);
}

bool writeSalvaged(const std::string& target, const std::string& header, const std::string& rows) {
    std::ofstream out(target, std::ios::binary | std::ios::trunc);
    out << header;
    if (!rows.empty()) {
        std::ifstream in(rows, std::ios::binary);
        out << in.rdbuf();
    }
    out.flush();
    return static_cast<bool>(out);
}

// Moves each process's files to their final names; returns false when one could not be.
bool collectProfiles(const ProfileSettings& settings, const std::string& sessionDir,
                     const std::string& output, long mainPid, const std::string& application) {
    std::map<long, ProcessFiles> files = listSession(sessionDir);
    files[mainPid];  // the main process gets a file even when it wrote none
    bool ok = true;
    uint64_t rows = 0;
    for (const auto& [pid, process] : files) {
        const bool isMain = pid == mainPid;
        const std::string target = processOutputPath(output, pid, isMain, kCsvExtension);
        std::error_code error;
        if (!process.csv.empty()) {
            fs::rename(process.csv, target, error);
        } else {
            if (!process.rows.empty()) {
                fail("process " + std::to_string(pid) +
                     " ended before it finished its profile; its rows are kept in " + target);
            }
            if (!writeSalvaged(target, launcherHeader(settings, application), process.rows)) {
                error = std::error_code(errno, std::generic_category());
            }
        }
        if (error) {
            fail("cannot write " + target + ": " + error.message());
            ok = false;
            continue;
        }
        if (!process.rows.empty()) fs::remove(process.rows, error);
        const std::string occupancy = processOutputPath(output, pid, isMain, kOccupancyExtension);
        if (!process.occupancy.empty()) {
            fs::rename(process.occupancy, occupancy, error);
        } else if (!process.occupancyRows.empty()) {
            // The rows of a process that ended early, under a header of the launcher's.
            profile::OccupancyHeader header{application, {}, ','};
            header.applicationArgs.assign(settings.command.begin() + 1, settings.command.end());
            if (!writeSalvaged(
                    occupancy,
                    profile::formatOccupancyHeader(header, countLines(process.occupancyRows)),
                    process.occupancyRows)) {
                error = std::error_code(errno, std::generic_category());
            } else {
                fs::remove(process.occupancyRows, error);
            }
        }
        if (error) {
            fail("cannot write " + occupancy + ": " + error.message());
            ok = false;
        }
        rows += countRows(target);
    }
    if (rows == 0) {
        fail("the application dispatched no kernels: " +
             processOutputPath(output, mainPid, true, kCsvExtension) +
             " holds the header and the column line only");
    }
    std::error_code error;
    fs::remove(sessionDir, error);
    if (error) fail("left the session directory " + sessionDir + ": " + error.message());
    return ok;
}

int listCounters() {
    for (const std::string& name : profile::availableCounters()) std::cout << name << "\n";
    return 0;
}

int checkCounters(const ProfileSettings& settings) {
    if (settings.counters.empty()) return 0;
    std::vector<profile::CounterEvent> events;
    std::string error;
    if (profile::resolveCounters(profile::splitCounterList(settings.counters), events, error)) {
        return 0;
    }
    fail(error);
    const std::vector<std::string> available = profile::availableCounters();
    if (available.empty()) {
        std::cerr << "no counter is available on this machine\n";
    } else {
        std::cerr << "available counters (perfmarker profile --list-counters):";
        for (const std::string& name : available) std::cerr << " " << name;
        std::cerr << "\n";
    }
    return kExitUsage;
}

int runProfile(const ProfileSettings& settings) {
    if (settings.listCounters) return listCounters();
    if (settings.command.empty()) {
        fail("no application given (perfmarker profile [options] -- app [args])");
        return kExitUsage;
    }
    for (const std::string& assignment : settings.envAssignments) {
        const size_t eq = assignment.find('=');
        if (eq == 0 || eq == std::string::npos) {
            fail("--env " + assignment + ": expected NAME=VALUE");
            return kExitUsage;
        }
    }
    const char* searchPath = std::getenv("PATH");
    const ResolvedCommand command = resolveCommand(
        settings.command.front(), searchPath ? searchPath : "/usr/local/bin:/usr/bin:/bin");
    if (command.exitCode != 0) {
        fail(command.error);
        return command.exitCode;
    }
    if (const int status = checkCounters(settings); status != 0) return status;
    // normalizeOutputPath names a trace; the profile's files take its stem (paths.h).
    const std::string output =
        normalizeOutputPath(settings.output.empty() ? kDefaultOutput : settings.output);
    std::error_code error;
    if (!settings.workingDir.empty() && !fs::is_directory(settings.workingDir, error)) {
        fail("--working-dir " + settings.workingDir + ": not a directory");
        return kExitUsage;
    }
    if (!fs::is_directory(fs::path(output).parent_path(), error)) {
        fail("--output: directory " + fs::path(output).parent_path().string() + " does not exist");
        return kExitUsage;
    }
    const std::string agentPath = findProfileAgent(settings.hsa);
    if (agentPath.empty()) return kExitFailure;
    std::string message;
    const std::string sessionDir = createSessionDir(output, message);
    if (sessionDir.empty()) {
        fail(message);
        return kExitFailure;
    }
    const ChildSpec spec{command.path, settings.command,
                         childEnvironment(settings, sessionDir, agentPath), settings.workingDir};
    const ChildResult child = runChild(spec);
    if (!child.started) {
        fail("cannot run " + command.path + ": " + child.error);
        fs::remove_all(sessionDir, error);
        return child.pid < 0 ? kExitFailure : child.exitCode;
    }
    const bool collected = collectProfiles(settings, sessionDir, output, child.pid, command.path);
    if (!collected && child.exitCode == 0) return kExitFailure;
    return child.exitCode;
}

}  // namespace

Subcommand addProfileCommand(CLI::App& app) {
    auto settings = std::make_shared<ProfileSettings>();
    CLI::App* command = app.add_subcommand(
        "profile",
        "Run an application and write its kernel profile: one CSV row per kernel dispatch, "
        "with sizes, device time, memory and counters (docs/profile.md).");
    command
        ->add_option("-o,--output", settings->output,
                     "Profile file (default ./session.csv); the extension becomes .csv; other "
                     "processes get <name>.<pid>.csv; ___PID___ becomes each process's id")
        ->type_name("PATH");
    command
        ->add_option("--counters", settings->counters,
                     "Counters to add as columns, comma-separated (see --list-counters)")
        ->type_name("A,B,...");
    command->add_flag("--list-counters", settings->listCounters,
                      "Print the counters this machine offers, one a line, and exit");
    command->add_flag("--hsa", settings->hsa,
                      "Profile HSA (ROCm) kernel dispatches through the HSA agent instead of "
                      "OpenCL ones; also writes <name>.occupancy for dispatches to AMD GPUs");
    command
        ->add_option("-e,--env", settings->envAssignments,
                     "Set a variable in the application's environment (repeatable)")
        ->type_name("NAME=VALUE")
        ->allow_extra_args(false);
    command
        ->add_option("-w,--working-dir", settings->workingDir,
                     "Run the application in DIR (default: the current directory)")
        ->type_name("DIR");
    command->add_option("command", settings->command, "The application and its arguments");
    command->positionals_at_end();
    command->footer(
        "Kernel dispatches are waited for one at a time while profiling.\nExample:\n"
        "  perfmarker profile -o p.csv --counters task-clock,page-faults -- ./app");
    return Subcommand{command, [settings] { return runProfile(*settings); }};
}

}  // namespace perfmarker::cli
