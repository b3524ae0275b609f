// Helpers of the profile reader tests: reading text as a CSV or an occupancy file, and the
// fixtures of tests/fixtures/profile.
#pragma once

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include "profile/read/csv_reader.h"
#include "profile/read/occupancy_reader.h"

namespace perfmarker::test {

inline std::string profileFixture(const std::string& name) {
    return std::string(PERFMARKER_FIXTURES_DIR) + "/profile/" + name;
}

struct CsvResult {
    bool ok = false;
    std::string error;
    profile::ProfileCsvInfo info;
    std::vector<profile::DispatchRow> rows;
    std::vector<uint64_t> lines;  // of the rows
};

inline CsvResult readCsvText(const std::string& text, const std::string& name = "p.csv") {
    CsvResult result;
    std::istringstream in(text);
    result.ok = profile::readProfileCsv(
        in, name, result.info,
        [&](const profile::DispatchRow& row, uint64_t line) {
            result.rows.push_back(row);
            result.lines.push_back(line);
        },
        result.error);
    return result;
}

inline CsvResult readCsvFixture(const std::string& name) {
    CsvResult result;
    result.ok = profile::readProfileCsvFile(
        profileFixture(name), result.info,
        [&](const profile::DispatchRow& row, uint64_t line) {
            result.rows.push_back(row);
            result.lines.push_back(line);
        },
        result.error);
    return result;
}

struct OccupancyResult {
    bool ok = false;
    std::string error;
    profile::OccupancyInfo info;
    std::vector<profile::OccupancyRow> rows;
};

inline OccupancyResult readOccupancyText(const std::string& text,
                                         const std::string& name = "x.occupancy") {
    OccupancyResult result;
    std::istringstream in(text);
    result.ok = profile::readOccupancy(
        in, name, result.info,
        [&](const profile::OccupancyRow& row, uint64_t) { result.rows.push_back(row); },
        result.error);
    return result;
}

// The 26 column names of an occupancy file joined by `separator`.
inline std::string occupancyColumns(char separator) {
    const char* names[] = {"Thread ID",
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
                           "Number of SIMDs per CU"};
    std::string line;
    for (const char* name : names) {
        if (!line.empty()) line.push_back(separator);
        line += name;
    }
    return line;
}

}  // namespace perfmarker::test
