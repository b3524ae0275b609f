// A marker library's finished file (`<base>.clperfmarker` / `.amdtperfmarker`, written by its
// finalize), as the merge takes it into the .atp (docs/opencl-trace.md#the-merge-step): checked
// whole first, then copied without its section line. Both read the file a block at a time, except
// for a file whose finalize's receipt still matches (atp/format/finished_receipt.h): it is taken
// as written, and its thread blocks are copied inside the kernel.
#pragma once

#include <cstdint>
#include <string>

#include "atp/format/atp_file_writer.h"

namespace perfmarker::atp {

// What checkFinishedMarkerFile found.
struct FinishedMarkerFile {
    uint64_t threads = 0;    // thread blocks
    bool receipted = false;  // the receipt matched: no line was parsed
};

// Counts the thread blocks of a finished marker file and rejects anything but markers: false
// with `problem` ("<file>:<line>: ...") at a header line, a section of another kind, a malformed
// marker line, or a file that cannot be read. A file with a matching receipt is not parsed.
bool checkFinishedMarkerFile(const std::string& path, FinishedMarkerFile& file,
                             std::string& problem);

// Appends the file's lines to `out`, without section lines, blank lines, "ProfilerVersion="
// lines and CRs, each ending in '\n': the thread blocks as they are when the receipt still
// matches. False with `error` when the file cannot be read, or when `out` failed (`out` keeps
// the reason).
bool copyFinishedMarkerLines(const std::string& path, AtpFileWriter& out, std::string& error);

}  // namespace perfmarker::atp
