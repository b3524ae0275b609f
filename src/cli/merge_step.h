// The merge step as the launcher sees it: turn whatever the agents and marker libraries left in
// a session directory into one `.atp` per process. mergeSessionLeftovers() (merge_step.cpp) is
// the one function that reaches into the trace format module (src/atp/merge/merger.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "record/session.h"

namespace perfmarker::cli {

// What the `.atp` header says about the run (spec 1.2: Application, ApplicationArgs,
// WorkingDirectory, EnvVar lines). Empty for `perfmarker merge`, which does not know the run.
struct RunDescription {
    std::string application;                                   // absolute path
    std::vector<std::string> arguments;                        // argv[1..]
    std::string workingDirectory;                              // -w value; "" when not given
    std::vector<std::pair<std::string, std::string>> envVars;  // -e values, in command-line order
};

// Bytes merged so far out of the total for one process.
using MergeProgress = std::function<void(long pid, uint64_t done, uint64_t total)>;

struct MergeJob {
    std::string sessionDir;                           // fragments and marker files
    std::function<std::string(long pid)> outputBase;  // `.atp` path without the extension
    RunDescription run;
    MergeProgress progress;  // may be empty
    record::SessionConfig session;  // trace options of the run (collapse, call cap, API filter)
};

struct ProcessMerge {
    long pid = 0;
    std::string atpPath;  // written file; empty on failure
    std::string error;    // why it failed
};

struct MergeReport {
    std::vector<ProcessMerge> processes;
};

// Merges every process that has fragments in job.sessionDir, and every process in
// `markerOnlyPids` (its marker library finished its own file, and no agent wrote an `.atp`:
// an application that records markers without making OpenCL or HSA calls), writing
// job.outputBase(pid) + ".atp" and deleting what it consumed. Files of other processes and
// foreign files are left alone.
MergeReport mergeSessionLeftovers(const MergeJob& job,
                                  const std::vector<long>& markerOnlyPids = {});

}  // namespace perfmarker::cli
