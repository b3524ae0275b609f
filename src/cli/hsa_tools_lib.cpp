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
    AgentLocation location;
    if (agentDirOverride != nullptr && agentDirOverride[0] != '\0') {
        location.searched.push_back((fs::path(agentDirOverride) / kHsaAgentFileName).string());
    } else {
        const fs::path exeDir = fs::path(executable).parent_path();
        if (!executable.empty()) {
            location.searched.push_back(
                (exeDir / PERFMARKER_AGENT_RELATIVE_DIR / kHsaAgentFileName).lexically_normal().string());
        }
#ifdef PERFMARKER_BUILD_TREE_HSA_AGENT
        std::error_code error;
        if (!executable.empty() && fs::equivalent(exeDir, PERFMARKER_BUILD_TREE_EXE_DIR, error)) {
            location.searched.push_back(PERFMARKER_BUILD_TREE_HSA_AGENT);
        }
#endif
    }
    for (const std::string& candidate : location.searched) {
        std::error_code error;
        if (fs::is_regular_file(candidate, error)) {
            location.path = fs::absolute(candidate).lexically_normal().string();
            break;
        }
    }
    return location;
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
