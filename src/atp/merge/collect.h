// Collecting a session (docs/session.md#collecting): after the application, merge what the
// agents and marker libraries left in the session directory into one .atp per process, move
// each process's files to the user's output names, report, and remove the directory when
// nothing is left in it. The one home of this step: `perfmarker trace` and `perfmarker merge`
// call collectSession(); the agents merge at exit through mergeAtAgentExit()
// (session_merge.h), which writes the same .atp for the same fragments.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "atp/format/clock_anchors.h"
#include "atp/write/call_sites.h"
#include "record/session.h"

namespace perfmarker::atp {

// Per-process files in a session directory are <kSessionBaseName>.<pid>.<ext>: the launcher sets
// PERFMARKER_OUTPUT to <session dir>/<kSessionBaseName>.___PID___.
inline constexpr char kSessionBaseName[] = "trace";

// Prefix of the session directories the launcher creates (mkdtemp, mode 0700) in the
// directory of the output file.
inline constexpr char kSessionDirPrefix[] = "perfmarker-session.";

// What the .atp header says about the run (docs/format.md#header: Application, ApplicationArgs,
// WorkingDirectory, EnvVar lines, and docs/format.md#clock-anchors). Empty for
// `perfmarker merge`, which does not know the run.
struct RunDescription {
    std::string application;                                   // absolute path
    std::vector<std::string> arguments;                        // argv[1..]
    std::string workingDirectory;                              // the application's
    std::vector<std::pair<std::string, std::string>> envVars;  // -e values, in command-line order
    std::string hostName;                                      // the machine it ran on
    std::optional<ClockAnchor> clockStart;                     // before it started
    std::optional<ClockAnchor> clockEnd;                       // after it ended
};

struct CollectRequest {
    std::string sessionDir;
    long mainPid = -1;  // the application; -1: unknown (then a single process is the main one)
    RunDescription run;
    record::SessionConfig session;  // the run's trace options, for the merge
    bool removeWhenEmpty = true;    // rmdir the session directory when nothing is left
    // Where the file of process `pid` with extension `ext` ("atp", "clperfmarker", ...) goes
    // (empty: every file stays in the session directory).
    std::function<std::string(long pid, bool isMain, const std::string& ext)> outputPath;
    // Bytes merged so far out of the total for one process (may be empty).
    std::function<void(long pid, uint64_t done, uint64_t total)> progress;
    std::function<void()> progressDone;  // after the last process was merged (may be empty)
    // The writer of the Stack Trace sections' lines (merger.h MergeOptions::callSites); empty:
    // bare API names (the launcher passes the symbolizing one, atp/symbols).
    std::function<std::unique_ptr<CallSiteWriter>(const std::string& modulesPath)> callSites;
};

struct CollectResult {
    std::vector<std::string> written;   // final files, in the order they were moved
    std::vector<std::string> leftOver;  // names still in the session directory
    bool removed = false;               // the session directory was removed
    bool ok = true;                     // every process merged and every file moved
};

// Messages ("perfmarker: ...") go to `log`.
CollectResult collectSession(const CollectRequest& request, std::ostream& log);

// The pid of a per-process file name "trace.<pid>.<ext>" (ext: one word of letters and
// digits, so temporary names such as trace.42.atp.tmp42 are not matched); -1 otherwise.
// `ext` receives the extension.
long sessionFilePid(const std::string& name, std::string& ext);

}  // namespace perfmarker::atp
