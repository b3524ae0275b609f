// Runs the application as a child process: fork, exec with a given environment, forward the
// launcher's termination signals to it, and wait.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace perfmarker::cli {

struct ChildSpec {
    std::string path;                  // absolute path of the executable
    std::vector<std::string> argv;     // argv[0] as the user wrote it, then the arguments
    std::vector<std::string> environ;  // NAME=VALUE, the complete environment
    std::string workingDir;            // "" keeps the launcher's
};

struct ChildResult {
    bool started = false;  // exec succeeded
    long pid = -1;
    int exitCode = 0;   // the exit status, 128 + signal when killed, 126/127 if exec failed
    std::string error;  // why the child could not be started
};

// Signals forwarded while the child runs: SIGINT, SIGTERM, SIGHUP and SIGQUIT sent to the
// launcher by another process (kill(2)) are passed on to the child. Signals from the terminal
// (Ctrl-C) already reach the child, which shares the launcher's process group, so the launcher
// ignores those instead of sending a second copy; either way it keeps running, to merge the
// trace after the child ends. Default dispositions are restored before returning.
ChildResult runChild(const ChildSpec& spec);

// The launcher's own environment, NAME -> VALUE.
std::map<std::string, std::string> currentEnvironment();

}  // namespace perfmarker::cli
