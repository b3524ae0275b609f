#include "profile/read/csv_reader.h"

#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <optional>

#include "profile/read/profile_lines.h"

namespace perfmarker::profile {
namespace {

enum class Column : uint8_t {
    Method,
    ExecutionOrder,
    ThreadId,
    CallIndex,
    GlobalSize,
    GroupSize,
    Time,
    LocalMem,
    Vgprs,
    Sgprs,
    ScratchRegs,
    PrivateMem,
    Counter
};

struct FixedColumn {
    std::string_view name;
    Column column;
    bool required;
};

// The fixed columns of both APIs (profile/format/profile_csv.h); any other column is a counter.
constexpr std::array<FixedColumn, 12> kFixedColumns{{
    {"Method", Column::Method, true},
    {"ExecutionOrder", Column::ExecutionOrder, true},
    {"ThreadID", Column::ThreadId, true},
    {"CallIndex", Column::CallIndex, false},
    {"GlobalWorkSize", Column::GlobalSize, true},
    {"WorkGroupSize", Column::GroupSize, true},
    {"Time", Column::Time, false},
    {"LocalMemSize", Column::LocalMem, false},
    {"VGPRs", Column::Vgprs, false},
    {"SGPRs", Column::Sgprs, false},
    {"ScratchRegs", Column::ScratchRegs, false},
    {"PrivateMemSize", Column::PrivateMem, false},
}};

Column columnOf(std::string_view name) {
    for (const FixedColumn& fixed : kFixedColumns) {
        if (fixed.name == name) return fixed.column;
    }
    return Column::Counter;
}

// `{  1024       1       1}` (one to three numbers; missing dimensions are 1) or `NULL`
// (no size given: all zero).
std::optional<std::array<uint64_t, 3>> parseSize(std::string_view text) {
    if (text == "NULL") return std::array<uint64_t, 3>{};
    if (text.size() < 2 || text.front() != '{' || text.back() != '}') return std::nullopt;
    std::string_view inner = text.substr(1, text.size() - 2);
    std::array<uint64_t, 3> size{1, 1, 1};
    size_t count = 0;
    while (!(inner = trimBlanks(inner)).empty()) {
        const size_t end = inner.find_first_of(" \t");
        const std::optional<uint64_t> value = parseCount(inner.substr(0, end));
        if (!value || count == size.size()) return std::nullopt;
        size[count++] = *value;
        inner.remove_prefix(end == std::string_view::npos ? inner.size() : end);
    }
    if (count == 0) return std::nullopt;
    return size;
}

bool isWholeText(std::string_view text) {
    return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

// One pass over the lines: the header, the column line, the rows.
class CsvParser {
public:
    CsvParser(const std::string& file, ProfileCsvInfo& info, const DispatchRowHandler& onRow)
        : m_file(file), m_info(info), m_onRow(onRow) {}

    bool line(std::string_view text, uint64_t number, std::string& error) {
        m_line = number;
        if (m_layout.empty()) {
            if (!text.empty() && text.front() == '#') return headerLine(text, error);
            if (trimBlanks(text).empty()) return true;
            return columnLine(text, error);
        }
        if (trimBlanks(text).empty()) return true;
        if (text.front() == '#') return fail(error, "a header line after the column line");
        return rowLine(text, error);
    }

    bool finish(std::string& error) {
        if (!m_layout.empty()) {
            for (size_t i = 0; i < m_info.counters.size(); ++i) {
                m_info.counters[i].kind = m_whole[i] ? CounterKind::Integer : CounterKind::Float;
            }
            return true;
        }
        if (m_line == 0) {
            error = m_file + ": empty: not a kernel profile file";
        } else {
            error = m_file + ":" + std::to_string(m_line) +
                    ": the header ends without a column line (Method, ExecutionOrder, ...)";
        }
        return false;
    }

private:
    bool fail(std::string& error, const std::string& what) const {
        error = m_file + ":" + std::to_string(m_line) + ": " + what;
        return false;
    }

    bool headerLine(std::string_view text, std::string& error) {
        auto pair = parseHeaderLine(text, false);
        if (!pair) return fail(error, "expected a #Key=Value header line, found " + quoted(text));
        const auto& [key, value] = *pair;
        if (key == "ListSeparator") {
            const std::optional<char> separator = parseListSeparator(value);
            if (!separator) {
                return fail(error,
                            "#ListSeparator= must be one punctuation character or a "
                            "tab, found " +
                                quoted(value));
            }
            m_separator = separator;
        } else if (key == "API") {
            if (value != "OpenCL" && value != "HSA") {
                return fail(error, "#API= must be OpenCL or HSA, found " + quoted(value));
            }
            m_api = value == "OpenCL" ? ProfileApi::OpenCL : ProfileApi::Hsa;
        }
        m_info.header.push_back(std::move(*pair));
        return true;
    }

    bool columnLine(std::string_view text, std::string& error) {
        const std::optional<char> found = separatorAfter(text, "Method");
        if (!found) {
            const std::string what =
                "expected the column line (Method, ExecutionOrder, ...), found ";
            return fail(error, (m_info.header.empty() ? "not a kernel profile file: " : "") + what +
                                   quoted(text));
        }
        const char separator = m_separator.value_or(*found);
        std::vector<std::string_view> names = splitFields(text, separator);
        if (names.size() > 1 && names.back().empty()) names.pop_back();  // a trailing separator
        if (names.size() < 2) {
            return fail(error, "the column line has no " + quoted(std::string(1, separator)) +
                                   " (the #ListSeparator=) between its columns");
        }
        for (std::string_view name : names) {
            if (!addColumn(name, error)) return false;
        }
        for (const FixedColumn& fixed : kFixedColumns) {
            if (fixed.required && !hasColumn(fixed.column)) {
                return fail(error, "the column line has no " + std::string(fixed.name) + " column");
            }
        }
        m_info.listSeparator = separator;
        m_info.hasTime = hasColumn(Column::Time);
        const bool openClColumns = hasColumn(Column::CallIndex) || m_info.hasTime;
        m_info.api = m_api.value_or(openClColumns ? ProfileApi::OpenCL : ProfileApi::Hsa);
        m_row.counters.assign(m_info.counters.size(), 0.0);
        return true;
    }

    bool addColumn(std::string_view name, std::string& error) {
        if (name.empty()) return fail(error, "the column line has an empty column name");
        const Column column = columnOf(name);
        for (const std::string& earlier : m_info.columns) {
            if (earlier == name) return fail(error, "the column " + quoted(name) + " twice");
        }
        m_info.columns.emplace_back(name);
        m_layout.push_back(column);
        if (column == Column::Counter) {
            m_info.counters.push_back(CounterColumn{std::string(name), CounterKind::Integer});
            m_whole.push_back(true);
        }
        return true;
    }

    bool hasColumn(Column column) const {
        for (Column present : m_layout) {
            if (present == column) return true;
        }
        return false;
    }

    bool rowLine(std::string_view text, std::string& error) {
        std::vector<std::string_view> values = splitFields(text, m_info.listSeparator);
        if (values.size() == m_layout.size() + 1 && values.back().empty()) values.pop_back();
        if (values.size() != m_layout.size()) {
            return fail(error, "expected " + std::to_string(m_layout.size()) +
                                   " values (one per column), found " +
                                   std::to_string(values.size()));
        }
        m_row = DispatchRow{};
        m_row.counters.assign(m_info.counters.size(), 0.0);
        size_t counter = 0;
        for (size_t i = 0; i < values.size(); ++i) {
            if (!setValue(i, values[i], counter, error)) return false;
        }
        ++m_info.rowCount;
        if (m_onRow) m_onRow(m_row, m_line);
        return true;
    }

    bool setValue(size_t index, std::string_view text, size_t& counter, std::string& error) {
        const std::string& name = m_info.columns[index];
        switch (m_layout[index]) {
            case Column::Method:
                if (text.empty()) return fail(error, "Method: empty");
                m_row.method.assign(text);
                return true;
            case Column::ExecutionOrder:
                return count(name, text, m_row.executionOrder, error);
            case Column::ThreadId:
                return count(name, text, m_row.threadId, error);
            case Column::CallIndex:
                return count(name, text, m_row.callIndex, error);
            case Column::GlobalSize:
                return size(name, text, m_row.globalSize, error);
            case Column::GroupSize:
                return size(name, text, m_row.groupSize, error);
            case Column::Time:
                return time(name, text, error);
            case Column::LocalMem:
                return optionalCount(name, text, m_row.localMemBytes, error);
            case Column::Vgprs:
                return optionalCount(name, text, m_row.vgprs, error);
            case Column::Sgprs:
                return optionalCount(name, text, m_row.sgprs, error);
            case Column::ScratchRegs:
                return optionalCount(name, text, m_row.scratchRegs, error);
            case Column::PrivateMem:
                return optionalCount(name, text, m_row.privateMemBytes, error);
            case Column::Counter:
                return counterValue(name, text, counter++, error);
        }
        return true;
    }

    bool count(const std::string& name, std::string_view text, uint64_t& out,
               std::string& error) const {
        const std::optional<uint64_t> value = parseCount(text);
        if (!value) return fail(error, name + ": " + quoted(text) + " is not a whole number");
        out = *value;
        return true;
    }

    bool optionalCount(const std::string& name, std::string_view text, std::optional<uint64_t>& out,
                       std::string& error) const {
        if (text == "NA") return true;
        uint64_t value = 0;
        if (!count(name, text, value, error)) return false;
        out = value;
        return true;
    }

    bool size(const std::string& name, std::string_view text, std::array<uint64_t, 3>& out,
              std::string& error) const {
        const auto value = parseSize(text);
        if (!value) {
            return fail(error, name +
                                   ": expected a size such as {   1024       1       1} or "
                                   "NULL, found " +
                                   quoted(text));
        }
        out = *value;
        return true;
    }

    bool time(const std::string& name, std::string_view text, std::string& error) {
        if (text == "NA") return true;
        const std::optional<double> value = parseReal(text);
        if (!value || *value < 0) {
            return fail(error, name + ": " + quoted(text) + " is not a time in ms (or NA)");
        }
        m_row.timeMs = *value;
        return true;
    }

    bool counterValue(const std::string& name, std::string_view text, size_t counter,
                      std::string& error) {
        if (text == "NA") {
            m_row.counters[counter] = std::numeric_limits<double>::quiet_NaN();
            return true;
        }
        const std::optional<double> value = parseReal(text);
        if (!value) return fail(error, name + ": " + quoted(text) + " is not a number (or NA)");
        m_row.counters[counter] = *value;
        if (!isWholeText(text)) m_whole[counter] = false;
        return true;
    }

    const std::string& m_file;
    ProfileCsvInfo& m_info;
    const DispatchRowHandler& m_onRow;
    uint64_t m_line = 0;
    std::optional<char> m_separator;  // from #ListSeparator=
    std::optional<ProfileApi> m_api;  // from #API=
    std::vector<Column> m_layout;     // per column; empty until the column line
    std::vector<bool> m_whole;        // per counter: every value so far a whole number
    DispatchRow m_row;
};

}  // namespace

const std::string* ProfileCsvInfo::headerValue(std::string_view key) const {
    for (const auto& [name, value] : header) {
        if (name == key) return &value;
    }
    return nullptr;
}

bool readProfileCsv(std::istream& in, const std::string& file, ProfileCsvInfo& info,
                    const DispatchRowHandler& onRow, std::string& error) {
    info = ProfileCsvInfo{};
    info.file = file;
    CsvParser parser(file, info, onRow);
    return feedLines(in, file, parser, error);
}

bool readProfileCsvFile(const std::string& path, ProfileCsvInfo& info,
                        const DispatchRowHandler& onRow, std::string& error) {
    std::ifstream in;
    return openProfileInput(path, in, error) && readProfileCsv(in, path, info, onRow, error);
}

bool loadProfileCsv(const std::string& path, ProfileCsv& profile, std::string& error) {
    profile.rows.clear();
    return readProfileCsvFile(
        path, profile.info,
        [&profile](const DispatchRow& row, uint64_t) { profile.rows.push_back(row); }, error);
}

MethodName splitMethod(std::string_view method) {
    MethodName name;
    for (size_t at = method.rfind("__k"); at != std::string_view::npos && at > 0;
         at = method.rfind("__k", at - 1)) {
        const std::string_view rest = method.substr(at + 3);
        const size_t underscore = rest.find('_');
        if (underscore == std::string_view::npos || underscore + 1 == rest.size()) continue;
        const std::optional<uint64_t> id = parseCount(rest.substr(0, underscore));
        if (!id) continue;
        name.kernel.assign(method.substr(0, at));
        name.device.assign(rest.substr(underscore + 1));
        name.hasKernelId = true;
        name.kernelId = *id;
        return name;
    }
    name.kernel.assign(method);
    return name;
}

}  // namespace perfmarker::profile
