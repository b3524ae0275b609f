// The `.occupancy` file (docs/profile.md#the-occupancy-file).
#include "profile/format/occupancy_file.h"

#include <cinttypes>
#include <cstdio>

#include "atp/format/atp_header.h"

namespace perfmarker::profile {
namespace {

constexpr std::array<std::string_view, kOccupancyColumnCount> kColumns = {
    "Thread ID",
    "Kernel Name",
    "Device Name",
    "Number of compute units",
    "Max. number of wavefronts per CU",
    "Max. number of work-group per CU",
    "Max. number of VGPR",
    "Max. number of SGPR",
    "Max. amount of LDS",
    "Number of VGPR used",
    "Number of SGPR used",
    "Amount of LDS used",
    "Size of wavefront",
    "Work-group size",
    "Wavefronts per work-group",
    "Max work-group size",
    "Max wavefronts per work-group",
    "Global work size",
    "Maximum global work size",
    "Nbr VGPR-limited waves",
    "Nbr SGPR-limited waves",
    "Nbr LDS-limited waves",
    "Nbr of WG-limited waves",
    "Kernel occupancy",
    "Graphics IP Version",
    "Number of SIMDs per CU",
};

// A value must stay on its line.
void appendValue(std::string& out, std::string_view value) {
    for (const char c : value) out.push_back(c == '\n' || c == '\r' ? ' ' : c);
}

void appendHeaderLine(std::string& out, std::string_view key, std::string_view value) {
    out.append("# ");
    out.append(key);
    out.push_back('=');
    appendValue(out, value);
    out.push_back('\n');
}

std::string percent(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", value);
    std::string s = text;
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
}

}  // namespace

const std::array<std::string_view, kOccupancyColumnCount>& occupancyColumnNames() {
    return kColumns;
}

std::string formatOccupancyHeader(const OccupancyHeader& header, uint64_t kernelCount) {
    std::string out;
    std::string args;
    for (const std::string& arg : header.applicationArgs) {
        if (!args.empty()) args.push_back(' ');
        args.append(arg);
    }
    appendHeaderLine(out, "ProfilerVersion", atp::profilerVersion());
    appendHeaderLine(out, "Application", header.application);
    appendHeaderLine(out, "ApplicationArgs", args);
    appendHeaderLine(out, "ListSeparator", std::string(1, header.listSeparator));
    appendHeaderLine(out, "KernelCount", std::to_string(kernelCount));
    for (size_t i = 0; i < kColumns.size(); ++i) {
        if (i > 0) out.push_back(header.listSeparator);
        out.append(kColumns[i]);
    }
    out.push_back('\n');
    return out;
}

std::string formatOccupancyRow(const OccupancyRow& row, char listSeparator) {
    std::string out;
    const auto add = [&out, listSeparator](std::string_view value) {
        if (!out.empty()) out.push_back(listSeparator);
        appendValue(out, value);
    };
    const auto number = [&add](uint64_t value) { add(std::to_string(value)); };
    number(row.threadId);
    add(row.kernelName);
    add(row.deviceName);
    for (const uint32_t value :
         {row.computeUnits, row.maxWavesPerCu, row.maxWorkgroupsPerCu, row.maxVgprs, row.maxSgprs,
          row.maxLds, row.vgprsUsed, row.sgprsUsed, row.ldsUsed, row.waveSize, row.workgroupSize,
          row.wavesPerWorkgroup, row.maxWorkgroupSize, row.maxWavesPerWorkgroup}) {
        number(value);
    }
    number(row.globalSize);
    number(row.maxGlobalSize);
    for (const uint32_t value : {row.vgprLimitedWaves, row.sgprLimitedWaves, row.ldsLimitedWaves,
                                 row.workgroupLimitedWaves}) {
        number(value);
    }
    add(percent(row.occupancyPercent));
    number(row.gfxIpMajor);
    number(row.simdsPerCu);
    out.push_back('\n');
    return out;
}

bool OccupancyFileWriter::open(const std::string& target, const OccupancyHeader& header,
                               std::string& error) {
    m_header = header;
    return m_file.open(target, error);
}

bool OccupancyFileWriter::append(const OccupancyRow& row) {
    std::string error;
    return m_file.appendRow(formatOccupancyRow(row, m_header.listSeparator), error);
}

bool OccupancyFileWriter::finish(std::string& error) {
    if (!m_file.isOpen()) {
        error = "no occupancy file open";
        return false;
    }
    return m_file.finish(formatOccupancyHeader(m_header, m_file.rowCount()), error);
}

}  // namespace perfmarker::profile
