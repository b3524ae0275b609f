// The launcher's call-site writer (docs/call-sites.md#which-frame): reads the process's modules
// file, symbolizes each recorded call site, and takes the application's own frame when the
// call came through a C++ wrapper header of OpenCL (the `cl::` classes of CL/opencl.hpp and its
// predecessors): the line that called the wrapper, from the caller's return address the agent
// recorded beside it.
#pragma once

#include <memory>
#include <string>

#include "atp/symbols/symbolizer.h"
#include "atp/write/call_sites.h"

namespace perfmarker::symbols {

// True when `site` lies in a C++ wrapper of OpenCL: a function in namespace `cl::` or a file
// named opencl.hpp, cl2.hpp or cl.hpp.
bool isWrapperFrame(const CallSite& site);

class SymbolizingCallSites final : public atp::CallSiteWriter {
public:
    // Reads `modulesPath`; its malformed lines become notes.
    explicit SymbolizingCallSites(const std::string& modulesPath, SymbolizerOptions options = {});

    void appendLine(std::string& out, std::string_view api,
                    const record::ApiCallView& call) override;
    std::vector<std::string> notes() const override;
    const Symbolizer& symbolizer() const { return *m_symbolizer; }

private:
    std::vector<std::string> m_readErrors;
    std::unique_ptr<Symbolizer> m_symbolizer;
};

}  // namespace perfmarker::symbols
