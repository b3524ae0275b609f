#include "analysis/profile/profile_pages.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "profile/read/profile_lines.h"

namespace perfmarker::analysis {
namespace {

std::string fixed2(double value) {
    char text[64];
    std::snprintf(text, sizeof text, "%.2f", value);
    return text;
}

// A CSV time (ms) in ns, for the duration formats of the other pages.
uint64_t msToNs(double ms) { return static_cast<uint64_t>(std::llround(ms * 1e6)); }

// "24", or "24-32" when the dispatches of a kernel differ.
template <typename Format>
std::string rangeText(uint64_t min, uint64_t max, Format format) {
    if (min == max) return format(min);
    return format(min) + "-" + format(max);
}

std::string countText(uint64_t value) { return std::to_string(value); }

// The names of the resources whose wave count is the smallest: "VGPR", or "VGPR, LDS" on a tie.
std::string limitingResources(const profile::OccupancyRow& row) {
    const std::pair<uint32_t, const char*> limits[] = {{row.vgprLimitedWaves, "VGPR"},
                                                       {row.sgprLimitedWaves, "SGPR"},
                                                       {row.ldsLimitedWaves, "LDS"},
                                                       {row.workgroupLimitedWaves, "Work-group"}};
    uint32_t smallest = limits[0].first;
    for (const auto& limit : limits) smallest = std::min(smallest, limit.first);
    std::string names;
    for (const auto& [waves, name] : limits) {
        if (waves != smallest) continue;
        if (!names.empty()) names += ", ";
        names += name;
    }
    return names;
}

bool cannotOpen(const std::string& path, std::string& error) {
    error = path + ": cannot open: " + std::strerror(errno);
    return false;
}

uint32_t activeWaves(const profile::OccupancyRow& row) {
    return std::min({row.vgprLimitedWaves, row.sgprLimitedWaves, row.ldsLimitedWaves,
                     row.workgroupLimitedWaves});
}

}  // namespace

void KernelProfilePage::beginFile(const profile::ProfileCsvInfo& info) {
    ++m_files;
    m_fileHasTime = info.hasTime;
    m_anyTime = m_anyTime || info.hasTime;
    m_fileCounters.clear();
    for (const profile::CounterColumn& column : info.counters) {
        auto known = std::find_if(m_counters.begin(), m_counters.end(),
                                  [&](const Counter& c) { return c.name == column.name; });
        if (known == m_counters.end()) {
            m_counters.push_back(Counter{column.name, false});
            known = m_counters.end() - 1;
        }
        m_fileCounters.push_back(static_cast<size_t>(known - m_counters.begin()));
    }
}

void KernelProfilePage::addRow(const profile::DispatchRow& row) {
    const profile::MethodName method = profile::splitMethod(row.method);
    KernelStats& stats = m_kernels[{method.kernel, method.device}];
    ++stats.dispatches;
    if (row.timeMs) {
        stats.time.add(msToNs(*row.timeMs));
    } else if (m_fileHasTime) {
        ++m_timeMissing;
    }
    for (size_t i = 0; i < row.counters.size() && i < m_fileCounters.size(); ++i) {
        const double value = row.counters[i];
        if (std::isnan(value)) continue;  // NA
        CounterStats& counter = stats.counters[m_fileCounters[i]];
        ++counter.count;
        counter.total += value;
        if (value >= 0) counter.wholeTotal += static_cast<uint64_t>(std::llround(value));
    }
}

void KernelProfilePage::endFile(const profile::ProfileCsvInfo& info) {
    for (size_t i = 0; i < info.counters.size() && i < m_fileCounters.size(); ++i) {
        if (info.counters[i].kind == profile::CounterKind::Float) {
            m_counters[m_fileCounters[i]].isFloat = true;
        }
    }
    if (info.rowCount == 0) {
        m_notes.push_back(info.file + ": no kernel dispatches (the application ran no kernel)");
    }
}

Table KernelProfilePage::table() const {
    Table table;
    table.id = "KernelProfileSummary";
    table.title = "Kernel Profile Page";
    table.columns = {"Kernel Name", "Device Name", "# of Dispatches"};
    if (m_anyTime) {
        for (const char* column :
             {"Total Time(ms)", "Avg Time(ms)", "Max Time(ms)", "Min Time(ms)"}) {
            table.columns.emplace_back(column);
        }
    }
    for (const Counter& counter : m_counters) {
        table.columns.push_back(counter.name + " Total");
        table.columns.push_back(counter.name + " Avg");
    }
    std::vector<std::pair<const std::pair<std::string, std::string>*, const KernelStats*>> order;
    for (const auto& [key, stats] : m_kernels) order.emplace_back(&key, &stats);
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        if (a.second->time.totalNs != b.second->time.totalNs) {
            return a.second->time.totalNs > b.second->time.totalNs;
        }
        return a.second->dispatches > b.second->dispatches;
    });
    for (const auto& [key, stats] : order) {
        std::vector<std::string> row{key->first, key->second, std::to_string(stats->dispatches)};
        if (m_anyTime && stats->time.count == 0) row.insert(row.end(), 4, "NA");
        if (m_anyTime && stats->time.count > 0) {
            const DurationStats& time = stats->time;
            row.push_back(formatMs(time.totalNs));
            row.push_back(formatMsMean(time.totalNs, time.count));
            row.push_back(formatMs(time.maxNs));
            row.push_back(formatMs(time.minNs));
        }
        for (size_t i = 0; i < m_counters.size(); ++i) {
            const auto found = stats->counters.find(i);
            if (found == stats->counters.end() || found->second.count == 0) {
                row.insert(row.end(), 2, "NA");
                continue;
            }
            const CounterStats& counter = found->second;
            row.push_back(m_counters[i].isFloat ? fixed2(counter.total)
                                                : std::to_string(counter.wholeTotal));
            row.push_back(fixed2(counter.total / static_cast<double>(counter.count)));
        }
        table.rows.push_back(std::move(row));
    }
    table.notes = m_notes;
    if (m_timeMissing > 0) {
        table.notes.push_back(std::to_string(m_timeMissing) +
                              " dispatch(es) with Time NA, left out of the time columns");
    }
    return table;
}

