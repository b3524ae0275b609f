// `perfmarker trace`: set up a private session directory and the environment, run the
// application under the OpenCL trace agent, then collect what the run left.
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>

#include "atp/merge/collect.h"
#include "atp/symbols/call_site_lines.h"
#include "cli/child_process.h"
#include "cli/commands.h"
#include "cli/hsa_tools_lib.h"
#include "cli/opencl_layers.h"
#include "cli/paths.h"
#include "cli/progress_line.h"

namespace perfmarker::cli {
namespace {

namespace fs = std::filesystem;
using atp::kSessionBaseName;
using atp::kSessionDirPrefix;

constexpr char kLayersVariable[] = "OPENCL_LAYERS";
constexpr char kAgentDirVariable[] = "PERFMARKER_AGENT_DIR";
constexpr char kDefaultSearchPath[] = "/usr/local/bin:/usr/bin:/bin";

// The application's environment: ours, minus every session variable (the launcher defines the
// session), plus -e, plus the session, plus our agent in OPENCL_LAYERS.
std::vector<std::string> childEnvironment(const TraceSettings& settings,
                                          const std::string& sessionDir,
                                          const std::string& agentPath,
                                          const std::string& hsaAgentPath) {
    std::map<std::string, std::string> env = currentEnvironment();
    for (const AgentOption& option : agentOptions()) env.erase(option.env);
    for (const std::string& assignment : settings.envAssignments) {
        const size_t eq = assignment.find('=');
        env[assignment.substr(0, eq)] = assignment.substr(eq + 1);
    }
    for (const auto& [name, value] : settings.sessionValues) env[name] = value;
    env[optionByField("outputBase")->env] = sessionDir + "/" + kSessionBaseName + ".___PID___";
    env[optionByField("tempDir")->env] = sessionDir;
    // Call sites are symbolized by the launcher's merge, never in the traced process.
    const auto sym = settings.sessionValues.find(optionByField("sym")->env);
    if (sym != settings.sessionValues.end() && sym->second == "1") {
        env[optionByField("mergeAtExit")->env] = "0";
    }
    auto layers = env.find(kLayersVariable);
    env[kLayersVariable] =
        mergeOpenClLayers(agentPath, layers == env.end() ? nullptr : layers->second.c_str());
    if (!hsaAgentPath.empty()) {
        auto tools = env.find(kHsaToolsVariable);
        env[kHsaToolsVariable] =
            mergeHsaToolsLib(hsaAgentPath, tools == env.end() ? nullptr : tools->second.c_str());
    }
    std::vector<std::string> out;
    for (const auto& [name, value] : env) out.push_back(name + "=" + value);
    return out;
}

atp::RunDescription describeRun(const TraceSettings& settings, const std::string& application) {
    atp::RunDescription run;
    run.application = application;
    run.arguments.assign(settings.command.begin() + 1, settings.command.end());
    // The application runs in -w's directory, or in ours.
    std::error_code error;
    run.workingDirectory = settings.workingDir.empty() ? fs::current_path(error).string()
                                                       : absolutePath(settings.workingDir);
    run.hostName = atp::localHostName();
    for (const std::string& assignment : settings.envAssignments) {
        const size_t eq = assignment.find('=');
        run.envVars.emplace_back(assignment.substr(0, eq), assignment.substr(eq + 1));
    }
    return run;
}

// Checks that need the file system; returns 0 or the exit status after printing why.
int checkPaths(const TraceSettings& settings, const std::string& output) {
    std::error_code error;
    if (!settings.workingDir.empty() && !fs::is_directory(settings.workingDir, error)) {
        std::cerr << "perfmarker trace: --working-dir " << settings.workingDir
                  << ": not a directory\n";
        return kExitUsage;
    }
    const fs::path outputDir = fs::path(output).parent_path();
    if (!fs::is_directory(outputDir, error)) {
        std::cerr << "perfmarker trace: --output " << output << ": directory " << outputDir.string()
                  << " does not exist\n";
        return kExitUsage;
    }
    return 0;
}

std::string findAgent() {
    const AgentLocation agent = locateAgent(std::getenv(kAgentDirVariable), currentExecutable());
    if (agent.path.empty()) {
        std::cerr << "perfmarker trace: cannot find the OpenCL trace agent " << kAgentFileName
                  << "; looked at:\n";
        for (const std::string& candidate : agent.searched) std::cerr << "  " << candidate << "\n";
        std::cerr << "set " << kAgentDirVariable << " to the directory that holds it\n";
    }
    return agent.path;
}

std::string findHsaAgent() {
    const AgentLocation agent = locateHsaAgent(std::getenv(kAgentDirVariable), currentExecutable());
    if (agent.path.empty()) {
        std::cerr << "perfmarker trace: --hsa: cannot find the HSA trace agent "
                  << kHsaAgentFileName << "; looked at:\n";
        for (const std::string& candidate : agent.searched) std::cerr << "  " << candidate << "\n";
        std::cerr << "set " << kAgentDirVariable << " to the directory that holds it\n";
    }
    return agent.path;
}

// Collects the session into the user's output names (paths.h), with a progress line on stderr
// where asked for or where stderr is a terminal.
atp::CollectResult collect(atp::CollectRequest& request, const std::string& output, bool progress) {
    ProgressLine line(progress, isatty(STDERR_FILENO) != 0);
    // Call sites are symbolized here, after the run (docs/call-sites.md).
    request.callSites = [](const std::string& modulesPath) -> std::unique_ptr<atp::CallSiteWriter> {
        return std::make_unique<symbols::SymbolizingCallSites>(modulesPath);
    };
    request.outputPath = [&output](long pid, bool isMain, const std::string& ext) {
        return processOutputPath(output, pid, isMain, ext);
    };
    request.progress = [&line](long pid, uint64_t done, uint64_t total) {
        line.update(pid, done, total);
    };
    request.progressDone = [&line] { line.finish(); };
    return atp::collectSession(request, std::cerr);
}

}  // namespace

int runTrace(const TraceSettings& settings) {
    const char* searchPath = std::getenv("PATH");
    const ResolvedCommand command =
        resolveCommand(settings.command.front(), searchPath ? searchPath : kDefaultSearchPath);
    if (command.exitCode != 0) {
        std::cerr << "perfmarker trace: " << command.error << "\n";
        return command.exitCode;
    }
    const std::string output = normalizeOutputPath(settings.output);
    if (const int status = checkPaths(settings, output); status != 0) return status;
    const std::string agentPath = findAgent();
    if (agentPath.empty()) return kExitFailure;
    const std::string hsaAgentPath = settings.hsa ? findHsaAgent() : std::string();
    if (settings.hsa && hsaAgentPath.empty()) return kExitFailure;
    std::string error;
    const std::string sessionDir = createSessionDir(output, error);
    if (sessionDir.empty()) {
        std::cerr << "perfmarker trace: " << error << "\n";
        return kExitFailure;
    }

    ChildSpec spec{command.path, settings.command,
                   childEnvironment(settings, sessionDir, agentPath, hsaAgentPath),
                   settings.workingDir};
    atp::CollectRequest request;
    request.run = describeRun(settings, command.path);
    request.run.clockStart = atp::readClockAnchor();
    const ChildResult child = runChild(spec);
    request.run.clockEnd = atp::readClockAnchor();
    if (!child.started) {
        std::cerr << "perfmarker trace: cannot run " << command.path << ": " << child.error << "\n";
        std::error_code ignored;
        fs::remove(sessionDir, ignored);  // empty: nothing ran
        return child.pid < 0 ? kExitFailure : child.exitCode;
    }

    request.sessionDir = sessionDir;
    request.mainPid = child.pid;
    request.session = sessionFromValues(settings.sessionValues);
    collect(request, output, settings.progress);
    return child.exitCode;
}

int runMerge(const MergeSettings& settings) {
    atp::CollectRequest request;
    request.sessionDir = absolutePath(settings.sessionDir);
    // Only a directory the launcher created goes away once empty; a directory the user named
    // as PERFMARKER_TMPDIR by hand stays.
    request.removeWhenEmpty =
        fs::path(request.sessionDir).filename().string().rfind(kSessionDirPrefix, 0) == 0;
    const atp::CollectResult result =
        collect(request, normalizeOutputPath(settings.output), settings.progress);
    if (result.written.empty() && result.ok) {
        std::cerr << "perfmarker merge: nothing to merge in " << request.sessionDir << "\n";
        return kExitFailure;
    }
    return result.ok ? 0 : kExitFailure;
}

}  // namespace perfmarker::cli
