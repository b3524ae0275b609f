#include "profile/read/profile_lines.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>

namespace perfmarker::profile {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";

bool startsWith(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

bool isBlank(char c) { return c == ' ' || c == '\t'; }

// The first line that is no header line and not blank.
std::string_view firstColumnLine(std::string_view head) {
    while (!head.empty()) {
        const size_t end = head.find('\n');
        std::string_view line = head.substr(0, end);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (!line.empty() && line.front() != '#' && !trimBlanks(line).empty()) return line;
        if (end == std::string_view::npos) break;
        head.remove_prefix(end + 1);
    }
    return {};
}

}  // namespace

ProfileFileKind detectProfileText(std::string_view head) {
    if (startsWith(head, kBom)) head.remove_prefix(kBom.size());
    if (startsWith(head, "#ProfileFileVersion=")) return ProfileFileKind::Csv;
    if (startsWith(head, "# ProfilerVersion=")) return ProfileFileKind::Occupancy;
    const std::string_view columns = firstColumnLine(head);
    const std::optional<char> csv = separatorAfter(columns, "Method");
    if (csv && columns.find("ExecutionOrder") != std::string_view::npos) {
        return ProfileFileKind::Csv;
    }
    const std::optional<char> occupancy = separatorAfter(columns, "Thread ID");
    if (occupancy && columns.find("Kernel Name") != std::string_view::npos) {
        return ProfileFileKind::Occupancy;
    }
    return ProfileFileKind::NotProfile;
}

ProfileFileKind detectProfileFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return ProfileFileKind::NotProfile;
    // Enough for the longest header the original wrote (devices, environment) and a column
    // line with many counters.
    std::string head(64 * 1024, '\0');
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<size_t>(in.gcount()));
    return detectProfileText(head);
}

bool hasProfileExtension(std::string_view path) {
    const size_t dot = path.rfind('.');
    const size_t slash = path.rfind('/');
    if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) {
        return false;
    }
    const std::string_view extension = path.substr(dot);
    return extension == ".csv" || extension == ".occupancy";
}

bool isProfileInput(const std::string& path) {
    return hasProfileExtension(path) || detectProfileFile(path) != ProfileFileKind::NotProfile;
}

bool openProfileInput(const std::string& path, std::ifstream& in, std::string& error) {
    in.open(path, std::ios::binary);
    if (in) return true;
    error = path + ": cannot open: " + std::strerror(errno);
    return false;
}

bool LineReader::next(std::string& line) {
    if (!std::getline(m_in, line)) return false;
    ++m_line;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (m_line == 1 && startsWith(line, kBom)) line.erase(0, kBom.size());
    return true;
}

std::string_view trimBlanks(std::string_view text) {
    while (!text.empty() && isBlank(text.front())) text.remove_prefix(1);
    while (!text.empty() && isBlank(text.back())) text.remove_suffix(1);
    return text;
}

std::vector<std::string_view> splitFields(std::string_view line, char separator) {
    std::vector<std::string_view> fields;
    while (true) {
        const size_t at = line.find(separator);
        fields.push_back(trimBlanks(line.substr(0, at)));
        if (at == std::string_view::npos) break;
        line.remove_prefix(at + 1);
    }
    return fields;
}

std::optional<char> separatorAfter(std::string_view line, std::string_view firstColumn) {
    if (!startsWith(line, firstColumn)) return std::nullopt;
    line.remove_prefix(firstColumn.size());
    // A tab separator is itself a blank: the first one counts.
    for (char c : line) {
        if (c == ' ') continue;
        const bool nameChar =
            (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
        if (nameChar) return std::nullopt;  // a longer name: "MethodName"
        return c;
    }
    return std::nullopt;
}

std::optional<char> parseListSeparator(std::string_view value) {
    if (value == "\\t") return '\t';
    if (value.size() != 1) return std::nullopt;
    const char c = value.front();
    if (c == ' ' || c == '{' || c == '}' || c == '.' || c == '#' || c == '-' ||
        (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) {
        return std::nullopt;  // would split the sizes, the numbers or the names
    }
    return c;
}

std::optional<std::pair<std::string, std::string>> parseHeaderLine(std::string_view line,
                                                                   bool spaceAfterHash) {
    const std::string_view prefix = spaceAfterHash ? "# " : "#";
    if (!startsWith(line, prefix)) return std::nullopt;
    line.remove_prefix(prefix.size());
    const size_t equals = line.find('=');
    if (equals == std::string_view::npos || equals == 0) return std::nullopt;
    return std::make_pair(std::string(line.substr(0, equals)),
                          std::string(line.substr(equals + 1)));
}

std::optional<uint64_t> parseCount(std::string_view text) {
    uint64_t value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
    return value;
}

std::optional<double> parseReal(std::string_view text) {
    if (!text.empty() && text.front() == '+') text.remove_prefix(1);
    double value = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    if (text.empty() || ec != std::errc() || ptr != end || !std::isfinite(value)) {
        return std::nullopt;
    }
    return value;
}

std::string quoted(std::string_view text) {
    constexpr size_t kMax = 40;
    if (text.size() <= kMax) return "'" + std::string(text) + "'";
    return "'" + std::string(text.substr(0, kMax)) + "...'";
}

}  // namespace perfmarker::profile
