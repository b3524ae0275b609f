#include "analysis/summary.h"

#include <cstddef>
#include <map>
#include <optional>

#include "analysis/callsites/call_site_pages.h"
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
        : ocl(options),
          hsa(options),
          log(options.maxMessagesPerRule),
          notes(options.maxMessagesPerRule) {}

    // What only makes sense per process (handles, context ids, markers still open, the cut).
    void finishFile() {
        ocl.endFile();
        callSites.endFile(notes);
        markers.endFile(file);
        const bool cut = notes.cut();
        const uint64_t alive = oclRules.endFile(log, cut) + hsaRules.endFile(log, cut);
        notes.endFile(alive);
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
    CallSitePages callSites;
    MarkerPages markers;
    OclRules oclRules;
    HsaRules hsaRules;
    RuleLog log;
    TraceNotes notes;
    std::string file;
    std::map<uint64_t, uint64_t> callCounters;
};

TraceSummary::TraceSummary(SummaryOptions options) : m_impl(std::make_unique<Impl>(options)) {}

TraceSummary::~TraceSummary() = default;

std::vector<Table> TraceSummary::tables() const {
    Impl finished = *m_impl;
    finished.finishFile();
    std::vector<Table> out;
    // A family's call sites go right after its API page (or after its pages when it has none).
    const auto appendFamily = [&](const FamilyPages& pages, atp::ApiFamily family,
                                  std::string_view apiId) {
        const size_t first = out.size();
        pages.appendTables(out);
        std::optional<Table> sites = finished.callSites.table(family);
        if (!sites) return;
        const size_t at = first < out.size() && out[first].id == apiId ? first + 1 : out.size();
        out.insert(out.begin() + static_cast<std::ptrdiff_t>(at), std::move(*sites));
    };
    appendFamily(finished.ocl, atp::ApiFamily::Ocl, "CLAPISummary");
    appendFamily(finished.hsa, atp::ApiFamily::Hsa, "HSAAPISummary");
    finished.markers.appendTables(out);
    if (!finished.log.empty()) out.push_back(finished.log.table());
    finished.notes.appendTable(out);
    return out;
}

void TraceSummary::onFileBegin(std::string_view file) {
    m_impl->finishFile();
    m_impl->file = std::string(file);
    m_impl->notes.beginFile(file);
}

void TraceSummary::onHeader(std::string_view key, std::string_view value,
                            atp::SourceLocation where) {
    m_impl->notes.header(key, value, where);
}

void TraceSummary::onSection(atp::SectionKind kind, std::string_view name,
                             atp::SourceLocation where) {
    (void)name;
    m_impl->callSites.onSection(kind, where.line);
}

void TraceSummary::onStackEntry(const atp::StackEntry& entry) {
    m_impl->callSites.onStackEntry(entry);
}

// Calls and commands whose times are unknown or end before they start are left out of every
// duration (docs/format.md#unknown-times) and counted on the notes page; the rules see them.
void TraceSummary::onOclApiCall(const atp::OclApiCall& call) {
    const CallRef where{m_impl->oclCallIndex(call), call.tid};
    TraceNotes& notes = m_impl->notes;
    const bool timed =
        notes.usable(TraceNotes::ApiCall, call.start, call.end, call.timestampLine, call.name);
    const bool deviceTimed =
        call.hasCommand && notes.usable(TraceNotes::Command, call.command.start, call.command.end,
                                        call.timestampLine, call.name);
    m_impl->ocl.onCall(call, where.callIndex);
    m_impl->callSites.onCall(atp::ApiFamily::Ocl, call.tid, call.index, call.name, timed,
                             call.end - call.start, call.consecutiveCalls);
    m_impl->oclRules.onCall(call, where, m_impl->log);
    const uint64_t deviceNs = deviceTimed ? call.command.end - call.command.start : 0;
    if (timed) m_impl->markers.onCall(call.tid, call.start, call.end, deviceNs);
}

void TraceSummary::onHsaApiCall(const atp::HsaApiCall& call) {
    TraceNotes& notes = m_impl->notes;
    const bool timed =
        notes.usable(TraceNotes::ApiCall, call.start, call.end, call.timestampLine, call.name);
    const bool transferTimed =
        call.hasTransferTimes && notes.usable(TraceNotes::Transfer, call.transferStart,
                                              call.transferEnd, call.timestampLine, call.name);
    m_impl->hsa.onCall(call);
    m_impl->callSites.onCall(atp::ApiFamily::Hsa, call.tid, call.index, call.name, timed,
                             call.end - call.start, 1);
    m_impl->hsaRules.onCall(call, CallRef{std::to_string(call.index), call.tid}, m_impl->log);
    const uint64_t deviceNs = transferTimed ? call.transferEnd - call.transferStart : 0;
    if (timed) m_impl->markers.onCall(call.tid, call.start, call.end, deviceNs);
}

void TraceSummary::onHsaKernelDispatch(const atp::HsaKernelDispatch& dispatch) {
    if (m_impl->notes.usable(TraceNotes::Dispatch, dispatch.start, dispatch.end, dispatch.line,
                             "kernel dispatch")) {
        m_impl->hsa.onDispatch(dispatch);
    }
}

void TraceSummary::onMarker(const atp::MarkerEvent& marker) { m_impl->markers.onMarker(marker); }

void TraceSummary::onFileEnd(std::string_view file) {
    (void)file;
    m_impl->finishFile();
}

}  // namespace perfmarker::analysis