void OccupancyPage::Range::add(uint64_t value, bool first) {
    min = first ? value : std::min(min, value);
    max = first ? value : std::max(max, value);
}

void OccupancyPage::addRow(const profile::OccupancyRow& row) {
    KernelOccupancy& kernel = m_kernels[{row.kernelName, row.deviceName}];
    const bool first = kernel.dispatches++ == 0;
    kernel.vgprs.add(row.vgprsUsed, first);
    kernel.sgprs.add(row.sgprsUsed, first);
    kernel.ldsBytes.add(row.ldsUsed, first);
    kernel.workgroupSize.add(row.workgroupSize, first);
    if (first || row.occupancyPercent < kernel.minPercent) kernel.worst = row;
    kernel.minPercent =
        first ? row.occupancyPercent : std::min(kernel.minPercent, row.occupancyPercent);
    kernel.maxPercent =
        first ? row.occupancyPercent : std::max(kernel.maxPercent, row.occupancyPercent);
}

void OccupancyPage::endFile(const profile::OccupancyInfo& info) {
    ++m_files;
    if (info.rowCount == 0) {
        m_notes.push_back(info.file + ": no kernel dispatches to a GPU");
    }
}

Table OccupancyPage::table() const {
    Table table;
    table.id = "OccupancySummary";
    table.title = "Occupancy Page";
    table.columns = {"Kernel Name",  "Device Name", "# of Dispatches", "VGPRs",
                     "SGPRs",        "LDS Used",    "Work-group Size", "Limiting Resource",
                     "Waves per CU", "Occupancy(%)"};
    std::vector<std::pair<const std::pair<std::string, std::string>*, const KernelOccupancy*>>
        order;
    for (const auto& [key, kernel] : m_kernels) order.emplace_back(&key, &kernel);
    std::stable_sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
        return a.second->minPercent < b.second->minPercent;
    });
    bool ranges = false;
    for (const auto& [key, kernel] : order) {
        const profile::OccupancyRow& worst = kernel->worst;
        std::string occupancy = fixed2(kernel->minPercent);
        if (fixed2(kernel->maxPercent) != occupancy) occupancy += "-" + fixed2(kernel->maxPercent);
        ranges = ranges || kernel->dispatches > 1;
        table.rows.push_back(
            {key->first, key->second, std::to_string(kernel->dispatches),
             rangeText(kernel->vgprs.min, kernel->vgprs.max, countText),
             rangeText(kernel->sgprs.min, kernel->sgprs.max, countText),
             rangeText(kernel->ldsBytes.min, kernel->ldsBytes.max, formatSize),
             rangeText(kernel->workgroupSize.min, kernel->workgroupSize.max, countText),
             limitingResources(worst),
             std::to_string(activeWaves(worst)) + " of " + std::to_string(worst.maxWavesPerCu),
             occupancy});
    }
    table.notes = m_notes;
    if (ranges) {
        table.notes.push_back(
            "Values that differ between the dispatches of a kernel are shown as min-max; the "
            "limiting resource and the waves are those of its dispatch with the lowest occupancy");
    }
    return table;
}

bool ProfilePages::addFile(const std::string& path, std::string& error) {
    switch (profile::detectProfileFile(path)) {
        case profile::ProfileFileKind::Csv:
            return addCsvFile(path, error);
        case profile::ProfileFileKind::Occupancy:
            return addOccupancyFile(path, error);
        case profile::ProfileFileKind::NotProfile:
            break;
    }
    // Neither by content: the reader its name asks for says what is wrong with it.
    const bool occupancy = path.size() >= 10 && path.substr(path.size() - 10) == ".occupancy";
    return occupancy ? addOccupancyFile(path, error) : addCsvFile(path, error);
}

bool ProfilePages::addCsvFile(const std::string& path, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return cannotOpen(path, error);
    return addCsv(in, path, error);
}

bool ProfilePages::addOccupancyFile(const std::string& path, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return cannotOpen(path, error);
    return addOccupancy(in, path, error);
}

bool ProfilePages::addCsv(std::istream& in, const std::string& file, std::string& error) {
    profile::ProfileCsvInfo info;
    bool begun = false;
    const bool read = profile::readProfileCsv(
        in, file, info,
        [&](const profile::DispatchRow& row, uint64_t) {
            if (!begun) m_kernels.beginFile(info);
            begun = true;
            m_kernels.addRow(row);
        },
        error);
    if (!read) return false;
    if (!begun) m_kernels.beginFile(info);
    m_kernels.endFile(info);
    return true;
}

bool ProfilePages::addOccupancy(std::istream& in, const std::string& file, std::string& error) {
    profile::OccupancyInfo info;
    const bool read = profile::readOccupancy(
        in, file, info,
        [&](const profile::OccupancyRow& row, uint64_t) { m_occupancy.addRow(row); }, error);
    if (!read) return false;
    m_occupancy.endFile(info);
    return true;
}

void ProfilePages::appendTables(std::vector<Table>& out) const {
    if (!m_kernels.empty()) out.push_back(m_kernels.table());
    if (!m_occupancy.empty()) out.push_back(m_occupancy.table());
}

std::vector<Table> ProfilePages::tables() const {
    std::vector<Table> out;
    appendTables(out);
    return out;
}

}  // namespace perfmarker::analysis
