#include "export/profile_attach.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include "export/json_writer.h"

namespace perfmarker::exporter {
namespace {

void appendKey(std::string& out, bool& first, std::string_view key) {
    out.push_back(first ? '{' : ',');
    first = false;
    appendJsonString(out, key);
    out.push_back(':');
}

// The shortest plain decimal that reads back as the same double ("0.05", "100000"; no
// exponent).
void appendReal(std::string& out, double value) {
    char text[400];
    const auto [end, ec] = std::to_chars(text, text + sizeof text, value, std::chars_format::fixed);
    out.append(text, ec == std::errc() ? end : text);
}

std::string sizeText(const std::array<uint64_t, 3>& size, bool nullWhenZero) {
    if (nullWhenZero && size == std::array<uint64_t, 3>{}) return "NULL";
    return std::to_string(size[0]) + " " + std::to_string(size[1]) + " " + std::to_string(size[2]);
}

void appendOptional(std::string& out, bool& first, std::string_view key,
                    const std::optional<uint64_t>& value) {
    if (!value) return;
    appendKey(out, first, key);
    appendUnsigned(out, *value);
}

// One fixed column of `row`, by the name the file gives it; false for a counter column.
bool appendFixed(std::string& out, bool& first, const std::string& column,
                 const profile::DispatchRow& row) {
    if (column == "Method" || column == "GlobalWorkSize" || column == "WorkGroupSize") {
        appendKey(out, first, column);
        appendJsonString(out, column == "Method"           ? row.method
                              : column == "GlobalWorkSize" ? sizeText(row.globalSize, false)
                                                           : sizeText(row.groupSize, true));
    } else if (column == "ExecutionOrder" || column == "ThreadID" || column == "CallIndex") {
        appendKey(out, first, column);
        appendUnsigned(out, column == "ExecutionOrder" ? row.executionOrder
                            : column == "ThreadID"     ? row.threadId
                                                       : row.callIndex);
    } else if (column == "Time") {
        if (!row.timeMs) return true;
        appendKey(out, first, column);
        appendReal(out, *row.timeMs);
    } else if (column == "LocalMemSize") {
        appendOptional(out, first, column, row.localMemBytes);
    } else if (column == "VGPRs") {
        appendOptional(out, first, column, row.vgprs);
    } else if (column == "SGPRs") {
        appendOptional(out, first, column, row.sgprs);
    } else if (column == "ScratchRegs") {
        appendOptional(out, first, column, row.scratchRegs);
    } else if (column == "PrivateMemSize") {
        appendOptional(out, first, column, row.privateMemBytes);
    } else {
        return false;
    }
    return true;
}

}  // namespace

std::string profileRowJson(const profile::ProfileCsvInfo& info, const profile::DispatchRow& row) {
    std::string out;
    bool first = true;
    size_t counter = 0;
    for (const std::string& column : info.columns) {
        if (appendFixed(out, first, column, row)) continue;
        if (counter >= row.counters.size() || counter >= info.counters.size()) break;
        const bool whole = info.counters[counter].kind == profile::CounterKind::Integer;
        const double value = row.counters[counter++];
        if (std::isnan(value)) continue;  // NA
        appendKey(out, first, column);
        if (whole && value >= 0) {
            appendUnsigned(out, static_cast<uint64_t>(std::llround(value)));
        } else {
            appendReal(out, value);
        }
    }
    if (first) out.push_back('{');
    out.push_back('}');
    return out;
}

ProfileMatch matchProfile(std::vector<TraceKernel> kernels, const profile::ProfileCsv& profile,
                          const std::string& traceFile) {
    std::stable_sort(
        kernels.begin(), kernels.end(),
        [](const TraceKernel& a, const TraceKernel& b) { return a.enqueueNs < b.enqueueNs; });
    std::map<uint64_t, const profile::DispatchRow*> byOrder;
    for (const profile::DispatchRow& row : profile.rows) byOrder.emplace(row.executionOrder, &row);
    const std::string& csv = profile.info.file;
    ProfileMatch match;
    for (size_t k = 0; k < kernels.size(); ++k) {
        const auto row = byOrder.find(k + 1);
        if (row == byOrder.end()) break;
        const std::string name = profile::splitMethod(row->second->method).kernel;
        if (name != kernels[k].name) {
            match.warning = traceFile + ": kernel dispatch " + std::to_string(k + 1) + " is '" +
                            kernels[k].name + "' in the trace but ExecutionOrder " +
                            std::to_string(k + 1) + " of " + csv + " is '" + name +
                            "': profile counters attached to the first " + std::to_string(k) +
                            " dispatch(es) only";
            return match;
        }
        ++match.matched;
        if (kernels[k].slot != kNoSlot) {
            match.args.emplace_back(kernels[k].slot, profileRowJson(profile.info, *row->second));
        }
    }
    if (kernels.size() != profile.rows.size()) {
        match.warning = traceFile + ": " + std::to_string(kernels.size()) +
                        " kernel dispatch(es), " + csv + " has " +
                        std::to_string(profile.rows.size()) +
                        " row(s): profile counters attached to " + std::to_string(match.matched);
    }
    return match;
}

}  // namespace perfmarker::exporter
