// Pairs the kernel dispatches of a trace with the rows of a kernel profile CSV recorded in a
// separate run of the same application (docs/export.md#kernel-profiles): the k-th kernel
// dispatch of the trace in enqueue order matches the row with ExecutionOrder k, as long as the
// kernel names agree; at the first disagreement matching stops, with one warning naming it.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "profile/read/csv_reader.h"

namespace perfmarker::exporter {

// A kernel dispatch of the trace. `slot` is the caller's index of its slice (kNoSlot: it has
// none, e.g. no device times, yet it still takes its place in the order).
struct TraceKernel {
    uint64_t enqueueNs = 0;  // API start time (OpenCL) or device start time (HSA)
    std::string name;
    size_t slot = 0;
};
inline constexpr size_t kNoSlot = static_cast<size_t>(-1);

struct ProfileMatch {
    std::vector<std::pair<size_t, std::string>> args;  // (slot, JSON object of the row)
    uint64_t matched = 0;                              // dispatches paired with a row
    std::string warning;                               // "" when nothing needs saying
};

// `kernels` in arrival order (the trace's file order); they are ordered by enqueueNs, ties in
// arrival order. Only the profile's rows with API `api`'s dispatches are paired: an OpenCL profile
// with OpenCL kernel commands, an HSA profile with HSA kernel dispatches.
ProfileMatch matchProfile(std::vector<TraceKernel> kernels, const profile::ProfileCsv& profile,
                          const std::string& traceFile);

// A row as a JSON object: its columns by their names, sizes as "1024 1 1" (work-group size
// "NULL" when the application gave none), numbers as numbers, NA values left out.
std::string profileRowJson(const profile::ProfileCsvInfo& info, const profile::DispatchRow& row);

}  // namespace perfmarker::exporter
