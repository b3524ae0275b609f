#include "cli/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <ctime>

extern char** environ;

namespace perfmarker::cli {
namespace {

constexpr std::array<int, 4> kForwardedSignals = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// The forwarded signals and SIGCHLD. The launcher keeps them blocked while the application runs
// and takes them synchronously with sigwaitinfo(): no handler runs, so nothing depends on when
// a runtime (a sanitizer's, for one) chooses to deliver an asynchronous signal, and a signal
// that comes while the launcher is between two calls simply waits in the pending set.
sigset_t waitedSet() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : kForwardedSignals) sigaddset(&set, sig);
    sigaddset(&set, SIGCHLD);
    return set;
}

// In the child: restores the launcher's original mask and SIGCHLD disposition, reports the exec
// failure's errno through the close-on-exec pipe, then exits with the shell's status for it.
[[noreturn]] void execChild(const ChildSpec& spec, int errorPipe, const sigset_t& oldMask,
                            const struct sigaction& oldChild) {
    sigaction(SIGCHLD, &oldChild, nullptr);
    sigprocmask(SIG_SETMASK, &oldMask, nullptr);
    std::vector<char*> args;
    for (const std::string& arg : spec.argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    std::vector<char*> env;
    for (const std::string& var : spec.environ) env.push_back(const_cast<char*>(var.c_str()));
    env.push_back(nullptr);
    int error = 0;
    if (!spec.workingDir.empty() && chdir(spec.workingDir.c_str()) != 0) {
        error = errno;
    } else {
        execve(spec.path.c_str(), args.data(), env.data());
        error = errno;
    }
    ssize_t ignored = write(errorPipe, &error, sizeof error);
    (void)ignored;
    _exit(error == ENOENT ? 127 : 126);
}

// The errno the child sent before failing to exec, or 0 when exec succeeded (pipe closed).
int readExecError(int errorPipe) {
    int error = 0;
    ssize_t n;
    do {
        n = read(errorPipe, &error, sizeof error);
    } while (n < 0 && errno == EINTR);
    return n == static_cast<ssize_t>(sizeof error) ? error : 0;
}

// Waits for `pid`, passing on every forwarded signal that another process sent to the launcher
// (kill, a job runner). Signals the terminal sends reach the application directly, as it is in
// the launcher's process group, so those are not sent twice.
int waitForwarding(pid_t pid, const sigset_t& waited) {
    for (;;) {
        int status = 0;
        const pid_t done = waitpid(pid, &status, WNOHANG);
        if (done == pid) return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (done < 0 && errno != EINTR) return 1;
        siginfo_t info{};
        const int sig = sigwaitinfo(&waited, &info);
        if (sig > 0 && sig != SIGCHLD && (info.si_code == SI_USER || info.si_code == SI_QUEUE)) {
            kill(pid, sig);
        }
    }
}

// Takes forwarded signals still pending once the application is gone: they were meant for it,
// and the launcher still has its merge to do.
void discardPendingForwarded() {
    sigset_t forwarded;
    sigemptyset(&forwarded);
    for (int sig : kForwardedSignals) sigaddset(&forwarded, sig);
    const timespec now{0, 0};
    siginfo_t info{};
    while (sigtimedwait(&forwarded, &info, &now) > 0) {
    }
}

}  // namespace

ChildResult runChild(const ChildSpec& spec) {
    ChildResult result;
    int pipeFds[2];
    if (pipe2(pipeFds, O_CLOEXEC) != 0) {
        result.error = std::string("pipe: ") + std::strerror(errno);
        return result;
    }
    // SIGCHLD must not be ignored (an ignored SIGCHLD reaps the child before waitpid sees it).
    struct sigaction defaultChild {};
    defaultChild.sa_handler = SIG_DFL;
    sigemptyset(&defaultChild.sa_mask);
    struct sigaction oldChild {};
    sigaction(SIGCHLD, &defaultChild, &oldChild);
    const sigset_t waited = waitedSet();
    sigset_t oldMask;
    sigprocmask(SIG_BLOCK, &waited, &oldMask);
    const pid_t pid = fork();
    if (pid == 0) {
        close(pipeFds[0]);
        execChild(spec, pipeFds[1], oldMask, oldChild);
    }
    close(pipeFds[1]);
    if (pid < 0) {
        result.error = std::string("fork: ") + std::strerror(errno);
    } else {
        const int execError = readExecError(pipeFds[0]);
        result.pid = pid;
        result.exitCode = waitForwarding(pid, waited);
        discardPendingForwarded();
        result.started = execError == 0;
        if (!result.started) result.error = std::strerror(execError);
    }
    close(pipeFds[0]);
    sigaction(SIGCHLD, &oldChild, nullptr);
    sigprocmask(SIG_SETMASK, &oldMask, nullptr);
    return result;
}

std::map<std::string, std::string> currentEnvironment() {
    std::map<std::string, std::string> env;
    for (char** var = environ; var != nullptr && *var != nullptr; ++var) {
        const char* eq = std::strchr(*var, '=');
        if (eq != nullptr) env[std::string(*var, static_cast<size_t>(eq - *var))] = eq + 1;
    }
    return env;
}

}  // namespace perfmarker::cli
