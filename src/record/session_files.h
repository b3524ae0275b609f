// Where a session's files go (docs/session.md#files-in-shared-directories): the temporary files
// of a process live in a directory only its user can enter. The files themselves are created
// and read through atp/format/safe_files.h.
#pragma once

#include <string>
#include <vector>

#include "record/session.h"

namespace perfmarker::record {

// The directory the session names for temporary files: PERFMARKER_TMPDIR, or the directory of
// the output base of process `pid`.
std::string sessionTempDir(const SessionConfig& config, long pid);

// True when `dir` is a directory (not a link to one) owned by this user that no one else may
// enter or list (mode & 077 == 0), like the launcher's session directory.
bool isPrivateDirectory(const std::string& dir);

// Whether `dir` may hold session files: an existing directory, and not one that everyone may
// write to unless it is sticky (/tmp is; a 0777 directory is not: others could rename our
// files). False with `error` naming the directory and why.
bool checkTempDir(const std::string& dir, std::string& error);

// Prefix of the per-process directories in a shared temp directory: "perfmarker-<uid>.<pid>".
std::string processDirName(long pid);

// Where process `pid` keeps its session files in `tempDir`: `tempDir` itself when it is
// private (isPrivateDirectory); else the first of perfmarker-<uid>.<pid>, perfmarker-<uid>.<pid>.1,
// ... in it that is a private directory of ours, created with mode 0700 when `create` and none
// is. Every library of the process walks the same names, so all of them find the same one, and
// a name someone else took is skipped. "" with `error` when there is none (or `tempDir` fails
// checkTempDir).
std::string processFilesDir(const std::string& tempDir, long pid, bool create, std::string& error);

// The pids that have a private process directory of ours in `tempDir` (see processFilesDir).
std::vector<long> processDirPids(const std::string& tempDir);

}  // namespace perfmarker::record
