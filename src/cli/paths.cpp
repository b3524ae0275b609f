#include "cli/paths.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "atp/merge/collect.h"
#include "record/session.h"

namespace perfmarker::cli {
namespace {

namespace fs = std::filesystem;

constexpr char kAtpExtension[] = ".atp";
constexpr char kPidToken[] = "___PID___";

// Classifies one candidate file: 0 runnable, else the shell's status (126 or 127).
int checkExecutable(const std::string& path, std::string& reason) {
    struct stat st {};
    if (stat(path.c_str(), &st) != 0) {
        reason = std::strerror(errno);
        return errno == ENOENT || errno == ENOTDIR ? 127 : 126;
    }
    if (S_ISDIR(st.st_mode)) {
        reason = std::strerror(EISDIR);
        return 126;
    }
    if (!S_ISREG(st.st_mode) || access(path.c_str(), X_OK) != 0) {
        reason = std::strerror(EACCES);
        return 126;
    }
    return 0;
}

}  // namespace

std::string absolutePath(const std::string& path) {
    return fs::absolute(path).lexically_normal().string();
}

std::string normalizeOutputPath(const std::string& output) {
    fs::path path = absolutePath(output.empty() ? "apitrace.atp" : output);
    if (path.filename().empty()) path /= "apitrace";  // "-o dir/" names the directory
    const std::string ext = path.extension().string();
    if (ext != kAtpExtension) {
        // An "extension" that holds the pid token is part of the name (run.___PID___).
        if (!ext.empty() && ext.find(kPidToken) == std::string::npos) path.replace_extension();
        path += kAtpExtension;
    }
    return path.string();
}

std::string processOutputPath(const std::string& output, long pid, bool isMain,
                              const std::string& ext) {
    std::string stem = output;
    const size_t extLen = sizeof kAtpExtension - 1;
    if (stem.size() > extLen && stem.compare(stem.size() - extLen, extLen, kAtpExtension) == 0) {
        stem.erase(stem.size() - extLen);
    }
    if (stem.find(kPidToken) != std::string::npos) {
        return record::expandPid(stem, pid) + "." + ext;
    }
    return isMain ? stem + "." + ext : stem + "." + std::to_string(pid) + "." + ext;
}

ResolvedCommand resolveCommand(const std::string& name, const std::string& searchPath) {
    ResolvedCommand result;
    std::string reason;
    if (name.find('/') != std::string::npos) {
        result.exitCode = checkExecutable(name, reason);
        if (result.exitCode == 0) {
            result.path = absolutePath(name);
        } else {
            result.error = name + ": " + reason;
        }
        return result;
    }
    result.exitCode = 127;
    result.error = name + ": command not found";
    size_t begin = 0;
    while (begin <= searchPath.size()) {
        size_t end = searchPath.find(':', begin);
        if (end == std::string::npos) end = searchPath.size();
        const std::string dir = searchPath.substr(begin, end - begin);
        const std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
        const int status = checkExecutable(candidate, reason);
        if (status == 0) return ResolvedCommand{absolutePath(candidate), 0, ""};
        if (status == 126 && result.exitCode == 127) {  // found, but not runnable: keep looking
            result.exitCode = 126;
            result.error = candidate + ": " + reason;
        }
        begin = end + 1;
    }
    return result;
}

std::string createSessionDir(const std::string& output, std::string& error) {
    const fs::path dir = fs::path(output).parent_path();
    std::string pattern = (dir / atp::kSessionDirPrefix).string() + "XXXXXX";
    if (mkdtemp(pattern.data()) == nullptr) {
        error =
            "cannot create a session directory in " + dir.string() + ": " + std::strerror(errno);
        return "";
    }
    return pattern;
}

std::string currentExecutable() {
    std::error_code error;
    const fs::path self = fs::read_symlink("/proc/self/exe", error);
    return error ? std::string() : self.string();
}

}  // namespace perfmarker::cli
