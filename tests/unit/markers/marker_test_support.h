// Helpers shared by the marker-library tests: a scratch directory, directory listing, and
// running a test body in a forked child that reports failures through a pipe (for tests that
// need a fresh process: global state, crashes, resource limits).
#pragma once

#include <dirent.h>
#include <ftw.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace perfmarker::test {

class TempDir {
public:
    explicit TempDir(const char* tag = "test") {
        std::string pattern = "/tmp/pm-markers-" + std::string(tag) + "-XXXXXX";
        const char* made = mkdtemp(pattern.data());
        if (made == nullptr) {
            std::perror("mkdtemp");
            std::abort();
        }
        m_path = made;
    }
    ~TempDir() {
        nftw(
            m_path.c_str(),
            [](const char* path, const struct stat*, int, FTW*) { return std::remove(path); }, 16,
            FTW_DEPTH | FTW_PHYS);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::string& path() const { return m_path; }
    std::string operator/(const std::string& name) const { return m_path + "/" + name; }

private:
    std::string m_path;
};

inline std::vector<std::string> listDir(const std::string& dir) {
    std::vector<std::string> names;
    std::unique_ptr<DIR, int (*)(DIR*)> d(opendir(dir.c_str()), closedir);
    if (!d) return names;
    while (dirent* e = readdir(d.get())) {
        const std::string name = e->d_name;
        if (name != "." && name != "..") names.push_back(name);
    }
    std::sort(names.begin(), names.end());
    return names;
}

struct ChildResult {
    pid_t pid = -1;
    int status = -1;
    std::string failures;
    bool exitedCleanly() const { return WIFEXITED(status) && WEXITSTATUS(status) == 0; }
};

// The child's side of the report pipe: every failure is written at once, so a child that
// crashes on purpose still reports what went wrong before.
class ChildReport {
public:
    explicit ChildReport(int fd) : m_fd(fd) {}
    void fail(int line, const std::string& what) {
        const std::string text = "child line " + std::to_string(line) + ": " + what + "\n";
        (void)!::write(m_fd, text.data(), text.size());
    }
    void expectEq(long long actual, long long expected, const char* what, int line) {
        if (actual != expected) {
            fail(line, std::string(what) + " = " + std::to_string(actual) + ", expected " +
                           std::to_string(expected));
        }
    }

private:
    int m_fd;
};
// Runs `body` in a forked child that leaves with _exit(0) unless `body` leaves otherwise.
inline ChildResult runInChild(const std::function<void(ChildReport&)>& body) {
    ChildResult result;
    int fds[2];
    if (pipe(fds) != 0) {
        result.failures = "pipe failed";
        return result;
    }
    std::fflush(stdout);
    std::fflush(stderr);
    result.pid = fork();
    if (result.pid == 0) {
        alarm(30);  // a hung child dies of SIGALRM instead of hanging the test
        close(fds[0]);
        ChildReport report(fds[1]);
        body(report);
        _exit(0);
    }
    close(fds[1]);
    char buffer[4096];
    for (ssize_t n; (n = read(fds[0], buffer, sizeof buffer)) != 0;) {
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) break;
        result.failures.append(buffer, static_cast<size_t>(n));
    }
    close(fds[0]);
    while (waitpid(result.pid, &result.status, 0) < 0 && errno == EINTR) {
    }
    return result;
}

}  // namespace perfmarker::test
