#include "profile/read/occupancy_reader.h"

#include <array>
#include <cctype>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fstream>

#include "profile/read/profile_lines.h"

namespace perfmarker::profile {
namespace {

// The columns in file order (docs/summary.md#kernel-profile-files), with the number field each
// value goes to (one of the two; neither for the text columns).
struct OccupancyColumn {
    std::string_view name;
    uint32_t OccupancyRow::*small = nullptr;
    uint64_t OccupancyRow::*large = nullptr;
};

using Row = OccupancyRow;
constexpr std::array<OccupancyColumn, kOccupancyColumnCount> kColumns{{
    {"Thread ID", nullptr, &Row::threadId},
    {"Kernel Name"},
    {"Device Name"},
    {"Number of compute units", &Row::computeUnits},
    {"Max. number of wavefronts per CU", &Row::maxWavesPerCu},
    {"Max. number of work-group per CU", &Row::maxWorkgroupsPerCu},
    {"Max. number of VGPR", &Row::maxVgprs},
    {"Max. number of SGPR", &Row::maxSgprs},
    {"Max. amount of LDS", &Row::maxLds},
    {"Number of VGPR used", &Row::vgprsUsed},
    {"Number of SGPR used", &Row::sgprsUsed},
    {"Amount of LDS used", &Row::ldsUsed},
    {"Size of wavefront", &Row::waveSize},
    {"Work-group size", &Row::workgroupSize},
    {"Wavefronts per work-group", &Row::wavesPerWorkgroup},
    {"Max work-group size", &Row::maxWorkgroupSize},
    {"Max wavefronts per work-group", &Row::maxWavesPerWorkgroup},
    {"Global work size", nullptr, &Row::globalSize},
    {"Maximum global work size", nullptr, &Row::maxGlobalSize},
    {"Nbr VGPR-limited waves", &Row::vgprLimitedWaves},
    {"Nbr SGPR-limited waves", &Row::sgprLimitedWaves},
    {"Nbr LDS-limited waves", &Row::ldsLimitedWaves},
    {"Nbr of WG-limited waves", &Row::workgroupLimitedWaves},
    {"Kernel occupancy"},
    {"Graphics IP Version"},
    {"Number of SIMDs per CU", &Row::simdsPerCu},
}};

constexpr size_t kKernelName = 1;
constexpr size_t kDeviceName = 2;
constexpr size_t kOccupancy = 23;
constexpr size_t kGfxIp = 24;

// Column names compared by their letters and digits alone, ignoring case: "Max. number of VGPR"
// and "Max number of VGPR" are the same column.
std::string nameKey(std::string_view name) {
    std::string key;
    for (char c : name) {
        if (std::isalnum(static_cast<unsigned char>(c))) {
            key.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        }
    }
    return key;
}

// The major number of a "Graphics IP Version" value: `9`, `9.0.6`, or a target name such as
// `gfx906`, `gfx90a`, `gfx1030` (all but its last two characters).
std::optional<uint32_t> gfxIpMajor(std::string_view text) {
    if (text.substr(0, 3) == "gfx" && text.size() > 5) {
        text = text.substr(3, text.size() - 5);
    } else {
        text = text.substr(0, text.find('.'));
    }
    const std::optional<uint64_t> value = parseCount(text);
    if (!value || *value > UINT32_MAX) return std::nullopt;
    return static_cast<uint32_t>(*value);
}

// The smallest of the four limited wave counts; the first on a tie.
OccupancyLimiter smallestLimit(const OccupancyRow& row) {
    OccupancyLimiter limiter = OccupancyLimiter::Vgpr;
    uint32_t smallest = row.vgprLimitedWaves;
    const std::pair<uint32_t, OccupancyLimiter> others[] = {
        {row.sgprLimitedWaves, OccupancyLimiter::Sgpr},
        {row.ldsLimitedWaves, OccupancyLimiter::Lds},
        {row.workgroupLimitedWaves, OccupancyLimiter::Workgroup}};
    for (const auto& [waves, which] : others) {
        if (waves < smallest) {
            smallest = waves;
            limiter = which;
        }
    }
    return limiter;
}

class OccupancyParser {
public:
    OccupancyParser(const std::string& file, OccupancyInfo& info, const OccupancyRowHandler& onRow)
        : m_file(file), m_info(info), m_onRow(onRow) {}

    bool line(std::string_view text, uint64_t number, std::string& error) {
        m_line = number;
        if (trimBlanks(text).empty()) return true;
        if (!m_haveColumns) {
            if (text.front() == '#') return headerLine(text, error);
            return columnLine(text, error);
        }
        if (text.front() == '#') return fail(error, "a header line after the column line");
        return rowLine(text, error);
    }

    bool finish(std::string& error) const {
        if (m_haveColumns) return true;
        if (m_line == 0) {
            error = m_file + ": empty: not an occupancy file";
        } else {
            error = m_file + ":" + std::to_string(m_line) +
                    ": the header ends without a column line (Thread ID, Kernel Name, ...)";
        }
        return false;
    }

private:
    bool fail(std::string& error, const std::string& what) const {
        error = m_file + ":" + std::to_string(m_line) + ": " + what;
        return false;
    }

