// The entry lines of a Stack Trace section (docs/call-sites.md#the-lines-we-write,
// docs/format.md#stack-trace-lines): one call site per API line, in one of three forms, TAB
// separated:
//   <API>\t<function>\t<line>\t<file>      what debug information gave
//   <API>\t<module file name>+0x<offset>   only the module is known
//   <API>                                  nothing is known
// No libdw here: the in-process merge writes the module form with these functions too.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace perfmarker::atp {

// What is known about one call site (atp/symbols/symbolizer.h fills it in after the run).
struct CallSiteText {
    std::string_view function;  // demangled; empty when unknown
    uint64_t line = 0;          // source line; 0 when unknown
    std::string_view file;      // source file as the debug information names it; may be empty
    std::string_view module;    // path (or file name) of the module; empty: in no module
    uint64_t offset = 0;        // return address minus the module's load bias
};

// The function field of a symbol line whose function is unknown but whose line is known.
inline constexpr std::string_view kUnknownFunction = "NA";

// Appends the line of `site` in the best form it allows, ending in '\n': the symbol form when a
// function, a line or a file is known (a missing function as kUnknownFunction, a missing line
// as 0, a missing file as nothing after the last TAB), else the module form when the module is
// known, else the bare API name.
void appendStackLine(std::string& out, std::string_view api, const CallSiteText& site);

// The three forms one by one, each ending in '\n'. Function, file and module are written as
// whitespace-free fields: space -> &nbsp;, '&' -> &amp;, control bytes (TAB included) -> &#N;
// (the reader's appendUnescapedToken() undoes it). `module` may be a path: only its file name
// is written. `offset` in lower-case hex without leading zeros.
void appendStackSymbolLine(std::string& out, std::string_view api, std::string_view function,
                           uint64_t line, std::string_view file);
void appendStackModuleLine(std::string& out, std::string_view api, std::string_view module,
                           uint64_t offset);
void appendStackBareLine(std::string& out, std::string_view api);

// The file name of a path: what follows the last '/' (the whole path when it has none).
std::string_view moduleFileName(std::string_view path);

}  // namespace perfmarker::atp
