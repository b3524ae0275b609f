// A plain, byte-at-a-time reading of one API-trace line "Ret = Name ( p1;p2;... /*comment*/ )"
// (docs/format.md#api-trace-lines): the oracle the reader's fast scanning (atp/read/scan.h) is
// compared with in the unit tests and the fuzz targets. Test code only; the product reads
// these lines with the scanner.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace perfmarker::atp::reference {

struct ApiLine {
    std::string_view returnValue;  // empty when the line has none (HSA void APIs)
    std::string_view name;
    std::vector<std::string_view> params;  // split on ';' outside quotes and brackets
    std::string_view comment;              // text between /* and */, empty when none
};

namespace detail {

inline bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

inline std::string_view trim(std::string_view s) {
    while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
    return s;
}

inline bool hasSpace(std::string_view s) {
    for (const char c : s) {
        if (isSpace(c)) return true;
    }
    return false;
}

inline std::string quoted(std::string_view text) {
    std::string out = "'";
    out.append(text.substr(0, 60));
    if (text.size() > 60) out.append("...");
    out.push_back('\'');
    return out;
}

// Position of the comment " /*" outside double quotes in a parameter list, or npos.
inline size_t commentStart(std::string_view inner) {
    if (inner.substr(0, 2) == "/*") return 0;
    bool inQuotes = false;
    for (size_t i = 0; i < inner.size(); ++i) {
        const char c = inner[i];
        if (inQuotes && c == '\\') {
            ++i;
        } else if (c == '"') {
            inQuotes = !inQuotes;
        } else if (!inQuotes && c == ' ' && inner.substr(i + 1, 2) == "/*") {
            return i;
        }
    }
    return std::string_view::npos;
}

// Splits on ';' outside quotes and brackets ("[{a;b}]" stays whole).
inline void splitParams(std::string_view text, std::vector<std::string_view>& out) {
    out.clear();
    if (text.empty()) return;
    bool inQuotes = false;
    int depth = 0;
    size_t begin = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inQuotes) {
            if (c == '\\') {
                ++i;
            } else if (c == '"') {
                inQuotes = false;
            }
        } else if (c == '"') {
            inQuotes = true;
        } else if (c == '[' || c == '{' || c == '(') {
            ++depth;
        } else if ((c == ']' || c == '}' || c == ')') && depth > 0) {
            --depth;
        } else if (c == ';' && depth == 0) {
            out.push_back(text.substr(begin, i - begin));
            begin = i + 1;
        }
    }
    out.push_back(text.substr(begin));
}

}  // namespace detail

// False with `error` ("expected ..., got ...") when `line` does not have the shape above.
inline bool parseApiLine(std::string_view line, ApiLine& out, std::string& error) {
    using namespace detail;
    const std::string_view text = trim(line);
    const size_t open = text.find(" ( ");
    const bool closed = text.size() >= 2 && text.substr(text.size() - 2) == " )";
    if (open == std::string_view::npos || !closed || open + 3 > text.size()) {
        error = "expected an API line 'Ret = Name ( params )', got " + quoted(text);
        return false;
    }
    const std::string_view head = text.substr(0, open);
    const size_t eq = head.find(" = ");
    out.returnValue = eq == std::string_view::npos ? std::string_view() : head.substr(0, eq);
    out.name = eq == std::string_view::npos ? head : head.substr(eq + 3);
    if (out.name.empty() || hasSpace(out.name) || hasSpace(out.returnValue) ||
        (eq != std::string_view::npos && out.returnValue.empty())) {
        error = "expected 'Ret = Name' before ' ( ', got " + quoted(head);
        return false;
    }
    // "Name (  )" has no parameters; "Name ( )" is accepted as the same.
    std::string_view inner;
    if (open + 3 <= text.size() - 2) inner = text.substr(open + 3, text.size() - 2 - (open + 3));
    out.comment = {};
    const size_t comment = commentStart(inner);
    if (comment != std::string_view::npos) {
        const std::string_view tail = inner.substr(comment == 0 ? 0 : comment + 1);
        if (tail.size() < 4 || tail.substr(tail.size() - 2) != "*/") {
            error = "expected a comment '/*...*/' to end the parameter list, got " + quoted(tail);
            return false;
        }
        out.comment = tail.substr(2, tail.size() - 4);
        inner = inner.substr(0, comment);
    }
    splitParams(inner, out.params);
    return true;
}

}  // namespace perfmarker::atp::reference
