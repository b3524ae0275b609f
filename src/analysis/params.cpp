#include "analysis/params.h"

#include <cctype>
#include <limits>

#include "atp/format/perfmarker_section.h"

namespace perfmarker::analysis {

std::string_view paramAt(const std::vector<std::string_view>& params, size_t index) {
    return index < params.size() ? params[index] : std::string_view{};
}

std::string_view stripBrackets(std::string_view text) {
    if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
        return text.substr(1, text.size() - 2);
    }
    return text;
}

std::vector<std::string_view> splitList(std::string_view text) {
    std::vector<std::string_view> items;
    int depth = 0;
    size_t begin = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '[' || c == '{') ++depth;
        if ((c == ']' || c == '}') && depth > 0) --depth;
        if (c == ',' && depth == 0) {
            items.push_back(text.substr(begin, i - begin));
            begin = i + 1;
        }
    }
    if (!text.empty()) items.push_back(text.substr(begin));
    return items;
}

std::optional<uint64_t> parseUnsigned(std::string_view text) {
    if (text.empty()) return std::nullopt;
    uint64_t value = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
        const uint64_t digit = static_cast<uint64_t>(c - '0');
        if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) return std::nullopt;
        value = value * 10 + digit;
    }
    return value;
}

std::optional<uint64_t> sizeProduct(std::string_view text) {
    if (text.size() >= 2 && (text.front() == '[' || text.front() == '{')) {
        text = text.substr(1, text.size() - 2);
    }
    const std::vector<std::string_view> items = splitList(text);
    if (items.empty()) return std::nullopt;
    uint64_t product = 1;
    for (std::string_view item : items) {
        const std::optional<uint64_t> value = parseUnsigned(item);
        if (!value) return std::nullopt;
        product *= *value;
    }
    return product;
}

std::string normalizeHandle(std::string_view text) {
    if (text == "NULL" || text == "0" || text.empty()) return {};
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool hasFlag(std::string_view flags, std::string_view flag) {
    size_t begin = 0;
    while (begin <= flags.size()) {
        size_t end = flags.find('|', begin);
        if (end == std::string_view::npos) end = flags.size();
        if (flags.substr(begin, end - begin) == flag) return true;
        begin = end + 1;
    }
    return false;
}

std::optional<std::string_view> hsaParam(const std::vector<std::string_view>& params,
                                         std::string_view name) {
    for (std::string_view param : params) {
        if (param.size() > name.size() && param.compare(0, name.size(), name) == 0 &&
            param[name.size()] == '=') {
            return param.substr(name.size() + 1);
        }
    }
    return std::nullopt;
}

std::optional<HsaAgent> parseHsaAgent(std::string_view text) {
    if (text.size() < 2 || text.front() != '{' || text.back() != '}') return std::nullopt;
    HsaAgent agent;
    bool any = false;
    for (std::string_view item : splitList(text.substr(1, text.size() - 2))) {
        if (item.rfind("handle=", 0) == 0) {
            agent.handle = std::string(item.substr(7));
            any = true;
        } else if (item.rfind("name=", 0) == 0) {
            agent.name = atp::unescapeToken(item.substr(5));
            any = true;
        }
    }
    if (!any) return std::nullopt;
    return agent;
}

}  // namespace perfmarker::analysis
