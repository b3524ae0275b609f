// Reads the call sites of a trace file ahead of its records. A tool that writes each API call
// as it arrives (the Perfetto export, docs/export.md#call-sites) meets a call before the Stack
// Trace section that names its call site, which comes after the API sections
// (docs/format.md#sections); it reads the Stack Trace sections first, with a parser that passes
// over every other section without parsing it, and looks the calls up in the index as they come.
#pragma once

#include <string>

#include "analysis/callsites/call_sites.h"

namespace perfmarker::callsites {

// Fills `index` (cleared first) with the Stack Trace lines of the file at `path`. Only a
// regular file is read (a pipe or a terminal would be consumed): false with `error` for
// anything else, for a file that cannot be opened, and at a malformed line (the lines before it
// stay in `index`; the tool's own parse of the file stops at the same line with the same
// message).
bool readCallSites(const std::string& path, CallSiteIndex& index, std::string& error);

}  // namespace perfmarker::callsites
