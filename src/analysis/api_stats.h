// What the OpenCL and the HSA pages share (docs/summary.md#pages): the API Summary page (per
// API name, the count and the durations of its calls; memory: one entry per distinct API name),
// the Kernel Summary page, and the order and layout of the pages of a family.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/format.h"
#include "analysis/summary.h"

namespace perfmarker::analysis {

class ApiStats {
public:
    // `times` > 1 for a collapsed clGetEventInfo line (its duration spans all the calls).
    void add(std::string_view name, uint64_t ns, uint64_t times = 1);
    bool empty() const { return m_byName.empty(); }
    // Rows by cumulative time, largest first (ties by name).
    Table table(std::string id) const;

private:
    std::map<std::string, DurationStats, std::less<>> m_byName;
};

// Kernel name and device name -> durations of its dispatches.
using KernelStats = std::map<std::pair<std::string, std::string>, DurationStats>;

// The Kernel Summary page: rows by total time, largest first (ties by name, device).
Table kernelSummaryTable(std::string id, const KernelStats& kernels);

// Count, total duration and bytes of a group of transfers.
struct TransferStats {
    uint64_t count = 0;
    uint64_t totalNs = 0;
    uint64_t bytes = 0;
    void add(uint64_t ns, uint64_t size) {
        ++count;
        totalNs += ns;
        bytes += size;
    }
};

// The pages of one API family, in order: API, (OpenCL: context,) kernel and top kernels, data
// transfer and top transfers; each only when it has rows. The top lists hold at most
// SummaryOptions::topCount rows.
class FamilyPages {
public:
    // What differs between the families' pages besides their rows.
    struct Layout {
        std::string prefix;  // of the table ids: "CL" -> "CLAPISummary", ...
        std::vector<std::string> topKernelColumns;
        std::string transfersTitle;  // "Data Transfer Summary Page"
        std::vector<std::string> transferKeyColumns;
        std::vector<std::string> topTransferColumns;
    };

    void appendTables(std::vector<Table>& out) const;

protected:
    // `layout` lives as long as the program (a static of the family).
    FamilyPages(const SummaryOptions& options, const Layout& layout);
    virtual ~FamilyPages() = default;
    FamilyPages(const FamilyPages&) = default;
    FamilyPages& operator=(const FamilyPages&) = default;

    // The pages between the API page and the kernel pages.
    virtual void appendContextTables(std::vector<Table>& out) const { (void)out; }
    virtual bool hasTransfers() const = 0;
    // The rows of the data transfer page, in key order (see transferRow).
    virtual void appendTransferRows(std::vector<std::vector<std::string>>& rows) const = 0;
    // A row of the data transfer page: the key's cells, then the count, total duration, total
    // size and average rate of `stats` (`strictShort` as for formatRate).
    static std::vector<std::string> transferRow(std::vector<std::string> key,
                                                const TransferStats& stats,
                                                bool strictShort = false);

    SummaryOptions m_options;
    ApiStats m_api;
    KernelStats m_kernels;
    TopList<std::vector<std::string>> m_topKernels;
    TopList<std::vector<std::string>> m_topTransfers;

private:
    const Layout* m_layout;
};

}  // namespace perfmarker::analysis
