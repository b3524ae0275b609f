#include "analysis/api_stats.h"

#include <algorithm>
#include <vector>

namespace perfmarker::analysis {
namespace {

// The entries of `stats` by total time, largest first (ties in key order), and that total.
template <typename Map>
std::vector<const typename Map::value_type*> byTotalTime(const Map& stats, uint64_t& total) {
    total = 0;
    std::vector<const typename Map::value_type*> order;
    for (const auto& entry : stats) {
        total += entry.second.totalNs;
        order.push_back(&entry);
    }
    std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
        return a->second.totalNs > b->second.totalNs;
    });
    return order;
}

}  // namespace

void ApiStats::add(std::string_view name, uint64_t ns, uint64_t times) {
    auto it = m_byName.find(name);
    if (it == m_byName.end()) it = m_byName.emplace(std::string(name), DurationStats{}).first;
    it->second.add(ns, times);
}

Table ApiStats::table(std::string id) const {
    Table table;
    table.id = std::move(id);
    table.title = "API Summary Page";
    table.columns = {"API Name",     "Cumulative Time(ms)", "% of Total Time", "# of Calls",
                     "Avg Time(ms)", "Max Time(ms)",        "Min Time(ms)"};
    uint64_t total = 0;
    for (const auto* entry : byTotalTime(m_byName, total)) {
        const DurationStats& s = entry->second;
        table.rows.push_back({entry->first, formatMs(s.totalNs), formatPercent(s.totalNs, total),
                              std::to_string(s.count), formatMsMean(s.totalNs, s.count),
                              formatMs(s.maxNs), formatMs(s.minNs)});
    }
    return table;
}

Table kernelSummaryTable(std::string id, const KernelStats& kernels) {
    Table table{std::move(id),
                "Kernel Summary Page",
                {"Kernel Name", "Device Name", "# of Calls", "Total Time(ms)", "% of Total Time",
                 "Avg Time(ms)", "Max Time(ms)", "Min Time(ms)"},
                {},
                {}};
    uint64_t total = 0;
    for (const auto* entry : byTotalTime(kernels, total)) {
        const DurationStats& s = entry->second;
        table.rows.push_back({entry->first.first, entry->first.second, std::to_string(s.count),
                              formatMs(s.totalNs), formatPercent(s.totalNs, total),
                              formatMsMean(s.totalNs, s.count), formatMs(s.maxNs),
                              formatMs(s.minNs)});
    }
    return table;
}

FamilyPages::FamilyPages(const SummaryOptions& options, const Layout& layout)
    : m_options(options),
      m_topKernels(options.topCount),
      m_topTransfers(options.topCount),
      m_layout(&layout) {}

void FamilyPages::appendTables(std::vector<Table>& out) const {
    const std::string& prefix = m_layout->prefix;
    const std::string top = "Top " + std::to_string(m_options.topCount) + " ";
    if (!m_api.empty()) out.push_back(m_api.table(prefix + "APISummary"));
    appendContextTables(out);
    if (!m_kernels.empty()) {
        out.push_back(kernelSummaryTable(prefix + "KernelSummary", m_kernels));
        out.push_back(Table{prefix + "TopKernelSummary",
                            top + "Kernels Page",
                            m_layout->topKernelColumns,
                            m_topKernels.sorted(),
                            {}});
    }
    if (!hasTransfers()) return;
    Table transfers{prefix + "DataTransferSummary",
                    m_layout->transfersTitle,
                    m_layout->transferKeyColumns,
                    {},
                    {}};
    for (const char* column : {"Number of Transfers", "Total Duration(ms)", "Total Transfer Size",
                               "Average Transfer Rate(MB/s)"}) {
        transfers.columns.push_back(column);
    }
    appendTransferRows(transfers.rows);
    out.push_back(std::move(transfers));
    out.push_back(Table{prefix + "TopDataTransferSummary",
                        top + m_layout->transfersTitle,
                        m_layout->topTransferColumns,
                        m_topTransfers.sorted(),
                        {}});
}

std::vector<std::string> FamilyPages::transferRow(std::vector<std::string> key,
                                                  const TransferStats& stats, bool strictShort) {
    key.push_back(std::to_string(stats.count));
    key.push_back(formatMs(stats.totalNs));
    key.push_back(formatSize(stats.bytes));
    key.push_back(formatRate(stats.bytes, stats.totalNs, strictShort));
    return key;
}

}  // namespace perfmarker::analysis
