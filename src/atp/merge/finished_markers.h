// A marker library's finished file (`<base>.clperfmarker` / `.amdtperfmarker`, written by its
// finalize), as the merge takes it into the .atp (docs/opencl-trace.md#the-merge-step): checked
// whole first, then copied without its section line. Both read the file a block at a time.
#pragma once

#include <cstdint>
#include <string>

#include "atp/format/atp_file_writer.h"

namespace perfmarker::atp {

// Counts the thread blocks of a finished marker file and rejects anything but markers: false
// with `problem` ("<file>:<line>: ...") at a header line, a section of another kind, a malformed
// marker line, or a file that cannot be read.
bool checkFinishedMarkerFile(const std::string& path, uint64_t& threads, std::string& problem);

// Appends the file's lines to `out`, without section lines, blank lines, "ProfilerVersion="
// lines and CRs, each ending in '\n'. False with `error` when the file cannot be read, or when
// `out` failed (`out` keeps the reason).
bool copyFinishedMarkerLines(const std::string& path, AtpFileWriter& out, std::string& error);

}  // namespace perfmarker::atp