    bool headerLine(std::string_view text, std::string& error) {
        auto pair = parseHeaderLine(text, true);
        if (!pair) pair = parseHeaderLine(text, false);
        if (!pair) return fail(error, "expected a # Key=Value header line, found " + quoted(text));
        const auto& [key, value] = *pair;
        if (key == "ListSeparator") {
            m_separator = parseListSeparator(value);
            if (!m_separator) {
                return fail(error,
                            "ListSeparator= must be one punctuation character or a tab, "
                            "found " +
                                quoted(value));
            }
        } else if (key == "KernelCount") {
            m_info.kernelCount = parseCount(trimBlanks(value));
            if (!m_info.kernelCount) {
                return fail(error, "KernelCount= " + quoted(value) + " is not a whole number");
            }
        }
        m_info.header.push_back(std::move(*pair));
        return true;
    }

    bool columnLine(std::string_view text, std::string& error) {
        const std::optional<char> found = separatorAfter(text, "Thread ID");
        if (!found) {
            const std::string what =
                "expected the column line (Thread ID, Kernel Name, ...), found ";
            return fail(error, (m_info.header.empty() ? "not an occupancy file: " : "") + what +
                                   quoted(text));
        }
        const char separator = m_separator.value_or(*found);
        std::vector<std::string_view> names = splitFields(text, separator);
        if (names.size() == kColumns.size() + 1 && names.back().empty()) names.pop_back();
        if (names.size() != kColumns.size()) {
            return fail(error, "expected the " + std::to_string(kColumns.size()) +
                                   " columns of an occupancy file, found " +
                                   std::to_string(names.size()));
        }
        for (size_t i = 0; i < names.size(); ++i) {
            if (nameKey(names[i]) != nameKey(kColumns[i].name)) {
                return fail(error, "column " + std::to_string(i + 1) + " is " + quoted(names[i]) +
                                       ", expected " + quoted(kColumns[i].name));
            }
            m_info.columns.emplace_back(names[i]);
        }
        m_info.listSeparator = separator;
        m_haveColumns = true;
        return true;
    }

    bool rowLine(std::string_view text, std::string& error) {
        std::vector<std::string_view> values = splitFields(text, m_info.listSeparator);
        if (values.size() == kColumns.size() + 1 && values.back().empty()) values.pop_back();
        if (values.size() != kColumns.size()) {
            return fail(error, "expected " + std::to_string(kColumns.size()) +
                                   " values (one per column), found " +
                                   std::to_string(values.size()));
        }
        OccupancyRow row;
        for (size_t i = 0; i < values.size(); ++i) {
            if (!setValue(row, i, values[i], error)) return false;
        }
        row.limiter = smallestLimit(row);
        ++m_info.rowCount;
        if (m_onRow) m_onRow(row, m_line);
        return true;
    }

    bool setValue(OccupancyRow& row, size_t index, std::string_view text,
                  std::string& error) const {
        const OccupancyColumn& column = kColumns[index];
        const std::string name(column.name);
        if (column.small != nullptr || column.large != nullptr) {
            const std::optional<uint64_t> value = parseCount(text);
            const bool fits = value && (column.large != nullptr || *value <= UINT32_MAX);
            if (!fits) return fail(error, name + ": " + quoted(text) + " is not a whole number");
            if (column.large != nullptr) {
                row.*column.large = *value;
            } else {
                row.*column.small = static_cast<uint32_t>(*value);
            }
        } else if (index == kKernelName || index == kDeviceName) {
            if (text.empty()) return fail(error, name + ": empty");
            (index == kKernelName ? row.kernelName : row.deviceName).assign(text);
        } else if (index == kOccupancy) {
            if (!text.empty() && text.back() == '%') text.remove_suffix(1);
            const std::optional<double> value = parseReal(text);
            if (!value || *value < 0 || *value > 100) {
                return fail(error, name + ": " + quoted(text) + " is not a percentage");
            }
            row.occupancyPercent = *value;
        } else if (index == kGfxIp) {
            const std::optional<uint32_t> major = gfxIpMajor(text);
            if (!major) {
                return fail(error,
                            name + ": " + quoted(text) + " is not a version (9, 9.0.6 or gfx906)");
            }
            row.gfxIpMajor = *major;
        }
        return true;
    }

    const std::string& m_file;
    OccupancyInfo& m_info;
    const OccupancyRowHandler& m_onRow;
    uint64_t m_line = 0;
    std::optional<char> m_separator;
    bool m_haveColumns = false;
};

}  // namespace

bool readOccupancy(std::istream& in, const std::string& file, OccupancyInfo& info,
                   const OccupancyRowHandler& onRow, std::string& error) {
    info = OccupancyInfo{};
    info.file = file;
    OccupancyParser parser(file, info, onRow);
    return feedLines(in, file, parser, error);
}

bool readOccupancyFile(const std::string& path, OccupancyInfo& info,
                       const OccupancyRowHandler& onRow, std::string& error) {
    std::ifstream in;
    return openProfileInput(path, in, error) && readOccupancy(in, path, info, onRow, error);
}

}  // namespace perfmarker::profile
