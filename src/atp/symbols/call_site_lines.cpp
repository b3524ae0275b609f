#include "atp/symbols/call_site_lines.h"

#include <string_view>

namespace perfmarker::symbols {
namespace {

bool endsWith(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

ModuleMap readMap(const std::string& path, std::vector<std::string>& errors) {
    ModuleMap map;
    readModulesFile(path, map, errors);
    return map;
}

}  // namespace

bool isWrapperFrame(const CallSite& site) {
    if (site.function.rfind("cl::", 0) == 0) return true;
    const std::string_view file = site.file;
    for (const std::string_view header : {"/opencl.hpp", "/cl2.hpp", "/cl.hpp"}) {
        if (endsWith(file, header) || file == header.substr(1)) return true;
    }
    return false;
}

SymbolizingCallSites::SymbolizingCallSites(const std::string& modulesPath,
                                           SymbolizerOptions options)
    : m_symbolizer(
          std::make_unique<Symbolizer>(readMap(modulesPath, m_readErrors), std::move(options))) {}

void SymbolizingCallSites::appendLine(std::string& out, std::string_view api,
                                      const record::ApiCallView& call) {
    atp::RecordedCallSite recorded;
    if (!atp::recordedCallSite(call, recorded)) {
        atp::appendStackBareLine(out, api);
        return;
    }
    const CallSite* site = &m_symbolizer->resolve(recorded.returnAddress);
    if (isWrapperFrame(*site) && recorded.callerReturnAddress != 0) {
        const CallSite& caller = m_symbolizer->resolve(recorded.callerReturnAddress);
        if (!caller.function.empty() && !isWrapperFrame(caller)) site = &caller;
    }
    atp::appendStackLine(out, api, site->text());
}

std::vector<std::string> SymbolizingCallSites::notes() const {
    std::vector<std::string> all = m_readErrors;
    const std::vector<std::string>& warnings = m_symbolizer->warnings();
    all.insert(all.end(), warnings.begin(), warnings.end());
    return all;
}

}  // namespace perfmarker::symbols
