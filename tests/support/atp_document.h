// A whole .atp file in memory, for tests that assert on its lines: the header, the sections in
// file order, the thread blocks of every section as raw (trimmed) lines, and the markers.
// loadAtpFile() first reads the file with the product's one reader (atp/read/trace_parser.h),
// so every check of the format (thread blocks, pairing, field layout) holds for a file it
// loads; then it splits the text, which the product never needs to do.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "atp/format/atp_header.h"
#include "atp/format/perfmarker_section.h"

namespace perfmarker::atp {

struct AtpThreadBlock {
    uint64_t tid = 0;  // 0 for the lines of a section without thread blocks
    std::vector<std::string> lines;
};

struct AtpDocument {
    std::vector<std::pair<std::string, std::string>> header;    // in file order
    std::vector<SectionKind> sections;                          // in file order
    std::map<SectionKind, std::vector<AtpThreadBlock>> blocks;  // not for Perfmarker
    PerfmarkerFile markers;
    std::vector<std::string> warnings;  // the reader's warnings, "<file>:<line>: ..."

    // The value of the first header line with `key`, or null.
    const std::string* headerValue(std::string_view key) const;
};

// False with the reader's error ("<file>:<line>: expected ..., got ...") for a malformed file.
// An empty text (a writer that wrote nothing) is an empty document; the reader itself refuses
// it as no trace (docs/format.md#what-is-a-trace).
bool loadAtpText(std::string_view text, std::string_view name, AtpDocument& out,
                 std::string& error);
bool loadAtpFile(const std::string& path, AtpDocument& out, std::string& error);

}  // namespace perfmarker::atp
