// The Stack Trace sections (docs/call-sites.md): one line per API-trace line, in the same thread
// blocks, from the call site each ApiCall record carries (record::kCallSiteArg). What a call
// site becomes (function, line and file, or module+offset, or nothing) is the CallSiteWriter's
// business: the launcher's symbolizes with the debug information (atp/symbols), the agent's own
// merge at exit writes what needs no debug information.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "atp/format/stack_lines.h"
#include "record/api_record.h"

namespace perfmarker::atp {

// The recorded call site of a call: the wrapper's return address and the return address of the
// application function that made the call (0 when unknown).
struct RecordedCallSite {
    uint64_t returnAddress = 0;
    uint64_t callerReturnAddress = 0;
};

// False when the record carries no call site.
bool recordedCallSite(const record::ApiCallView& call, RecordedCallSite& site);

class CallSiteWriter {
public:
    virtual ~CallSiteWriter() = default;
    // Appends the whole line for a call of `api` whose record is `call`, with its '\n'
    // (atp/format/stack_lines.h): `<API>` alone when nothing is known (the line count stays
    // aligned with the API trace).
    virtual void appendLine(std::string& out, std::string_view api,
                            const record::ApiCallView& call) = 0;
    // What the user should know once the section is written (modules that could not be read,
    // replaced after the run, ...).
    virtual std::vector<std::string> notes() const { return {}; }
};

// The writer that knows no call site: every line is the bare API name.
class BareCallSites final : public CallSiteWriter {
public:
    void appendLine(std::string& out, std::string_view api, const record::ApiCallView&) override {
        appendStackBareLine(out, api);
    }
};

}  // namespace perfmarker::atp
