// Reading the modules file (docs/call-sites.md#the-modules-file).
#include "atp/symbols/module_map.h"

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>

#include "atp/format/perfmarker_section.h"

namespace perfmarker::symbols {
namespace {

constexpr std::string_view kEmptyEntity = "&empty;";  // appendEscapedToken's empty string
constexpr size_t kMaxQuoted = 60;

std::string quoted(std::string_view text) {
    std::string out = "'";
    for (size_t i = 0; i < text.size() && i < kMaxQuoted; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        out.push_back(c >= 0x20 && c < 0x7f ? static_cast<char>(c) : '?');
    }
    if (text.size() > kMaxQuoted) out.append("...");
    out.push_back('\'');
    return out;
}

bool isBlank(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// The next blank-separated token of `rest` (empty at the end), consumed.
std::string_view nextToken(std::string_view& rest) {
    size_t begin = 0;
    while (begin < rest.size() && isBlank(rest[begin])) ++begin;
    size_t end = begin;
    while (end < rest.size() && !isBlank(rest[end])) ++end;
    const std::string_view token = rest.substr(begin, end - begin);
    rest.remove_prefix(end);
    return token;
}

// "0x<hex>" (upper or lower case digits).
bool parseAddress(std::string_view token, uint64_t& value) {
    if (token.size() < 3 || token[0] != '0' || (token[1] != 'x' && token[1] != 'X')) return false;
    const char* last = token.data() + token.size();
    const auto result = std::from_chars(token.data() + 2, last, value, 16);
    return result.ec == std::errc() && result.ptr == last;
}

int hexDigit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// "-" or an even number of hex digits.
bool parseBuildId(std::string_view token, std::vector<uint8_t>& bytes) {
    bytes.clear();
    if (token == "-") return true;
    if (token.empty() || token.size() % 2 != 0) return false;
    for (size_t i = 0; i < token.size(); i += 2) {
        const int high = hexDigit(token[i]);
        const int low = hexDigit(token[i + 1]);
        if (high < 0 || low < 0) return false;
        bytes.push_back(static_cast<uint8_t>(high << 4 | low));
    }
    return true;
}

// "0x<begin>-0x<end>" with begin < end.
bool parseRange(std::string_view token, ExecRange& range) {
    const size_t dash = token.find('-');
    if (dash == std::string_view::npos) return false;
    return parseAddress(token.substr(0, dash), range.begin) &&
           parseAddress(token.substr(dash + 1), range.end) && range.begin < range.end;
}

bool fail(std::string& what, std::string_view expected, std::string_view got) {
    what = "expected " + std::string(expected) + ", got " + quoted(got);
    return false;
}

}  // namespace

size_t ModuleMap::add(const Module& module, const std::vector<ExecRange>& ranges) {
    const auto key = std::make_tuple(module.loadBias, module.buildId, module.path);
    auto [it, inserted] = m_byIdentity.emplace(key, m_modules.size());
    if (inserted) m_modules.push_back(module);
    for (const ExecRange& range : ranges) {
        if (range.begin < range.end) map(range.begin, range.end, it->second);
    }
    return it->second;
}

// Cuts [begin, end) out of the segments there, keeping their parts outside it, then maps it.
void ModuleMap::map(uint64_t begin, uint64_t end, size_t module) {
    auto it = m_segments.lower_bound(begin);
    if (it != m_segments.begin()) {
        auto before = std::prev(it);
        if (before->second.end > begin) {
            const Segment old = before->second;
            before->second.end = begin;
            if (old.end > end) m_segments[end] = old;
        }
    }
    it = m_segments.lower_bound(begin);
    while (it != m_segments.end() && it->first < end) {
        const Segment old = it->second;
        it = m_segments.erase(it);
        if (old.end > end) m_segments[end] = old;
    }
    m_segments[begin] = Segment{end, module};
}

size_t ModuleMap::find(uint64_t address) const {
    auto it = m_segments.upper_bound(address);
    if (it == m_segments.begin()) return kNone;
    --it;
    return address < it->second.end ? it->second.module : kNone;
}

bool parseModuleLine(std::string_view line, Module& module, std::vector<ExecRange>& ranges,
                     std::string& what) {
    std::string_view rest = line;
    const std::string_view bias = nextToken(rest);
    if (!parseAddress(bias, module.loadBias)) return fail(what, "a load bias 0x<hex>", bias);
    const std::string_view buildId = nextToken(rest);
    if (!parseBuildId(buildId, module.buildId))
        return fail(what, "a build-id (hex byte pairs, or -)", buildId);
    const std::string_view path = nextToken(rest);
    if (path.empty()) return fail(what, "a module path", path);
    module.path = path == kEmptyEntity ? std::string() : atp::unescapeToken(path);
    ranges.clear();
    for (std::string_view token = nextToken(rest); !token.empty(); token = nextToken(rest)) {
        ExecRange range;
        if (!parseRange(token, range))
            return fail(what, "an address range 0x<begin>-0x<end> (begin < end)", token);
        ranges.push_back(range);
    }
    return true;
}

bool readModules(std::istream& in, std::string_view name, ModuleMap& map,
                 std::vector<std::string>& errors) {
    const std::string prefix = std::string(name) + ":";
    size_t malformed = 0;
    auto report = [&](uint64_t lineNumber, const std::string& what) {
        if (++malformed <= kMaxModuleErrors)
            errors.push_back(prefix + std::to_string(lineNumber) + ": " + what);
    };
    std::string line;
    Module module;
    std::vector<ExecRange> ranges;
    std::string what;
    uint64_t lineNumber = 0;
    while (std::getline(in, line)) {
        ++lineNumber;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (lineNumber == 1 && line != atp::kModulesFileHeader) {
            report(1,
                   "expected '" + std::string(atp::kModulesFileHeader) + "', got " + quoted(line));
        }
        if (line.empty() || line[0] == '#') continue;
        if (parseModuleLine(line, module, ranges, what)) {
            map.add(module, ranges);
        } else {
            report(lineNumber, what);
        }
    }
    if (malformed > kMaxModuleErrors) {
        errors.push_back(prefix + " " + std::to_string(malformed - kMaxModuleErrors) +
                         " more malformed lines");
    }
    if (in.bad()) {
        errors.push_back(prefix + " read error");
        return false;
    }
    return true;
}

bool readModulesFile(const std::string& path, ModuleMap& map, std::vector<std::string>& errors) {
    std::ifstream in(path);
    if (!in) {
        errors.push_back(path + ": cannot open: " + std::strerror(errno));
        return false;
    }
    return readModules(in, path, map, errors);
}

}  // namespace perfmarker::symbols
