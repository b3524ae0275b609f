#include "atp/merge/agent_registry.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace perfmarker::atp {
namespace {

std::string liveName(long pid, std::string_view tag) {
    return std::to_string(pid) + "." + std::string(tag) + std::string(kLiveSuffix);
}

std::vector<std::string> liveFilesOf(const std::string& dir, uint64_t pid) {
    std::vector<std::string> names;
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return names;
    while (const dirent* entry = readdir(d)) {
        uint64_t owner = 0;
        if (liveAgentPid(entry->d_name, owner) && owner == pid) names.emplace_back(entry->d_name);
    }
    closedir(d);
    return names;
}

// flock on the directory itself: no lock file to leave behind. Released by close().
class DirLock {
public:
    explicit DirLock(const std::string& dir)
        : m_fd(open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) {
        if (m_fd >= 0) {
            while (flock(m_fd, LOCK_EX) != 0 && errno == EINTR) {
            }
        }
    }
    ~DirLock() {
        if (m_fd >= 0) close(m_fd);
    }
    DirLock(const DirLock&) = delete;
    DirLock& operator=(const DirLock&) = delete;

private:
    int m_fd;
};

}  // namespace

bool registerLiveAgent(const std::string& dir, long pid, std::string_view tag, std::string& error) {
    const std::string path = dir + "/" + liveName(pid, tag);
    const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
        error = "cannot create " + path + ": " + std::strerror(errno);
        return false;
    }
    close(fd);
    return true;
}

bool finishLiveAgent(const std::string& dir, long pid, std::string_view tag) {
    const DirLock lock(dir);
    unlink((dir + "/" + liveName(pid, tag)).c_str());
    return liveFilesOf(dir, static_cast<uint64_t>(pid)).empty();
}

bool liveAgentPid(std::string_view name, uint64_t& pid) {
    if (name.size() <= kLiveSuffix.size() ||
        name.substr(name.size() - kLiveSuffix.size()) != kLiveSuffix)
        return false;
    const size_t dot = name.find('.');
    if (dot == 0 || dot == std::string_view::npos || dot + 1 >= name.size() - kLiveSuffix.size())
        return false;
    uint64_t value = 0;
    for (const char c : name.substr(0, dot)) {
        if (c < '0' || c > '9' || value > (UINT64_MAX - 9) / 10) return false;
        value = value * 10 + static_cast<uint64_t>(c - '0');
    }
    pid = value;
    return true;
}

size_t removeLiveAgents(const std::string& dir, uint64_t pid) {
    size_t removed = 0;
    for (const std::string& name : liveFilesOf(dir, pid)) {
        if (unlink((dir + "/" + name).c_str()) == 0) ++removed;
    }
    return removed;
}

}  // namespace perfmarker::atp
