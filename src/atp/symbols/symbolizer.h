// Call-site addresses -> function, source line and file, after the run (docs/call-sites.md), with
// elfutils' libdwfl. Only the launcher's merge links this module; nothing symbolizes in the
// traced process.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "atp/format/stack_lines.h"
#include "atp/symbols/module_map.h"

namespace perfmarker::symbols {

// What is known about one call site. Every field may be empty: the best form of the Stack Trace
// line follows from what is there (atp::appendStackLine()).
struct CallSite {
    std::string function;  // demangled C++ name, or the C name; empty when unknown
    uint64_t line = 0;     // source line of the call; 0 when unknown
    std::string file;      // source file as the debug information names it; empty when unknown
    std::string module;    // path of the module the address lies in; empty: in no module
    uint64_t offset = 0;   // the return address minus the module's load bias

    // A view of this call site for atp::appendStackLine() (valid while this object lives).
    atp::CallSiteText text() const { return {function, line, file, module, offset}; }
};

struct SymbolizerOptions {
    // Where separate debug files are looked for, in elfutils' debuginfo-path syntax
    // (docs/call-sites.md#names-and-lines): directories separated by ':'; an absolute one is
    // searched by build-id (<dir>/.build-id/xx/yyyy.debug). Empty: elfutils' default
    // (":.debug:/usr/lib/debug").
    std::string debugPath;
};

// Resolves recorded return addresses against a ModuleMap. Each distinct address is looked up
// once (a million calls from ten call sites cost ten lookups); each module is opened on the
// first address in it. Not thread-safe: one merge uses one Symbolizer.
class Symbolizer {
public:
    explicit Symbolizer(ModuleMap modules, SymbolizerOptions options = {});
    ~Symbolizer();
    Symbolizer(const Symbolizer&) = delete;
    Symbolizer& operator=(const Symbolizer&) = delete;

    // The call site of `returnAddress` (the address the call returns to; the line is looked up
    // at the byte before it). Never fails: a module whose file is gone, replaced (build-id
    // mismatch) or stripped gives module and offset only, an address in no module (JIT code,
    // 0) gives nothing. The reference stays valid while the Symbolizer lives.
    const CallSite& resolve(uint64_t returnAddress);

    // Appends the Stack Trace line of `api` called from `returnAddress` (atp/format/stack_lines.h).
    void appendStackLine(std::string& out, std::string_view api, uint64_t returnAddress);

    // How many addresses were looked up for real (cache misses).
    uint64_t lookups() const;

    // What the user should know, at most one message per module, in the order found: a module
    // whose file cannot be read, one whose build-id differs from the recorded one (replaced
    // after the run: not symbolized, so no call is attributed to the wrong code).
    const std::vector<std::string>& warnings() const;

    const ModuleMap& modules() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace perfmarker::symbols
