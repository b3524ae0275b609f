// Path rules of the launcher: the output name, where each process's files go, and how the
// application named on the command line is found (the way a shell finds it).
#pragma once

#include <string>

namespace perfmarker::cli {

// `path` made absolute against the current directory (lexically normalized; symlinks kept).
std::string absolutePath(const std::string& path);

// The user's -o value as the trace file name: absolute, extension normalized to `.atp` (an
// existing extension is replaced, a name without one gets `.atp` appended). `___PID___` is
// kept. An empty value gives ./apitrace.atp.
std::string normalizeOutputPath(const std::string& output);

// Where a process's file with extension `ext` ("atp", "clperfmarker", ...) goes, given the
// normalized output path. With `___PID___` in the output every process gets the output with
// its pid; otherwise the main process gets <stem>.<ext> and every other <stem>.<pid>.<ext>
// (<stem> is the output without `.atp`).
std::string processOutputPath(const std::string& output, long pid, bool isMain,
                              const std::string& ext);

// The result of looking up the application, with the exit status a shell would give when it
// cannot be run: 127 (not found) or 126 (found but not executable).
struct ResolvedCommand {
    std::string path;   // absolute path to execute; empty on failure
    int exitCode = 0;   // 0, 126 or 127
    std::string error;  // "<name>: No such file or directory", ...
};

// Finds `name`: a name with a `/` is taken as a path, otherwise searched in `searchPath` (a
// PATH value; an empty element is the current directory).
ResolvedCommand resolveCommand(const std::string& name, const std::string& searchPath);

// Creates <dir of output>/perfmarker-session.XXXXXX (mkdtemp: mode 0700, owned by us). The
// session lives next to the output so that the final files are renamed, not copied, and a
// session left behind by a crash is found where the output was expected. "" (and `error`) when
// it cannot.
std::string createSessionDir(const std::string& output, std::string& error);

// The absolute path of the running executable ("" when /proc is not available).
std::string currentExecutable();

}  // namespace perfmarker::cli
