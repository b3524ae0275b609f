// A tiny application for the launcher tests: it reports what the launcher gave it and behaves
// as asked. One command per run:
//
//   env NAME...          prints NAME=value (or NAME unset) per name
//   exit N               exits with status N
//   kill SIGNAL          kills itself with signal number SIGNAL
//   session-dir          prints the permission bits of $PERFMARKER_TMPDIR (octal)
//   pwd                  prints the working directory
//   write-session-files  writes the per-process files an agent would leave (see below)
//   write-marker-file-only  writes only a marker file, one that is not a Perfmarker section
//   wait-signal FILE     creates FILE, then waits for SIGTERM; prints "got SIGTERM", exits 42
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

void printEnv(int argc, char** argv) {
    for (int i = 2; i < argc; ++i) {
        const char* value = std::getenv(argv[i]);
        if (value != nullptr) {
            std::printf("%s=%s\n", argv[i], value);
        } else {
            std::printf("%s unset\n", argv[i]);
        }
    }
}

int sessionDirMode() {
    const char* dir = std::getenv("PERFMARKER_TMPDIR");
    struct stat st {};
    if (dir == nullptr || stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) return 1;
    std::printf("%o\n", static_cast<unsigned>(st.st_mode & 07777));
    return 0;
}

bool writeFile(const std::string& path, const char* text) {
    FILE* file = std::fopen(path.c_str(), "w");
    if (file == nullptr) return false;
    std::fputs(text, file);
    return std::fclose(file) == 0;
}

// What a run leaves when the agents and libraries did their work: this process's trace and
// marker file (PERFMARKER_OUTPUT with its pid), the trace of another process (pid 99999), and
// a file the launcher does not know.
int writeSessionFiles() {
    const char* output = std::getenv("PERFMARKER_OUTPUT");
    const char* dir = std::getenv("PERFMARKER_TMPDIR");
    if (output == nullptr || dir == nullptr) return 1;
    std::string base = output;
    const std::string token = "___PID___";
    base.replace(base.find(token), token.size(), std::to_string(getpid()));
    const bool ok = writeFile(base + ".atp", "main trace\n") &&
                    writeFile(base + ".clperfmarker", "main markers\n") &&
                    writeFile(std::string(dir) + "/trace.99999.atp", "child trace\n") &&
                    writeFile(std::string(dir) + "/notes.txt", "foreign\n");
    return ok ? 0 : 1;
}

// Only a marker file, and one that is not a Perfmarker section: what a broken or foreign
// library could leave.
int writeMarkerFileOnly() {
    const char* output = std::getenv("PERFMARKER_OUTPUT");
    if (output == nullptr) return 1;
    std::string base = output;
    const std::string token = "___PID___";
    base.replace(base.find(token), token.size(), std::to_string(getpid()));
    return writeFile(base + ".clperfmarker", "not a marker section\n") ? 0 : 1;
}

volatile sig_atomic_t g_gotTerm = 0;

int waitForSignal(const char* readyFile) {
    struct sigaction action {};
    action.sa_handler = [](int) { g_gotTerm = 1; };
    sigemptyset(&action.sa_mask);
    sigaction(SIGTERM, &action, nullptr);
    // Whatever mask the test harness started us with, this command is about receiving SIGTERM.
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigprocmask(SIG_UNBLOCK, &set, nullptr);
    if (!writeFile(readyFile, "ready\n")) return 1;
    for (int i = 0; i < 3000 && !g_gotTerm; ++i) usleep(10000);
    if (!g_gotTerm) return 1;
    std::printf("got SIGTERM\n");
    return 42;
}

}  // namespace

int main(int argc, char** argv) {
    const std::string command = argc > 1 ? argv[1] : "";
    if (command == "env") {
        printEnv(argc, argv);
        return 0;
    }
    if (command == "exit" && argc > 2) return std::atoi(argv[2]);
    if (command == "kill" && argc > 2) {
        std::fflush(stdout);
        // The default action, even where a sanitizer runtime installed its own handler (it
        // would turn SIGSEGV into an exit status).
        const int sig = std::atoi(argv[2]);
        signal(sig, SIG_DFL);
        sigset_t set;
        sigemptyset(&set);
        sigaddset(&set, sig);
        sigprocmask(SIG_UNBLOCK, &set, nullptr);
        kill(getpid(), sig);
        return 1;
    }
    if (command == "session-dir") return sessionDirMode();
    if (command == "pwd") {
        char buffer[4096];
        if (getcwd(buffer, sizeof buffer) == nullptr) return 1;
        std::printf("%s\n", buffer);
        return 0;
    }
    if (command == "write-session-files") return writeSessionFiles();
    if (command == "write-marker-file-only") return writeMarkerFileOnly();
    if (command == "wait-signal" && argc > 2) return waitForSignal(argv[2]);
    std::fprintf(stderr, "cli_probe_app: unknown command '%s'\n", command.c_str());
    return 2;
}
