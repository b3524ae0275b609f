// The `.occupancy` file (docs/profile.md#the-occupancy-file): `# Key=Value` header lines ending
// in the kernel count, the 26-column line and one row per dispatch to a GPU, every value joined
// by the bare list separator.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "profile/format/occupancy_model.h"
#include "profile/format/profile_file.h"

namespace perfmarker::profile {

inline constexpr size_t kOccupancyColumnCount = 26;

// The column names in file order.
const std::array<std::string_view, kOccupancyColumnCount>& occupancyColumnNames();

struct OccupancyHeader {
    std::string application;  // absolute path of the profiled executable
    std::vector<std::string> applicationArgs;
    char listSeparator = ',';
};

// `# ProfilerVersion=`, `# Application=`, `# ApplicationArgs=`, `# ListSeparator=`,
// `# KernelCount=<kernelCount>`, then the column line; each line ends in '\n'.
std::string formatOccupancyHeader(const OccupancyHeader& header, uint64_t kernelCount);

// One row of the 26 values, ending in '\n'. The occupancy is written with at most two decimals
// and no trailing zeros (`50`, `31.25`).
std::string formatOccupancyRow(const OccupancyRow& row, char listSeparator);

// The file, written safely (profile_file.h): rows are appended to a temporary file as they come
// (a crash leaves them there), and finish() puts the header with the final kernel count and the
// rows into the target. Not thread-safe: callers serialise.
class OccupancyFileWriter {
public:
    bool open(const std::string& target, const OccupancyHeader& header, std::string& error);
    bool append(const OccupancyRow& row);
    bool finish(std::string& error);
    uint64_t rowCount() const { return m_file.rowCount(); }
    bool isOpen() const { return m_file.isOpen(); }

private:
    OccupancyHeader m_header;
    ProfileFile m_file;
};

}  // namespace perfmarker::profile
