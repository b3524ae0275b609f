// The merge step: one process's fragments and marker files -> "<base>.atp"
// (docs/opencl-trace.md#the-merge-step). Used by the launcher after the application exits (or
// crashed), by the agent at exit, and by recovery tools.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "atp/format/atp_header.h"
#include "atp/write/hsa_sections.h"
#include "atp/write/ocl_sections.h"

namespace perfmarker::atp {

// Fragment tags ("<pid>_<n>.<tag>.frag", record/fragments/fragment.h) and finished-file extensions.
inline constexpr std::string_view kOclFragmentTag = "ocl";
inline constexpr std::string_view kHsaFragmentTag = "hsa";
inline constexpr std::string_view kClPerfMarkerTag = "clperfmarker";
inline constexpr std::string_view kActivityLoggerTag = "amdtperfmarker";

struct MergeOptions {
    OclTraceOptions ocl;
    HsaTraceOptions hsa;
    const OclFormatter* formatter = nullptr;  // null: defaultOclFormatter()
    bool removeInputs = true;                 // delete what was merged, once the .atp is in place
    // Input bytes read so far and the bytes to read in all (the total can grow once, when the
    // maxApiCalls cut needs one more reading). Called after every file read.
    std::function<void(uint64_t done, uint64_t total)> progress;
    // The Stack Trace sections (docs/call-sites.md), written when the process left a modules file
    // (`<pid>.modules` next to its fragments: the agents write it with PERFMARKER_SYM=1): given
    // that file, the writer of the call-site lines. Null: no
    // Stack Trace sections.
    std::function<std::unique_ptr<CallSiteWriter>(const std::string& modulesPath)> callSites;
    // Receives each note (truncated fragment, dropped lines, missing device times, ...).
    // Null: "perfmarker: <note>" on stderr.
    std::function<void(const std::string& note)> note;
};

struct MergeResult {
    bool written = false;  // false: no record of the process was found, and no .atp was made
    std::string atpPath;
    OclTraceStats ocl;
    HsaTraceStats hsa;
    uint64_t markerThreads = 0;        // thread blocks of the Perfmarker section
    std::vector<std::string> removed;  // inputs deleted after the .atp was renamed into place
    std::vector<std::string> kept;     // inputs found but not merged (unreadable, superseded)
    std::vector<std::string> notes;    // every note, also passed to MergeOptions::note
};

// Merges process `pid`: its OpenCL fragments `<pid>_*.ocl.frag` in `tempDir` (threads in
// (tid, serial) order; threads with the same tid form one thread block), and per marker
// library its fragments `<pid>_*.clperfmarker.frag` / `.amdtperfmarker.frag` or, when it has
// none, the finished `<base>.clperfmarker` / `<base>.amdtperfmarker`
// (docs/opencl-trace.md#the-merge-step). `<base>` is `outputBase` with ___PID___ replaced by `pid`.
// Writes `<base>.atp`: the header, the OpenCL API Trace and Timestamp sections, the Perfmarker
// section (each only when it has content).
//
// Returns false with `error` (naming the path and the reason) when the .atp cannot be written;
// the inputs are then left untouched. Unreadable or truncated inputs are notes, not errors: a
// truncated fragment (the application died mid-write) contributes every whole record before
// the cut. With nothing to merge it returns true with result.written == false.
bool mergeProcess(const std::string& tempDir, uint64_t pid, const std::string& outputBase,
                  const AtpHeader& header, const MergeOptions& options, MergeResult& result,
                  std::string& error);

struct SessionDirListing {
    std::vector<uint64_t> pids;        // processes with at least one fragment, ascending
    std::vector<std::string> foreign;  // names of other entries, sorted (reported, never touched)
};

// The processes that left fragments in a session's temporary directory (e.g. to merge after
// the launcher itself was interrupted). False with `error` when the directory cannot be read.
bool listSessionPids(const std::string& dir, SessionDirListing& out, std::string& error);

}  // namespace perfmarker::atp
