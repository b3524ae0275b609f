// Where a session's files go (see session_files.h).
#include "record/session_files.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace perfmarker::record {
namespace {

// perfmarker-<uid>.<pid>, then .1 ... .15: names others took are skipped.
constexpr int kProcessDirTries = 16;

std::string candidate(const std::string& tempDir, long pid, int k) {
    std::string path = tempDir + "/" + processDirName(pid);
    if (k > 0) path += "." + std::to_string(k);
    return path;
}

}  // namespace

std::string sessionTempDir(const SessionConfig& config, long pid) {
    return config.tempDir.empty() ? directoryOf(expandPid(config.outputBase, pid)) : config.tempDir;
}

bool isPrivateDirectory(const std::string& dir) {
    struct stat st {};
    return lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid == geteuid() &&
           (st.st_mode & 077) == 0;
}

bool checkTempDir(const std::string& dir, std::string& error) {
    struct stat st {};
    if (stat(dir.c_str(), &st) != 0) {
        error = "the directory " + dir + " for temporary files: " + std::strerror(errno);
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        error = dir + " (for temporary files) is not a directory";
        return false;
    }
    if ((st.st_mode & S_IWOTH) != 0 && (st.st_mode & S_ISVTX) == 0) {
        error = dir +
                " (for temporary files) is writable by everyone and not sticky: others could "
                "replace the session's files there; choose another PERFMARKER_TMPDIR or chmod +t";
        return false;
    }
    return true;
}

std::string processDirName(long pid) {
    return "perfmarker-" + std::to_string(geteuid()) + "." + std::to_string(pid);
}

std::string processFilesDir(const std::string& tempDir, long pid, bool create, std::string& error) {
    if (!checkTempDir(tempDir, error)) return {};
    if (isPrivateDirectory(tempDir)) return tempDir;
    for (int k = 0; k < kProcessDirTries; ++k) {
        const std::string dir = candidate(tempDir, pid, k);
        if (isPrivateDirectory(dir)) return dir;
        if (!create) continue;
        if (mkdir(dir.c_str(), 0700) == 0) {
            // The umask cannot have widened 0700; a mode narrower than that would lock us out.
            if (isPrivateDirectory(dir) ||
                (chmod(dir.c_str(), 0700) == 0 && isPrivateDirectory(dir)))
                return dir;
        } else if (errno != EEXIST) {
            error = "cannot create " + dir + ": " + std::strerror(errno);
            return {};
        } else if (isPrivateDirectory(dir)) {
            return dir;  // another library of this process created it just now
        }
    }
    error = create ? "no private directory could be made in " + tempDir + " (" +
                         candidate(tempDir, pid, 0) + " and the next names belong to others)"
                   : "no private directory of process " + std::to_string(pid) + " in " + tempDir;
    return {};
}

std::vector<long> processDirPids(const std::string& tempDir) {
    std::vector<long> pids;
    DIR* d = opendir(tempDir.c_str());
    if (d == nullptr) return pids;
    const std::string prefix = "perfmarker-" + std::to_string(geteuid()) + ".";
    while (const dirent* entry = readdir(d)) {
        const std::string name = entry->d_name;
        if (name.compare(0, prefix.size(), prefix) != 0) continue;
        char* end = nullptr;
        const long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
        if (end == name.c_str() + prefix.size() || pid <= 0) continue;
        if ((*end != '\0' && *end != '.') || !isPrivateDirectory(tempDir + "/" + name)) continue;
        pids.push_back(pid);
    }
    closedir(d);
    std::sort(pids.begin(), pids.end());
    pids.erase(std::unique(pids.begin(), pids.end()), pids.end());
    return pids;
}

}  // namespace perfmarker::record
