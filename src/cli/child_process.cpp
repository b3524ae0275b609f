#include "cli/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

namespace perfmarker::cli {
namespace {

constexpr std::array<int, 4> kForwardedSignals = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// The child being waited for; 0 outside runChild and after it was reaped (so that a recycled
// pid never receives a forwarded signal). Written only with the forwarded signals blocked.
volatile sig_atomic_t g_child = 0;

void forwardSignal(int sig, siginfo_t* info, void*) {
    const bool sentByProcess =
        info != nullptr && (info->si_code == SI_USER || info->si_code == SI_QUEUE);
    const pid_t child = static_cast<pid_t>(g_child);
    if (sentByProcess && child > 0) {
        const int savedErrno = errno;
        kill(child, sig);
        errno = savedErrno;
    }
}

sigset_t forwardedSet() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : kForwardedSignals) sigaddset(&set, sig);
    return set;
}

// The dispositions the launcher was started with, restored in the child before exec and in the
// launcher afterwards (an application started with SIGHUP ignored, under nohup, keeps it so).
std::array<struct sigaction, kForwardedSignals.size()> g_savedActions{};

void installForwarding() {
    for (size_t i = 0; i < kForwardedSignals.size(); ++i) {
        sigaction(kForwardedSignals[i], nullptr, &g_savedActions[i]);
    }
    struct sigaction action {};
    action.sa_sigaction = &forwardSignal;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (int sig : kForwardedSignals) sigaction(sig, &action, nullptr);
}

void restoreSavedActions() {
    for (size_t i = 0; i < kForwardedSignals.size(); ++i) {
        sigaction(kForwardedSignals[i], &g_savedActions[i], nullptr);
    }
}

// In the child: reports the exec failure's errno through the close-on-exec pipe, then exits
// with the shell's status for it.
[[noreturn]] void execChild(const ChildSpec& spec, int errorPipe, const sigset_t& oldMask) {
    restoreSavedActions();
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

int waitForExit(pid_t pid) {
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) return 1;
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

ChildResult runChild(const ChildSpec& spec) {
    ChildResult result;
    int pipeFds[2];
    if (pipe2(pipeFds, O_CLOEXEC) != 0) {
        result.error = std::string("pipe: ") + std::strerror(errno);
        return result;
    }
    // Block the forwarded signals across fork so that g_child is set before any handler runs.
    const sigset_t blocked = forwardedSet();
    sigset_t oldMask;
    sigprocmask(SIG_BLOCK, &blocked, &oldMask);
    installForwarding();
    const pid_t pid = fork();
    if (pid == 0) {
        close(pipeFds[0]);
        execChild(spec, pipeFds[1], oldMask);
    }
    close(pipeFds[1]);
    if (pid < 0) {
        result.error = std::string("fork: ") + std::strerror(errno);
    } else {
        g_child = pid;
        // The launcher itself always takes the forwarded signals while it waits, even when its
        // parent started it with them blocked (the application keeps the mask it inherited).
        sigset_t waitMask = oldMask;
        for (int sig : kForwardedSignals) sigdelset(&waitMask, sig);
        sigprocmask(SIG_SETMASK, &waitMask, nullptr);
        const int execError = readExecError(pipeFds[0]);
        result.pid = pid;
        result.exitCode = waitForExit(pid);
        sigprocmask(SIG_BLOCK, &blocked, nullptr);
        g_child = 0;
        result.started = execError == 0;
        if (!result.started) result.error = std::strerror(execError);
    }
    close(pipeFds[0]);
    restoreSavedActions();
    sigprocmask(SIG_SETMASK, &oldMask, nullptr);
    return result;
}

}  // namespace perfmarker::cli
