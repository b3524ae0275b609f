// The reader of the `.occupancy` file (docs/summary.md#kernel-profile-files): `# Key=Value`
// header lines (hash, space), one column line with the 26 columns of the original, separated by
// the bare list separator (`# ListSeparator=`, else the character after `Thread ID`), and one row
// per kernel dispatch to a GPU. Rows are announced one at a time, as the occupancy model's
// OccupancyRow (profile/format/occupancy_model.h), its limiter set to the smallest of the four
// limited wave counts (the first of VGPR, SGPR, LDS, work-group on a tie).
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "profile/format/occupancy_model.h"

namespace perfmarker::profile {

inline constexpr size_t kOccupancyColumnCount = 26;

struct OccupancyInfo {
    std::string file;                                         // as given to the reader
    std::vector<std::pair<std::string, std::string>> header;  // `# Key=Value`, in file order
    char listSeparator = ',';
    std::vector<std::string> columns;     // as in the column line
    std::optional<uint64_t> kernelCount;  // `# KernelCount=`
    uint64_t rowCount = 0;
};

// Called with every row in file order; `line` is its line number.
using OccupancyRowHandler = std::function<void(const OccupancyRow& row, uint64_t line)>;

// Reads an occupancy file from `in`; `file` names it in messages. False with `error` =
// "<file>:<line>: <what>" (or "<file>: <what>") on the first problem: a header line that is no
// `# Key=Value`, no column line, a column line without 26 columns, a row without 26 values, a
// value that is no number where one is expected (the "Graphics IP Version" may also be written
// `9.0.6` or `gfx906`: its major number is kept). A file with no rows is valid.
bool readOccupancy(std::istream& in, const std::string& file, OccupancyInfo& info,
                   const OccupancyRowHandler& onRow, std::string& error);
bool readOccupancyFile(const std::string& path, OccupancyInfo& info,
                       const OccupancyRowHandler& onRow, std::string& error);

}  // namespace perfmarker::profile
