#include "atp/merge/loaded_call_sites.h"

#include <dlfcn.h>
#include <link.h>

namespace perfmarker::atp {

// The offset is the return address minus the module's load bias (link_map::l_addr), as the
// launcher's symbolizer writes it: the address in the file for a shared object or a PIE, the
// address itself for a fixed-address executable.
void LoadedModuleCallSites::appendLine(std::string& out, std::string_view api,
                                       const record::ApiCallView& call) {
    RecordedCallSite site;
    Dl_info info{};
    link_map* map = nullptr;
    if (!recordedCallSite(call, site) ||
        dladdr1(reinterpret_cast<const void*>(site.returnAddress), &info,
                reinterpret_cast<void**>(&map), RTLD_DL_LINKMAP) == 0 ||
        info.dli_fname == nullptr || map == nullptr) {
        appendStackBareLine(out, api);
        return;
    }
    appendStackModuleLine(out, api, info.dli_fname, site.returnAddress - map->l_addr);
}

}  // namespace perfmarker::atp
