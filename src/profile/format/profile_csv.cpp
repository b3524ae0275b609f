// The kernel profile CSV's text (docs/profile.md#the-csv-file): header lines, column line and
// rows, with the original profiler's widths.
#include "profile/format/profile_csv.h"

#include <cinttypes>
#include <cmath>
#include <cstdio>

#include "atp/format/atp_header.h"

namespace perfmarker::profile {
namespace {

constexpr std::string_view kNotAvailable = "NA";

// A value must stay on its line: line breaks become spaces (docs/profile.md#the-csv-file).
void appendValue(std::string& out, std::string_view value) {
    for (const char c : value) out.push_back(c == '\n' || c == '\r' ? ' ' : c);
}

void appendHeaderLine(std::string& out, std::string_view key, std::string_view value) {
    out.push_back('#');
    out.append(key);
    out.push_back('=');
    appendValue(out, value);
    out.push_back('\n');
}

std::string joinedArgs(const std::vector<std::string>& args) {
    std::string joined;
    for (const std::string& arg : args) {
        if (!joined.empty()) joined.push_back(' ');
        joined.append(arg);
    }
    return joined;
}

// Values of a row or names of the column line, joined by `<separator><space>`.
class Joiner {
public:
    explicit Joiner(char separator) : m_separator(separator) {}
    void add(std::string_view value) {
        if (!m_out.empty()) {
            m_out.push_back(m_separator);
            m_out.push_back(' ');
        }
        appendValue(m_out, value);
    }
    std::string finish() {
        m_out.push_back('\n');
        return std::move(m_out);
    }

private:
    char m_separator;
    std::string m_out;
};

std::string formatUnsigned(uint64_t value) {
    char text[24];
    std::snprintf(text, sizeof text, "%" PRIu64, value);
    return text;
}

std::string formatOptional(const std::optional<uint64_t>& value) {
    return value ? formatUnsigned(*value) : std::string(kNotAvailable);
}

std::string formatGlobalSize(const std::array<uint64_t, 3>& size) {
    char text[96];
    std::snprintf(text, sizeof text, "{%7" PRIu64 " %7" PRIu64 " %7" PRIu64 "}", size[0], size[1],
                  size[2]);
    return text;
}

std::string formatGroupSize(ProfileApi api, const std::array<uint64_t, 3>& size) {
    if (api == ProfileApi::OpenCL && size[0] == 0 && size[1] == 0 && size[2] == 0) return "NULL";
    char text[96];
    std::snprintf(text, sizeof text, "{%5" PRIu64 " %5" PRIu64 " %5" PRIu64 "}", size[0], size[1],
                  size[2]);
    return text;
}

std::string formatTime(const std::optional<double>& ms) {
    if (!ms || !std::isfinite(*ms)) return std::string(kNotAvailable);
    char text[64];
    std::snprintf(text, sizeof text, "%15.5f", *ms);
    return text;
}

std::string formatCounter(const CounterColumn& column, const double* value) {
    if (value == nullptr || !std::isfinite(*value)) return std::string(kNotAvailable);
    if (column.kind == CounterKind::Integer) {
        return formatUnsigned(*value <= 0 ? 0 : static_cast<uint64_t>(std::llround(*value)));
    }
    char text[64];
    std::snprintf(text, sizeof text, "%12.2f", *value);
    return text;
}

void appendDevices(std::string& out, const std::vector<DeviceDescription>& devices) {
    for (const DeviceDescription& device : devices) {
        for (const auto& [key, value] : device.properties) {
            appendHeaderLine(out, "Device " + device.name + " " + key, value);
        }
    }
}

}  // namespace

std::vector<std::string> columnNames(ProfileApi api, const std::vector<CounterColumn>& counters) {
    std::vector<std::string> names;
    if (api == ProfileApi::OpenCL) {
        names = {"Method",         "ExecutionOrder", "ThreadID",    "CallIndex",
                 "GlobalWorkSize", "WorkGroupSize",  "Time",        "LocalMemSize",
                 "VGPRs",          "SGPRs",          "ScratchRegs", "PrivateMemSize"};
    } else {
        names = {"Method",       "ExecutionOrder", "ThreadID", "GlobalWorkSize", "WorkGroupSize",
                 "LocalMemSize", "VGPRs",          "SGPRs",    "PrivateMemSize"};
    }
    for (const CounterColumn& counter : counters) names.push_back(counter.name);
    return names;
}

std::string formatProfileHeader(const ProfileHeader& header,
                                const std::vector<CounterColumn>& counters) {
    std::string out;
    appendHeaderLine(out, "ProfileFileVersion", kProfileFileVersion);
    appendHeaderLine(out, "ProfilerVersion", atp::profilerVersion());
    appendHeaderLine(out, "API", header.api == ProfileApi::OpenCL ? "OpenCL" : "HSA");
    appendHeaderLine(out, "Application", header.application);
    appendHeaderLine(out, "ApplicationArgs", joinedArgs(header.applicationArgs));
    appendHeaderLine(out, "WorkingDirectory", header.workingDirectory);
    if (header.fullEnvironment) {
        appendHeaderLine(out, "FullEnvironment", *header.fullEnvironment ? "1" : "0");
    }
    for (const auto& [name, value] : header.envVars)
        appendHeaderLine(out, "EnvVar", name + "=" + value);
    if (header.api == ProfileApi::OpenCL) appendDevices(out, header.devices);
    appendHeaderLine(out, "OS Version",
                     header.osVersion.empty() ? atp::osVersionString() : header.osVersion);
    appendHeaderLine(out, "DisplayName", header.displayName);
    appendHeaderLine(out, "ListSeparator", std::string(1, header.listSeparator));
    Joiner columns(header.listSeparator);
    for (const std::string& name : columnNames(header.api, counters)) columns.add(name);
    out += columns.finish();
    return out;
}

std::string formatDispatchRow(ProfileApi api, char listSeparator, const DispatchRow& row,
                              const std::vector<CounterColumn>& counters) {
    const bool openCl = api == ProfileApi::OpenCL;
    Joiner values(listSeparator);
    values.add(row.method);
    values.add(formatUnsigned(row.executionOrder));
    values.add(formatUnsigned(row.threadId));
    if (openCl) values.add(formatUnsigned(row.callIndex));
    values.add(formatGlobalSize(row.globalSize));
    values.add(formatGroupSize(api, row.groupSize));
    if (openCl) values.add(formatTime(row.timeMs));
    values.add(formatOptional(row.localMemBytes));
    values.add(formatOptional(row.vgprs));
    values.add(formatOptional(row.sgprs));
    if (openCl) values.add(formatOptional(row.scratchRegs));
    values.add(formatOptional(row.privateMemBytes));
    for (size_t i = 0; i < counters.size(); ++i) {
        values.add(
            formatCounter(counters[i], i < row.counters.size() ? &row.counters[i] : nullptr));
    }
    return values.finish();
}

std::string methodName(std::string_view kernel, uint64_t kernelId, std::string_view deviceName,
                       unsigned deviceNumber, bool isGpu) {
    std::string name(kernel);
    name += "__k" + formatUnsigned(kernelId) + "_";
    if (!isGpu) return name + "CPU";
    name.append(deviceName);
    return name + std::to_string(deviceNumber);
}

}  // namespace perfmarker::profile
