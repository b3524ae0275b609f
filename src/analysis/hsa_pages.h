// The HSA pages of spec §8.1: API, kernel, top kernels, data transfer and top transfers (from
// hsa_amd_memory_async_copy calls that carry transfer times). Memory: one entry per API name,
// kernel/agent pair and agent pair; the top lists hold at most topCount rows.
#pragma once

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/api_stats.h"
#include "analysis/format.h"
#include "analysis/summary.h"

namespace perfmarker::analysis {

class HsaPages {
public:
    explicit HsaPages(const SummaryOptions& options);
    void onCall(const atp::HsaApiCall& call);
    void onDispatch(const atp::HsaKernelDispatch& dispatch);
    void appendTables(std::vector<Table>& out) const;

private:
    struct Traffic {
        uint64_t count = 0;
        uint64_t totalNs = 0;
        uint64_t bytes = 0;
    };
    // source handle, source name, destination handle, destination name
    using AgentPair = std::tuple<std::string, std::string, std::string, std::string>;

    void addTransfer(const atp::HsaApiCall& call);
    Table transferTable() const;

    SummaryOptions m_options;
    ApiStats m_api;
    KernelStats m_kernels;  // name, agent
    TopList<std::vector<std::string>> m_topKernels;
    std::map<AgentPair, Traffic> m_transfers;
    TopList<std::vector<std::string>> m_topTransfers;
};

}  // namespace perfmarker::analysis
