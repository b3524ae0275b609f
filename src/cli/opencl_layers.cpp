#include "cli/opencl_layers.h"

#include <filesystem>

namespace perfmarker::cli {
namespace {

namespace fs = std::filesystem;

bool isFile(const std::string& path) {
    std::error_code error;
    return fs::is_regular_file(path, error);
}

bool sameFile(const std::string& a, const std::string& b) {
    std::error_code error;
    return fs::equivalent(a, b, error);
}

bool isOurAgent(const std::string& layer, const std::string& agentPath) {
    return layer == agentPath || fs::path(layer).filename() == kAgentFileName ||
           sameFile(layer, agentPath);
}

}  // namespace

AgentLocation locateAgentFile(const char* fileName, const std::string& buildTreePath,
                              const char* agentDirOverride, const std::string& executable) {
    AgentLocation location;
    if (agentDirOverride != nullptr && agentDirOverride[0] != '\0') {
        location.searched.push_back((fs::path(agentDirOverride) / fileName).string());
    } else {
        const fs::path exeDir = fs::path(executable).parent_path();
        if (!executable.empty()) {
            location.searched.push_back(
                (exeDir / PERFMARKER_AGENT_RELATIVE_DIR / fileName).lexically_normal().string());
        }
#ifdef PERFMARKER_BUILD_TREE_EXE_DIR
        if (!buildTreePath.empty() && !executable.empty() &&
            sameFile(exeDir.string(), PERFMARKER_BUILD_TREE_EXE_DIR)) {
            location.searched.push_back(buildTreePath);
        }
#endif
    }
    for (const std::string& candidate : location.searched) {
        if (isFile(candidate)) {
            location.path = fs::absolute(candidate).lexically_normal().string();
            break;
        }
    }
    return location;
}

AgentLocation locateAgent(const char* agentDirOverride, const std::string& executable) {
#ifdef PERFMARKER_BUILD_TREE_AGENT
    const std::string buildTree = PERFMARKER_BUILD_TREE_AGENT;
#else
    const std::string buildTree;
#endif
    return locateAgentFile(kAgentFileName, buildTree, agentDirOverride, executable);
}

std::string mergeOpenClLayers(const std::string& agentPath, const char* existing) {
    std::string merged = agentPath;
    const std::string list = existing != nullptr ? existing : "";
    size_t begin = 0;
    while (begin < list.size()) {
        size_t end = list.find(':', begin);
        if (end == std::string::npos) end = list.size();
        const std::string layer = list.substr(begin, end - begin);
        if (!layer.empty() && !isOurAgent(layer, agentPath)) merged += ":" + layer;
        begin = end + 1;
    }
    return merged;
}

}  // namespace perfmarker::cli
