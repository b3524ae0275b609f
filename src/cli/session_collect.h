// After the application: merge what the agents left in the session directory, move each
// process's files to the user's output names, report, and remove the directory when nothing is
// left in it. Shared by `perfmarker trace` and `perfmarker merge`.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "cli/merge_step.h"

namespace perfmarker::cli {

// Per-process files in a session directory are <kSessionBaseName>.<pid>.<ext>: the launcher sets
// PERFMARKER_OUTPUT to <session dir>/<kSessionBaseName>.___PID___.
inline constexpr char kSessionBaseName[] = "trace";

// Prefix of the session directories the launcher creates (mkdtemp, mode 0700) in the
// directory of the output file.
inline constexpr char kSessionDirPrefix[] = "perfmarker-session.";

struct CollectRequest {
    std::string sessionDir;
    std::string output;  // normalized trace path (normalizeOutputPath)
    long mainPid = -1;   // the application; -1: unknown (then a single process is the main one)
    RunDescription run;
    bool progress = false;        // progress line on stderr while merging
    bool removeWhenEmpty = true;  // rmdir the session directory when nothing is left
    record::SessionConfig session;  // the run's trace options, for the merge
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

}  // namespace perfmarker::cli
