// Runs a test program in a child process with a modified environment (the ICD loader reads its
// configuration from the environment once per process, so each configuration needs a process).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace perfmarker::test {

struct ProcessResult {
    int exitCode = -1;  // 128 + signal number when killed by a signal
    std::string out;
    std::string err;
};

// Environment changes: a value sets the variable, std::nullopt removes it.
using EnvChanges = std::map<std::string, std::optional<std::string>>;

// Runs argv[0] (a path) with the arguments; stdout and stderr are captured through files in
// `scratchDir`.
ProcessResult runProcess(const std::vector<std::string>& argv, const EnvChanges& env,
                         const std::string& scratchDir);

// A fresh directory under the system temporary directory, removed by the destructor.
class ScratchDir {
public:
    ScratchDir();
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

std::string readFile(const std::string& path);
void writeFile(const std::string& path, const std::string& text);

}  // namespace perfmarker::test
