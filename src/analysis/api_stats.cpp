#include "analysis/api_stats.h"

#include <algorithm>
#include <vector>

namespace perfmarker::analysis {

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
    std::vector<const std::pair<const std::string, DurationStats>*> order;
    for (const auto& entry : m_byName) {
        total += entry.second.totalNs;
        order.push_back(&entry);
    }
    std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
        return a->second.totalNs > b->second.totalNs;
    });
    for (const auto* entry : order) {
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
    std::vector<const KernelStats::value_type*> order;
    for (const auto& entry : kernels) {
        total += entry.second.totalNs;
        order.push_back(&entry);
    }
    std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
        return a->second.totalNs > b->second.totalNs;
    });
    for (const auto* entry : order) {
        const DurationStats& s = entry->second;
        table.rows.push_back({entry->first.first, entry->first.second, std::to_string(s.count),
                              formatMs(s.totalNs), formatPercent(s.totalNs, total),
                              formatMsMean(s.totalNs, s.count), formatMs(s.maxNs),
                              formatMs(s.minNs)});
    }
    return table;
}

}  // namespace perfmarker::analysis
