// Streaming reader of .atp files (spec §1): header, sections (also under their legacy names),
// thread blocks, API lines, timestamp fields and the Perfmarker section. One line is held at a
// time, so files of any size can be read; the loadAtp() convenience keeps everything.
#pragma once

#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "atp/atp_header.h"
#include "atp/perfmarker_section.h"

namespace perfmarker::atp {

// One API-trace line: "Ret = Name ( p1;p2;... /*comment*/ )" (spec §2.1). HSA lines of void
// APIs have no "Ret = " (spec §4.1). Views into the line text.
struct ApiLine {
    std::string_view returnValue;  // empty when the line has none
    std::string_view name;
    std::vector<std::string_view> params;  // split on ';' outside quotes and brackets
    std::string_view comment;              // text between /* and */, empty when none
};

// False with `error` ("expected ..., got ...") when `line` does not have the shape above.
bool parseApiLine(std::string_view line, ApiLine& out, std::string& error);

// Receives what the reader finds, in file order. Views are valid during the call only.
class AtpListener {
public:
    virtual ~AtpListener() = default;
    virtual void onHeader(std::string_view key, std::string_view value, uint64_t line) {
        (void)key, (void)value, (void)line;
    }
    virtual void onSection(SectionKind kind, std::string_view name, uint64_t line) {
        (void)kind, (void)name, (void)line;
    }
    // A thread block of any per-thread section (Perfmarker included).
    virtual void onThread(SectionKind kind, uint64_t tid, uint64_t count, uint64_t line) {
        (void)kind, (void)tid, (void)count, (void)line;
    }
    // Lines of the ocl / hsa API Trace sections.
    virtual void onApiLine(SectionKind kind, uint64_t tid, const ApiLine& api, uint64_t line) {
        (void)kind, (void)tid, (void)api, (void)line;
    }
    // Lines of the ocl / hsa Timestamp sections, split on whitespace.
    virtual void onTimestampLine(SectionKind kind, uint64_t tid,
                                 const std::vector<std::string_view>& fields, uint64_t line) {
        (void)kind, (void)tid, (void)fields, (void)line;
    }
    virtual void onMarker(uint64_t tid, const Marker& marker) { (void)tid, (void)marker; }
    // Lines of the other sections (stack traces, HSA kernel timestamps, unknown sections);
    // `tid` is 0 outside thread blocks.
    virtual void onOtherLine(SectionKind kind, uint64_t tid, std::string_view text, uint64_t line) {
        (void)kind, (void)tid, (void)text, (void)line;
    }
    virtual void onWarning(uint64_t line, const std::string& message) { (void)line, (void)message; }
};

// Reads an .atp file. Returns false at the first malformed line with `error` =
// "<name>:<line>: expected ..., got ..."; the listener has then seen everything before it.
// Checks the pairing rule of spec §1.3: an API Trace section and the Timestamp section of the
// same API have the same threads in the same order with the same line counts, and the i-th
// lines of a thread name the same API.
bool readAtp(std::istream& in, std::string_view name, AtpListener& listener, std::string& error);
bool readAtpFile(const std::string& path, AtpListener& listener, std::string& error);

// ---- whole-file model ----------------------------------------------------------------------

struct AtpThreadBlock {
    uint64_t tid = 0;
    std::vector<std::string> lines;
};

struct AtpDocument {
    std::vector<std::pair<std::string, std::string>> header;    // in file order
    std::vector<SectionKind> sections;                          // in file order
    std::map<SectionKind, std::vector<AtpThreadBlock>> blocks;  // not for Perfmarker
    PerfmarkerFile markers;
    std::vector<std::string> warnings;  // "line N: ..."

    // The value of the first header line with `key`, or null.
    const std::string* headerValue(std::string_view key) const;
};

bool loadAtp(std::istream& in, std::string_view name, AtpDocument& out, std::string& error);
bool loadAtpFile(const std::string& path, AtpDocument& out, std::string& error);

}  // namespace perfmarker::atp
