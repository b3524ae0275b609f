// The API Summary page (spec §8.1), shared by OpenCL and HSA: per API name, the count and the
// durations of its calls. Memory: one entry per distinct API name.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>

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

}  // namespace perfmarker::analysis
