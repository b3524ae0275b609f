// Where the OpenCL trace agent is, and how it joins the OPENCL_LAYERS list of the application.
#pragma once

#include <string>
#include <vector>

namespace perfmarker::cli {

// The agent's file name (also its SONAME).
inline constexpr char kAgentFileName[] = "libCLTraceAgent.so";

// Where the agent is looked for, in order (the first that exists wins):
//   1. $PERFMARKER_AGENT_DIR/libCLTraceAgent.so, when that variable is set (and only there);
//   2. the installed layout: <dir of the perfmarker executable>/<bin-to-agent path>, the path
//      from CMAKE_INSTALL_BINDIR to CMAKE_INSTALL_LIBDIR/perfmarker (usually ../lib/perfmarker);
//   3. the build tree: the agent this executable was built with, only when the running
//      executable is the one in the build tree.
// Returns the candidates in that order (for the error message) and the one found ("" if none).
struct AgentLocation {
    std::string path;
    std::vector<std::string> searched;
};
AgentLocation locateAgent(const char* agentDirOverride, const std::string& executable);

// The same search for any agent file of the installed tree (`fileName` in
// <bin-to-agent path>), with `buildTreePath` as the build tree's copy ("" when there is none).
AgentLocation locateAgentFile(const char* fileName, const std::string& buildTreePath,
                              const char* agentDirOverride, const std::string& executable);

// The OPENCL_LAYERS value for the application: our agent first (closest to the application, and
// the one layer child processes still see after ocl-icd truncates the variable at its first
// `:`), then the user's layers in their order. Empty entries and other copies of our agent (the
// same file, or any libCLTraceAgent.so) are dropped.
std::string mergeOpenClLayers(const std::string& agentPath, const char* existing);

}  // namespace perfmarker::cli
