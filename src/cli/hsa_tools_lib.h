// Where the HSA trace agent is, and how it joins the HSA_TOOLS_LIB list of the application
// (`perfmarker trace --hsa`).
#pragma once

#include <string>

#include "cli/opencl_layers.h"  // AgentLocation

namespace perfmarker::cli {

inline constexpr char kHsaAgentFileName[] = "libHSATraceAgent.so";
inline constexpr char kHsaToolsVariable[] = "HSA_TOOLS_LIB";

// Looked for like the OpenCL agent (opencl_layers.h): $PERFMARKER_AGENT_DIR only when set, else
// the installed layout next to the OpenCL agent, else the build tree's agent.
AgentLocation locateHsaAgent(const char* agentDirOverride, const std::string& executable);

// The HSA_TOOLS_LIB value for the application: the user's tools in their order (the runtime
// reads a space-separated list), then our agent. Other copies of our agent are dropped.
std::string mergeHsaToolsLib(const std::string& agentPath, const char* existing);

}  // namespace perfmarker::cli
