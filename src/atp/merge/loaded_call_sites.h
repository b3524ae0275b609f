// The call-site writer of the merge an agent runs in the traced process at exit
// (docs/call-sites.md#merged-at-exit): no debug information is read there, so each call site
// becomes `<module file name>+0x<offset>` from the modules still loaded (dladdr), or the bare
// API name when its module is gone. The launcher's merge symbolizes instead (atp/symbols).
#pragma once

#include "atp/write/call_sites.h"

namespace perfmarker::atp {

class LoadedModuleCallSites final : public CallSiteWriter {
public:
    void appendLine(std::string& out, std::string_view api,
                    const record::ApiCallView& call) override;
};

}  // namespace perfmarker::atp
