// The byte scanning of API-trace lines "Ret = Name ( p1;p2;... /*comment*/ )"
// (docs/format.md#api-trace-lines): the parameter split, the comment, and a whole line found and
// split in one pass for the reading thread (read_ahead.h). As in scan.h, each function gives
// exactly the result of the plain definition next to it (tests/support/api_line_reference.h is
// the byte-at-a-time oracle the tests compare them with). Internal to src/atp/read.
#pragma once

#include "atp/read/scan.h"

namespace perfmarker::atp::detail::scan {

// ---- API lines -----------------------------------------------------------------------------

// The ';' (`semi`) and the other bytes that may matter to a split of parameters (ParamBytes,
// `special`) among the `n` (1 to 64) bytes at p, read as forEachLoad16() reads them.
inline void paramMasks(Bounds bounds, const char* p, size_t n, uint64_t& semi, uint64_t& special) {
    semi = 0;
    special = 0;
    forEachLoad16(bounds, p, n, [&](Bytes16 v, size_t at, unsigned drop, uint32_t keep) {
        semi |= static_cast<uint64_t>((maskOf(equal(v, ';')) >> drop) & keep) << at;
        special |= static_cast<uint64_t>((ParamBytes{}(v) >> drop) & keep) << at;
    });
}

// Splits [origin + from, origin + to) on ';' outside double quotes and brackets (as splitParams()
// of the tests' reference, tests/support/api_line_reference.h: inside quotes a backslash hides
// the next byte; an unmatched closing bracket is ignored), calling `emit` with each parameter in
// turn. `masks(base, semi, special)` gives the ';' and the other bytes that may matter
// (ParamBytes) among those of [origin + from, origin + to) in the 64 bytes at origin + base, for
// each multiple of 64 that `base` takes from the one at or before `from`.
template <typename Masks, typename Emit>
inline void forEachParamIn(const char* origin, size_t from, size_t to, Masks&& masks,
                           Emit&& emit) {
    if (from >= to) return;
    const char* p = origin;
    bool inQuotes = false;
    int depth = 0;
    size_t begin = from;
    size_t hidden = SIZE_MAX;  // the byte after a backslash inside quotes
    for (size_t base = from - from % 64; base < to; base += 64) {
        uint64_t semi = 0;
        uint64_t special = 0;
        masks(base, semi, special);
        uint64_t events = semi | special;
        while (events != 0) {
            const unsigned bit = lowestBit(events);
            if (!inQuotes && depth == 0 && ((semi >> bit) & 1) != 0) {
                // A split, and so is every ';' before the next byte of `special`.
                const uint64_t before = special != 0 ? (special & (0 - special)) - 1 : ~uint64_t{0};
                uint64_t splits = semi & before & events;
                events &= ~splits;
                for (; splits != 0; splits &= splits - 1) {
                    const size_t at = base + lowestBit(splits);
                    emit(std::string_view(p + begin, at - begin));
                    begin = at + 1;
                }
                continue;
            }
            events &= events - 1;
            special &= ~(uint64_t{1} << bit);
            const size_t i = base + bit;
            if (i == hidden) continue;
            const char c = p[i];
            if (inQuotes) {
                if (c == '\\') {
                    hidden = i + 1;
                } else if (c == '"') {
                    inQuotes = false;
                }
            } else if (c == '"') {
                inQuotes = true;
            } else if (c == '[' || c == '{' || c == '(') {
                // Closed by the next special byte of this block ("[0x2233a10]"): the pair and
                // every ';' inside it are taken at once, the depth as it was.
                const uint64_t next = special & (0 - special);
                const char close = next != 0 ? p[base + lowestBit(next)] : '\0';
                if (close == ']' || close == '}' || close == ')') {
                    const uint64_t through = next | (next - 1);
                    events &= ~through;
                    special &= ~through;
                } else {
                    ++depth;
                }
            } else if ((c == ']' || c == '}' || c == ')') && depth > 0) {
                --depth;
            }  // (a ';' inside quotes or brackets, or a '|': nothing)
        }
    }
    emit(std::string_view(p + begin, to - begin));
}

// forEachParamIn() of `text`. `around`: the readable bytes around it (the API line it is part
// of).
template <typename Emit>
inline void forEachParam(std::string_view text, std::string_view around, Emit&& emit) {
    const char* p = text.data();
    const size_t n = text.size();
    const Bounds bounds{around.data(), around.data() + around.size()};
    forEachParamIn(
        p, 0, n,
        [&](size_t base, uint64_t& semi, uint64_t& special) {
            paramMasks(bounds, p + base, std::min<size_t>(64, n - base), semi, special);
        },
        emit);
}

// forEachParam() appended to what `out` holds.
inline void appendParams(std::string_view text, std::vector<std::string_view>& out,
                         std::string_view around) {
    forEachParam(text, around, [&out](std::string_view param) { out.push_back(param); });
}

inline void splitParams(std::string_view text, std::vector<std::string_view>& out,
                        std::string_view around) {
    out.clear();
    appendParams(text, out, around);
}

inline bool isSpaceByte(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

// Position of the comment " /*" outside double quotes in a parameter list, or npos (as
// commentStart() of the tests' reference). Most lists have no "/*" at all: that is checked
// first.
inline size_t commentStart(std::string_view inner) {
    if (inner.size() < 2) return std::string_view::npos;
    if (inner.substr(0, 2) == "/*") return 0;
    const char* p = inner.data();
    const char* end = p + inner.size();
    const char* first = end;  // the first "/*"
    for (const char* s = findByte(p, end, '/'); end - s > 1; s = findByte(s + 1, end, '/')) {
        if (s[1] == '*') {
            first = s;
            break;
        }
    }
    if (first == end) return std::string_view::npos;
    // The usual comment (" /*37 consecutive calls*/" after the parameters): the first "/*",
    // after a space, with no quote before it. Nothing before it is quoted then, and an
    // earlier " /*" would hold an earlier "/*".
    if (first[-1] == ' ' && findByte(p, first - 1, '"') == first - 1) {
        return static_cast<size_t>(first - 1 - p);
    }
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

// The pieces of "Ret = Name ( p1;p2;... /*comment*/ )" (as parseApiLine() of the tests'
// reference gives them, the parameters left unsplit).
struct ApiText {
    std::string_view returnValue;
    std::string_view name;
    std::string_view params;  // the list without the comment, for splitParams()
    std::string_view comment;
    std::string_view line;  // the whole line (trimmed)
};

// The first " <c> " in [0, n) of p, or npos.
inline size_t findSpaced(const char* p, size_t n, char c) {
    const char* end = p + n;
    for (const char* s = findByte(p, end, c); s < end; s = findByte(s + 1, end, c)) {
        if (s > p && s + 1 < end && s[-1] == ' ' && s[1] == ' ') {
            return static_cast<size_t>(s - 1 - p);
        }
    }
    return std::string_view::npos;
}

inline bool hasSpace(std::string_view s) {
    for (const char c : s) {
        if (isSpaceByte(c)) return true;
    }
    return false;
}

// "Ret = Name" or "Name" (the part before " ( "), as parseApiLine() checks it: the first " = "
// splits it, and neither side may hold a separator byte or be empty.
inline bool splitHead(std::string_view head, Bounds bounds, ApiText& out) {
    if (head.size() <= 64) {
        // Valid exactly when its separators are none (a void API), or the two spaces of one
        // " = " with something on both sides.
        const uint64_t space = maskOfBlock(SpaceBytes{}, bounds, head.data(), head.size());
        if (space == 0) {
            out.returnValue = {};
            out.name = head;
            return !head.empty();
        }
        const unsigned eq = lowestBit(space);
        if (space != ((uint64_t{5}) << eq) || eq == 0 || eq + 3 >= head.size() || head[eq] != ' ' ||
            head[eq + 1] != '=' || head[eq + 2] != ' ') {
            return false;
        }
        out.returnValue = head.substr(0, eq);
        out.name = head.substr(eq + 3);
        return true;
    }
    const size_t eq = findSpaced(head.data(), head.size(), '=');
    out.returnValue = eq == std::string_view::npos ? std::string_view() : head.substr(0, eq);
    out.name = eq == std::string_view::npos ? head : head.substr(eq + 3);
    return !out.name.empty() && (eq == std::string_view::npos || !out.returnValue.empty()) &&
           !hasSpace(out.name) && !hasSpace(out.returnValue);
}

// The comment of a parameter list (commentStart()) moved from `inner` to out.comment; false
// when it is not closed by "*/" at the end.
inline bool takeComment(std::string_view& inner, ApiText& out) {
    const size_t comment = commentStart(inner);
    if (comment == std::string_view::npos) return true;
    const std::string_view tail = inner.substr(comment == 0 ? 0 : comment + 1);
    if (tail.size() < 4 || tail.substr(tail.size() - 2) != "*/") return false;
    out.comment = tail.substr(2, tail.size() - 4);
    inner = inner.substr(0, comment);
    return true;
}

// False exactly when parseApiLine() returns false.
inline bool parseApiText(std::string_view line, ApiText& out) {
    std::string_view text = line;
    while (!text.empty() && isSpaceByte(text.front())) text.remove_prefix(1);
    while (!text.empty() && isSpaceByte(text.back())) text.remove_suffix(1);
    const size_t size = text.size();
    if (size < 4 || text[size - 1] != ')' || text[size - 2] != ' ') return false;
    const size_t open = findSpaced(text.data(), size, '(');
    if (open == std::string_view::npos || open + 3 > size) return false;
    const Bounds bounds{text.data(), text.data() + size};
    if (!splitHead(text.substr(0, open), bounds, out)) return false;
    out.line = text;
    std::string_view inner;
    if (open + 3 <= size - 2) inner = text.substr(open + 3, size - 2 - (open + 3));
    out.comment = {};
    if (!takeComment(inner, out)) return false;
    out.params = inner;
    return true;
}

// The longest line splitApiLineIn() splits.
inline constexpr size_t kApiLineBytes = 1024;

// parseApiText() and appendParams() of the line that starts at p and ends at the first '\n' of
// [p, end), found in the same pass as the masks of its pieces: returns that '\n', with the pieces
// in `out` and the parameters appended to `params`. Null, with `out` and `params` unspecified,
// when the line is left to the caller (who reads it the usual way, with the same result): it is
// longer than kApiLineBytes or its '\n' is not in whole 64-byte blocks inside [p, end); it does
// not start with a plainStart() byte or end with " )"; it holds another byte below ' '; its
// " ( " is not in its first 64 bytes; or it is not an API line. (`Block`: Load64, or Wide64 from
// a PERFMARKER_SCAN_WIDE_TARGET function.)
template <typename Block>
inline const char* splitApiLineIn(const char* p, const char* end, ApiText& out,
                                  std::vector<std::string_view>& params) {
    const char* limit = end - p > static_cast<ptrdiff_t>(kApiLineBytes) ? p + kApiLineBytes : end;
    if (limit - p < 64 || !plainStart(*p)) return nullptr;
    uint64_t semis[kApiLineBytes / 64];
    uint64_t specials[kApiLineBytes / 64];
    uint64_t slashes = 0;  // of every block (only whether there is one)
    const Block first(p);
    const uint64_t space = first.equalMask(' ');
    const uint64_t open = first.equalMask('(');
    size_t size = 0;
    for (size_t base = 0;; base += 64) {
        if (limit - p - static_cast<ptrdiff_t>(base) < 64) return nullptr;
        const Block bytes(p + base);
        semis[base / 64] = bytes.equalMask(';');
        specials[base / 64] = bytes.paramMask();
        slashes |= bytes.equalMask('/');
        if (bytes.anyControl()) {
            const unsigned at = lowestBit(bytes.controlMask());
            if (p[base + at] != '\n') return nullptr;
            size = base + at;
            break;
        }
    }
    if (size < 4 || p[size - 1] != ')' || p[size - 2] != ' ') return nullptr;
    // " ( ": the first '(' between two spaces, in the first block (a '(' in its last byte is
    // never the first one).
    const uint64_t inLine = size < 64 ? (uint64_t{1} << size) - 1 : ~uint64_t{0};
    const uint64_t spaced = open & (space << 1) & (space >> 1) & inLine & ~(uint64_t{1} << 63);
    if (spaced == 0) return nullptr;
    const size_t paren = lowestBit(spaced);  // (at least 1)
    const size_t head = paren - 1;           // the head's size
    if (head + 3 > size) return nullptr;
    // The head: no separator (the bytes before the '\n' are not control bytes: spaces only), or
    // one " = " with something on both sides.
    const uint64_t headSpace = space & ((uint64_t{1} << head) - 1);
    if (headSpace == 0) {
        if (head == 0) return nullptr;
        out.returnValue = {};
        out.name = std::string_view(p, head);
    } else {
        const unsigned eq = lowestBit(headSpace);
        if (headSpace != (uint64_t{5} << eq) || eq == 0 || eq + 3 >= head || p[eq + 1] != '=') {
            return nullptr;
        }
        out.returnValue = std::string_view(p, eq);
        out.name = std::string_view(p + eq + 3, head - eq - 3);
    }
    out.line = std::string_view(p, size);
    const size_t innerFrom = paren + 2;
    std::string_view inner;
    if (innerFrom <= size - 2) inner = std::string_view(p + innerFrom, size - 2 - innerFrom);
    out.comment = {};
    // (No '/' in the line: no comment.)
    if (slashes != 0 && !takeComment(inner, out)) return nullptr;
    out.params = inner;
    const size_t innerTo = innerFrom + inner.size();
    forEachParamIn(
        p, innerFrom, innerTo,
        [&](size_t base, uint64_t& semi, uint64_t& special) {
            uint64_t keep = ~uint64_t{0};  // the bytes of the list
            if (base < innerFrom) keep <<= innerFrom - base;
            if (innerTo - base < 64) keep &= (uint64_t{1} << (innerTo - base)) - 1;
            semi = semis[base / 64] & keep;
            special = specials[base / 64] & keep;
        },
        [&params](std::string_view param) { params.push_back(param); });
    return p + size;
}

#if PERFMARKER_SCAN_WIDE
// splitApiLineIn<Wide64>() (tests: only where wideBlocks()).
const char* splitApiLineWide(const char* p, const char* end, ApiText& out,
                             std::vector<std::string_view>& params);
#endif

}  // namespace perfmarker::atp::detail::scan
