#include "analysis/summary.h"

#include <map>

#include "analysis/hsa_pages.h"
#include "analysis/hsa_rules.h"
#include "analysis/marker_pages.h"
#include "analysis/ocl_pages.h"
#include "analysis/ocl_rules.h"
#include "analysis/rule_log.h"

namespace perfmarker::analysis {

// Everything is a value, so tables() can finish a copy while a file is still being read.
struct TraceSummary::Impl {
    explicit Impl(const SummaryOptions& options)
        : ocl(options), hsa(options), log(options.maxMessagesPerRule) {}

    // What only makes sense per process (handles, context ids, markers still open).
    void finishFile() {
        ocl.endFile();
        markers.endFile(file);
        oclRules.endFile(log);
        hsaRules.endFile(log);
        callCounters.clear();
    }

    // The "Call Index" of the pages: per thread, not counting clGetEventInfo
    // (docs/format.md#collapsed-calls).
    std::string oclCallIndex(const atp::OclApiCall& call) {
        if (call.name == "clGetEventInfo") return "N/A";
        return std::to_string(callCounters[call.tid]++);
    }

    OclPages ocl;
    HsaPages hsa;
    MarkerPages markers;
    OclRules oclRules;
    HsaRules hsaRules;
    RuleLog log;
    std::string file;
    std::map<uint64_t, uint64_t> callCounters;
};

TraceSummary::TraceSummary(SummaryOptions options) : m_impl(std::make_unique<Impl>(options)) {}

TraceSummary::~TraceSummary() = default;

std::vector<Table> TraceSummary::tables() const {
    Impl finished = *m_impl;
    finished.finishFile();
    std::vector<Table> out;
    finished.ocl.appendTables(out);
    finished.hsa.appendTables(out);
    finished.markers.appendTables(out);
    if (!finished.log.empty()) out.push_back(finished.log.table());
    return out;
}

void TraceSummary::onFileBegin(std::string_view file) {
    m_impl->finishFile();
    m_impl->file = std::string(file);
}

void TraceSummary::onOclApiCall(const atp::OclApiCall& call) {
    const CallRef where{m_impl->oclCallIndex(call), call.tid};
    m_impl->ocl.onCall(call, where.callIndex);
    m_impl->oclRules.onCall(call, where, m_impl->log);
    const uint64_t deviceNs =
        call.hasCommand ? durationNs(call.command.start, call.command.end) : 0;
    m_impl->markers.onCall(call.tid, call.start, call.end, deviceNs);
}

void TraceSummary::onHsaApiCall(const atp::HsaApiCall& call) {
    m_impl->hsa.onCall(call);
    m_impl->hsaRules.onCall(call, CallRef{std::to_string(call.index), call.tid}, m_impl->log);
    const uint64_t deviceNs =
        call.hasTransferTimes ? durationNs(call.transferStart, call.transferEnd) : 0;
    m_impl->markers.onCall(call.tid, call.start, call.end, deviceNs);
}

void TraceSummary::onHsaKernelDispatch(const atp::HsaKernelDispatch& dispatch) {
    m_impl->hsa.onDispatch(dispatch);
}

void TraceSummary::onMarker(const atp::MarkerEvent& marker) { m_impl->markers.onMarker(marker); }

void TraceSummary::onFileEnd(std::string_view file) {
    (void)file;
    m_impl->finishFile();
}

}  // namespace perfmarker::analysis
