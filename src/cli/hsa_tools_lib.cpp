#include "cli/hsa_tools_lib.h"

#include <filesystem>
#include <sstream>

namespace perfmarker::cli {
namespace {

namespace fs = std::filesystem;

bool isOurAgent(const std::string& tool, const std::string& agentPath) {
    std::error_code error;
    return tool == agentPath || fs::path(tool).filename() == kHsaAgentFileName ||
           fs::equivalent(tool, agentPath, error);
}

}  // namespace

AgentLocation locateHsaAgent(const char* agentDirOverride, const std::string& executable) {
#ifdef PERFMARKER_BUILD_TREE_HSA_AGENT
    const std::string buildTree = PERFMARKER_BUILD_TREE_HSA_AGENT;
#else
    const std::string buildTree;
#endif
    return locateAgentFile(kHsaAgentFileName, buildTree, agentDirOverride, executable);
}

std::string mergeHsaToolsLib(const std::string& agentPath, const char* existing) {
    std::string merged;
    std::istringstream tools(existing != nullptr ? existing : "");
    for (std::string tool; tools >> tool;) {
        if (!isOurAgent(tool, agentPath)) merged += tool + " ";
    }
    return merged + agentPath;
}

}  // namespace perfmarker::cli
