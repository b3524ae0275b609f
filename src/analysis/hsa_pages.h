// The HSA pages (docs/summary.md#pages): API, kernel, top kernels, data transfer and top
// transfers (from hsa_amd_memory_async_copy calls that carry transfer times). Memory: one entry
// per API name, kernel/agent pair and agent pair; the top lists hold at most topCount rows.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/api_stats.h"
#include "analysis/format.h"
#include "analysis/summary.h"

namespace perfmarker::analysis {

class HsaPages : public FamilyPages {
public:
    explicit HsaPages(const SummaryOptions& options);
    void onCall(const atp::HsaApiCall& call);
    void onDispatch(const atp::HsaKernelDispatch& dispatch);

private:
    // source handle, source name, destination handle, destination name
    using AgentPair = std::tuple<std::string, std::string, std::string, std::string>;

    void addTransfer(const atp::HsaApiCall& call);
    bool hasTransfers() const override { return !m_transfers.empty(); }
    void appendTransferRows(std::vector<std::vector<std::string>>& rows) const override;

    std::map<AgentPair, TransferStats> m_transfers;
};

}  // namespace perfmarker::analysis
