#include "analysis/hsa_pages.h"

#include <algorithm>

#include "analysis/params.h"

namespace perfmarker::analysis {
namespace {

const FamilyPages::Layout kLayout{
    "HSA",
    {"Kernel Name", "Device Name", "Duration(ms)"},
    "Data Transfer Summary Page",
    {"Source Agent Handle", "Source Agent Name", "Destination Agent Handle",
     "Destination Agent Name"},
    {"Source Agent Handle", "Source Agent Name", "Destination Agent Handle",
     "Destination Agent Name", "Duration(ms)", "Transfer Size", "Transfer Rate(MB/s)", "Thread ID",
     "Call Index"}};

}  // namespace

HsaPages::HsaPages(const SummaryOptions& options) : FamilyPages(options, kLayout) {}

// Calls, transfers and dispatches whose times are unknown or end before they start are left
// out (docs/format.md#unknown-times; the notes page counts them).
void HsaPages::onCall(const atp::HsaApiCall& call) {
    if (atp::hostTimes(call) == atp::Times::Known) m_api.add(call.name, call.end - call.start);
    if (call.hasTransferTimes && call.name == "hsa_amd_memory_async_copy" &&
        atp::transferTimes(call) == atp::Times::Known) {
        addTransfer(call);
    }
}

void HsaPages::onDispatch(const atp::HsaKernelDispatch& dispatch) {
    if (atp::deviceTimes(dispatch) != atp::Times::Known) return;
    const uint64_t ns = durationNs(dispatch.start, dispatch.end);
    m_kernels[{dispatch.kernelName, dispatch.agentName}].add(ns);
    if (m_topKernels.wouldKeep(ns))
        m_topKernels.offer(ns, {dispatch.kernelName, dispatch.agentName, formatMs(ns)});
}

// The agents and the size come from the call's own parameters (docs/format.md#hsa-api-trace). The
// _rect variant has no single size parameter and is left out of these pages (docs/summary.md).
void HsaPages::addTransfer(const atp::HsaApiCall& call) {
    const auto src = parseHsaAgent(hsaParam(call.params, "src_agent").value_or(""));
    const auto dst = parseHsaAgent(hsaParam(call.params, "dst_agent").value_or(""));
    const auto size = parseUnsigned(hsaParam(call.params, "size").value_or(""));
    if (!src || !dst || !size) return;
    const uint64_t ns = durationNs(call.transferStart, call.transferEnd);
    m_transfers[{src->handle, src->name, dst->handle, dst->name}].add(ns, *size);
    m_topTransfers.offer(
        ns, {src->handle, src->name, dst->handle, dst->name, formatMs(ns), formatSize(*size),
             formatRate(*size, ns), std::to_string(call.tid), std::to_string(call.index)});
}

void HsaPages::appendTransferRows(std::vector<std::vector<std::string>>& rows) const {
    for (const auto& [key, stats] : m_transfers) {
        const auto& [srcHandle, srcName, dstHandle, dstName] = key;
        rows.push_back(transferRow({srcHandle, srcName, dstHandle, dstName}, stats));
    }
}

}  // namespace perfmarker::analysis
