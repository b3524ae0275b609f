#include "analysis/hsa_pages.h"

#include <algorithm>

#include "analysis/params.h"

namespace perfmarker::analysis {

HsaPages::HsaPages(const SummaryOptions& options)
    : m_options(options), m_topKernels(options.topCount), m_topTransfers(options.topCount) {}

void HsaPages::onCall(const atp::HsaApiCall& call) {
    m_api.add(call.name, durationNs(call.start, call.end));
    if (call.hasTransferTimes && call.name == "hsa_amd_memory_async_copy") addTransfer(call);
}

void HsaPages::onDispatch(const atp::HsaKernelDispatch& dispatch) {
    const uint64_t ns = durationNs(dispatch.start, dispatch.end);
    m_kernels[{dispatch.kernelName, dispatch.agentName}].add(ns);
    if (m_topKernels.wouldKeep(ns))
        m_topKernels.offer(ns, {dispatch.kernelName, dispatch.agentName, formatMs(ns)});
}

// The agents and the size come from the call's own parameters (spec §4.1). The _rect variant
// has no single size parameter and is left out of these pages (docs/summary.md).
void HsaPages::addTransfer(const atp::HsaApiCall& call) {
    const auto src = parseHsaAgent(hsaParam(call.params, "src_agent").value_or(""));
    const auto dst = parseHsaAgent(hsaParam(call.params, "dst_agent").value_or(""));
    const auto size = parseUnsigned(hsaParam(call.params, "size").value_or(""));
    if (!src || !dst || !size) return;
    const uint64_t ns = durationNs(call.transferStart, call.transferEnd);
    Traffic& traffic = m_transfers[{src->handle, src->name, dst->handle, dst->name}];
    ++traffic.count;
    traffic.totalNs += ns;
    traffic.bytes += *size;
    m_topTransfers.offer(
        ns, {src->handle, src->name, dst->handle, dst->name, formatMs(ns), formatSize(*size),
             formatRate(*size, ns), std::to_string(call.tid), std::to_string(call.index)});
}

void HsaPages::appendTables(std::vector<Table>& out) const {
    if (!m_api.empty()) out.push_back(m_api.table("HSAAPISummary"));
    if (!m_kernels.empty()) {
        out.push_back(kernelSummaryTable("HSAKernelSummary", m_kernels));
        out.push_back(Table{"HSATopKernelSummary",
                            "Top " + std::to_string(m_options.topCount) + " Kernels Page",
                            {"Kernel Name", "Device Name", "Duration(ms)"},
                            m_topKernels.sorted(),
                            {}});
    }
    if (!m_transfers.empty()) {
        out.push_back(transferTable());
        out.push_back(
            Table{"HSATopDataTransferSummary",
                  "Top " + std::to_string(m_options.topCount) + " Data Transfer Summary Page",
                  {"Source Agent Handle", "Source Agent Name", "Destination Agent Handle",
                   "Destination Agent Name", "Duration(ms)", "Transfer Size", "Transfer Rate(MB/s)",
                   "Thread ID", "Call Index"},
                  m_topTransfers.sorted(),
                  {}});
    }
}

Table HsaPages::transferTable() const {
    Table table{"HSADataTransferSummary",
                "Data Transfer Summary Page",
                {"Source Agent Handle", "Source Agent Name", "Destination Agent Handle",
                 "Destination Agent Name", "Number of Transfers", "Total Duration(ms)",
                 "Total Transfer Size", "Average Transfer Rate(MB/s)"},
                {},
                {}};
    for (const auto& [key, t] : m_transfers) {
        const auto& [srcHandle, srcName, dstHandle, dstName] = key;
        table.rows.push_back({srcHandle, srcName, dstHandle, dstName, std::to_string(t.count),
                              formatMs(t.totalNs), formatSize(t.bytes),
                              formatRate(t.bytes, t.totalNs)});
    }
    return table;
}

}  // namespace perfmarker::analysis
