// The byte scanning of the streaming reader's hot path (trace_parser.h): line ends, whitespace
// tokens of timestamp lines, decimal numbers, and the pieces of an API line. Each function gives
// exactly the result of the plain byte-by-byte definition written next to it (the unit tests and
// the fuzz targets compare them); it only gets there with fewer steps: 16 or 64 bytes at a time
// with SSE2 (the x86-64 baseline), 64 bytes in one register with AVX-512BW where the processor
// has it (chosen at run time, once per block of lines: wideBlocks()), eight digits at a time for
// numbers. Other targets use the same code with a portable mask builder. Internal to src/atp/read.
#pragma once

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#if defined(__SSE2__) && !defined(PERFMARKER_SCAN_PORTABLE)
#include <emmintrin.h>
#define PERFMARKER_SCAN_SSE2 1
#else
#define PERFMARKER_SCAN_SSE2 0
#endif

// 64-byte blocks in one register (AVX-512BW), chosen at run time where the processor has it
// (wideBlocks()): the functions that use it carry PERFMARKER_SCAN_WIDE_TARGET and are
// `flatten`, so that the generic code they call is compiled into them for that processor, and
// nothing else is.
#if PERFMARKER_SCAN_SSE2 && defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define PERFMARKER_SCAN_WIDE 1
#define PERFMARKER_SCAN_WIDE_TARGET gnu::target("avx512f,avx512bw"), gnu::flatten
#else
#define PERFMARKER_SCAN_WIDE 0
#endif

namespace perfmarker::atp::detail::scan {

inline unsigned lowestBit(uint64_t mask) { return static_cast<unsigned>(__builtin_ctzll(mask)); }

// The fields of a line: views in an array that only grows (kept between lines), written
// without a capacity check per field.
class Fields {
public:
    size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }
    const std::string_view& operator[](size_t i) const { return m_data[i]; }
    std::string_view& operator[](size_t i) { return m_data[i]; }
    const std::string_view* begin() const { return m_data.data(); }
    const std::string_view* end() const { return m_data.data() + m_size; }
    void clear() { m_size = 0; }
    // Room for `n` fields in all; the pointer to write the next one.
    std::string_view* room(size_t n) {
        if (m_data.size() < n) m_data.resize(std::max(n, 2 * m_data.size()));
        return m_data.data() + m_size;
    }
    void grow(size_t n) { m_size += n; }
    void insert(size_t at, std::string_view field) {
        room(m_size + 1);
        for (size_t i = m_size; i > at; --i) m_data[i] = m_data[i - 1];
        m_data[at] = field;
        ++m_size;
    }

private:
    std::vector<std::string_view> m_data;  // its size is the capacity
    size_t m_size = 0;
};

// ---- masks ---------------------------------------------------------------------------------
//
// A classifier turns 16 bytes into a 16-bit mask: bit i set when byte i is one of its bytes.

#if PERFMARKER_SCAN_SSE2
using Bytes16 = __m128i;
inline Bytes16 load16(const char* p) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
inline uint32_t maskOf(Bytes16 hit) { return static_cast<uint32_t>(_mm_movemask_epi8(hit)); }
inline Bytes16 equal(Bytes16 v, char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); }
inline Bytes16 either(Bytes16 a, Bytes16 b) { return _mm_or_si128(a, b); }
inline Bytes16 withBits(Bytes16 v, char bits) { return _mm_or_si128(v, _mm_set1_epi8(bits)); }
inline Bytes16 withoutBits(Bytes16 v, char bits) {
    return _mm_andnot_si128(_mm_set1_epi8(bits), v);
}
#else
// The portable stand-in: 16 bytes and byte-wise operations.
struct Bytes16 {
    unsigned char b[16];
};
inline Bytes16 load16(const char* p) {
    Bytes16 v;
    std::memcpy(v.b, p, 16);
    return v;
}
inline uint32_t maskOf(Bytes16 hit) {
    uint32_t mask = 0;
    for (int i = 0; i < 16; ++i) mask |= static_cast<uint32_t>(hit.b[i] >> 7) << i;
    return mask;
}
template <typename Op>
inline Bytes16 eachByte(Bytes16 v, Op op) {
    for (auto& byte : v.b) byte = static_cast<unsigned char>(op(byte));
    return v;
}
inline Bytes16 equal(Bytes16 v, char c) {
    return eachByte(v,
                    [c](unsigned char x) { return x == static_cast<unsigned char>(c) ? 0xff : 0; });
}
inline Bytes16 either(Bytes16 a, Bytes16 b) {
    for (int i = 0; i < 16; ++i) a.b[i] = static_cast<unsigned char>(a.b[i] | b.b[i]);
    return a;
}
inline Bytes16 withBits(Bytes16 v, char bits) {
    return eachByte(v, [bits](unsigned char x) { return x | static_cast<unsigned char>(bits); });
}
inline Bytes16 withoutBits(Bytes16 v, char bits) {
    return eachByte(v, [bits](unsigned char x) { return x & ~static_cast<unsigned char>(bits); });
}
#endif

// ' ', '\t', '\r' and '\n': the separators of splitFields().
struct SpaceBytes {
    uint32_t operator()(Bytes16 v) const {
#if PERFMARKER_SCAN_SSE2
        // Timestamp lines hold no bytes below ' ': then the separators are the spaces, and the
        // other three comparisons are left out.
        const uint32_t control = maskOf(equal(_mm_max_epu8(v, _mm_set1_epi8(0x1f)), 0x1f));
        if (control == 0) return maskOf(equal(v, ' '));
#endif
        return maskOf(
            either(either(equal(v, ' '), equal(v, '\t')), either(equal(v, '\r'), equal(v, '\n'))));
    }
};

// The bytes other than ';' that may matter to splitParams(): '"', '\\' and the brackets
// ([{ }]). '|' is reported too, the price of one comparison for both '\\' and '|' (0x5c | 0x20
// == 0x7c, as '[' | 0x20 == '{' and ']' | 0x20 == '}'); the caller looks at the byte itself.
struct ParamBytes {
    uint32_t operator()(Bytes16 v) const {
        const Bytes16 folded = withBits(v, 0x20);
        return maskOf(either(either(either(equal(folded, '{'), equal(folded, '}')),
                                    either(equal(folded, '|'), equal(withoutBits(v, 1), '('))),
                             equal(v, '"')));
    }
};

// One byte.
struct OneByte {
    char c;
    uint32_t operator()(Bytes16 v) const { return maskOf(equal(v, c)); }
};

// The readable bytes around a block: [first, last). A block's last partial 16 bytes are read as
// 16 bytes inside them (ending at the block's end, or starting at its start), so that nothing
// outside them is read; a text shorter than 16 bytes is copied.
struct Bounds {
    const char* first;
    const char* last;
};

// Reads the `n` bytes (1 to 64) at p, 16 at a time, as `add(v, at, drop, keep)`: the bits
// `drop` and up of a mask of `v` are those of the bytes from offset `at` on, of which the
// `keep` bits are the block's (all of them where no byte after the block was read). The last
// partial 16 bytes are read as Bounds says.
template <typename Add>
inline void forEachLoad16(Bounds bounds, const char* p, size_t n, Add add) {
    size_t at = 0;
    for (; at + 16 <= n; at += 16) add(load16(p + at), at, 0u, ~0u);
    if (at == n) return;
    const size_t rest = n - at;
    const uint32_t keep = (1u << rest) - 1;
    if (static_cast<size_t>(p - bounds.first) + n >= 16) {
        add(load16(p + n - 16), at, static_cast<unsigned>(16 - rest), ~0u);  // (none after)
    } else if (static_cast<size_t>(bounds.last - p) >= at + 16) {
        add(load16(p + at), at, 0u, keep);
    } else {
        char copy[16] = {};
        for (size_t i = 0; i < rest; ++i) copy[i] = p[at + i];
        add(load16(copy), at, 0u, keep);
    }
}

// The mask of the `n` bytes (1 to 64) at p.
template <typename Classify>
inline uint64_t maskOfBlock(Classify classify, Bounds bounds, const char* p, size_t n) {
    uint64_t mask = 0;
    forEachLoad16(bounds, p, n, [&](Bytes16 v, size_t at, unsigned drop, uint32_t keep) {
        mask |= static_cast<uint64_t>((classify(v) >> drop) & keep) << at;
    });
    return mask;
}

#if PERFMARKER_SCAN_SSE2
// The 64 bytes at p, as four 16-byte loads.
struct Load64 {
    explicit Load64(const char* p)
        : a(load16(p)), b(load16(p + 16)), c(load16(p + 32)), d(load16(p + 48)) {}
    // Whether one of them is below ' ' (a control byte, '\t', '\r' and '\n' among them).
    bool anyControl() const {
        const __m128i least = _mm_min_epu8(_mm_min_epu8(a, b), _mm_min_epu8(c, d));
        return maskOf(_mm_cmpeq_epi8(_mm_max_epu8(least, _mm_set1_epi8(0x1f)),
                                     _mm_set1_epi8(0x1f))) != 0;
    }
    // Those below ' '.
    uint64_t controlMask() const {
        const __m128i top = _mm_set1_epi8(0x1f);
        const auto below = [&top](__m128i v) {
            return uint64_t{maskOf(_mm_cmpeq_epi8(_mm_max_epu8(v, top), top))};
        };
        return below(a) | (below(b) << 16) | (below(c) << 32) | (below(d) << 48);
    }
    // Those equal to `x`.
    uint64_t equalMask(char x) const {
        return maskOf(equal(a, x)) | (uint64_t{maskOf(equal(b, x))} << 16) |
               (uint64_t{maskOf(equal(c, x))} << 32) | (uint64_t{maskOf(equal(d, x))} << 48);
    }
    // Those that may matter to splitParams() other than ';' (ParamBytes).
    uint64_t paramMask() const {
        const ParamBytes param;
        return param(a) | (uint64_t{param(b)} << 16) | (uint64_t{param(c)} << 32) |
               (uint64_t{param(d)} << 48);
    }
    __m128i a, b, c, d;
};
#else
// The portable stand-in, a byte at a time.
struct Load64 {
    explicit Load64(const char* at) : p(at) {}
    uint64_t controlMask() const {
        uint64_t mask = 0;
        for (int i = 0; i < 64; ++i) {
            mask |= uint64_t{static_cast<unsigned char>(p[i]) < 0x20} << i;
        }
        return mask;
    }
    bool anyControl() const { return controlMask() != 0; }
    uint64_t equalMask(char x) const {
        uint64_t mask = 0;
        for (int i = 0; i < 64; ++i) mask |= uint64_t{p[i] == x} << i;
        return mask;
    }
    uint64_t paramMask() const { return maskOfBlock(ParamBytes{}, Bounds{p, p + 64}, p, 64); }
    const char* p;
};
#endif

#if PERFMARKER_SCAN_WIDE
// Load64's questions of one AVX-512 register (only called from functions with
// PERFMARKER_SCAN_WIDE_TARGET, when wideBlocks()).
struct Wide64 {
    explicit Wide64(const char* at) : p(at) {}
    [[gnu::target("avx512f,avx512bw")]] uint64_t controlMask() const {
        return _mm512_cmplt_epu8_mask(_mm512_loadu_si512(p), _mm512_set1_epi8(0x20));
    }
    [[gnu::target("avx512f,avx512bw")]] bool anyControl() const { return controlMask() != 0; }
    [[gnu::target("avx512f,avx512bw")]] uint64_t equalMask(char x) const {
        return _mm512_cmpeq_epi8_mask(_mm512_loadu_si512(p), _mm512_set1_epi8(x));
    }
    [[gnu::target("avx512f,avx512bw")]] uint64_t paramMask() const {  // as ParamBytes
        const __m512i v = _mm512_loadu_si512(p);
        const __m512i folded = _mm512_or_si512(v, _mm512_set1_epi8(0x20));
        const __m512i even = _mm512_and_si512(v, _mm512_set1_epi8(static_cast<char>(0xfe)));
        return _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8('{')) |
               _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8('}')) |
               _mm512_cmpeq_epi8_mask(folded, _mm512_set1_epi8('|')) |
               _mm512_cmpeq_epi8_mask(even, _mm512_set1_epi8('(')) |
               _mm512_cmpeq_epi8_mask(v, _mm512_set1_epi8('"'));
    }
    const char* p;
};
#endif

// Whether the PERFMARKER_SCAN_WIDE functions are used: the processor (and its operating system)
// has AVX-512BW, and the environment variable PERFMARKER_NO_AVX512 is not set. The tests turn
// it off to compare.
bool cpuHasWideBlocks();
inline bool& wideBlocksFlag() {
    static bool on = cpuHasWideBlocks();
    return on;
}
inline bool wideBlocks() { return wideBlocksFlag(); }
// Turns them on (where the processor has them) or off; not while a parse runs.
inline void setWideBlocks(bool on) { wideBlocksFlag() = on && cpuHasWideBlocks(); }

// ---- line ends -----------------------------------------------------------------------------

// The first `c` in [p, end), or end.
inline const char* findByte(const char* p, const char* end, char c) {
    const OneByte classify{c};
    const char* const start = p;
#if PERFMARKER_SCAN_SSE2
    // 64 bytes a step, one test for all of them (lines are 50 to 400 bytes long).
    const __m128i needle = _mm_set1_epi8(c);
    while (end - p >= 64) {
        const __m128i a = _mm_cmpeq_epi8(load16(p), needle);
        const __m128i b = _mm_cmpeq_epi8(load16(p + 16), needle);
        const __m128i d = _mm_cmpeq_epi8(load16(p + 32), needle);
        const __m128i e = _mm_cmpeq_epi8(load16(p + 48), needle);
        if (maskOf(either(either(a, b), either(d, e))) != 0) {
            const uint64_t mask = maskOf(a) | (uint64_t{maskOf(b)} << 16) |
                                  (uint64_t{maskOf(d)} << 32) | (uint64_t{maskOf(e)} << 48);
            return p + lowestBit(mask);
        }
        p += 64;
    }
#endif
    while (end - p >= 16) {
        const uint32_t mask = classify(load16(p));
        if (mask != 0) return p + __builtin_ctz(mask);
        p += 16;
    }
    if (p == end) return end;
    if (end - start >= 16) {  // the last 16 bytes of the range, those before p masked off
        const uint32_t mask = classify(load16(end - 16)) >> (16 - (end - p));
        return mask != 0 ? p + __builtin_ctz(mask) : end;
    }
    while (p < end && *p != c) ++p;
    return p;
}

// Whether a line starting with `c` is neither blank nor a section line once trimmed (trimText()
// removes ' ', '\t' and '\r').
inline bool plainStart(char c) {
    return c != ' ' && c != '\t' && c != '\r' && c != '\n' && c != '=';
}

// Passes over at most `max` whole lines of [p, end) (each ending in '\n' inside it) that start
// with a plain byte (plainStart()); returns how many, `p` moved to the first line not passed over.
// The plain definition: while max > 0, *p is plain and a '\n' follows, p = that '\n' + 1.
inline uint64_t skipPlainLines(const char*& p, const char* end, uint64_t max) {
    if (max == 0 || p >= end || !plainStart(*p)) return 0;
    uint64_t count = 0;
    const char* line = p;  // the first line not passed over
    // False when the line after the '\n' at `nl` is not to be passed over.
    const auto passed = [&](const char* nl) {
        line = nl + 1;
        ++count;
        return count < max && line < end && plainStart(*line);
    };
    const char* block = p;
#if PERFMARKER_SCAN_SSE2
    // Lines of 50 to 400 bytes: 64 bytes a step, and the line starts visited from the mask.
    for (; end - block >= 64; block += 64) {
        for (uint64_t mask = Load64(block).equalMask('\n'); mask != 0; mask &= mask - 1) {
            if (!passed(block + lowestBit(mask))) {
                p = line;
                return count;
            }
        }
    }
#endif
    for (const char* nl = findByte(block, end, '\n'); nl != end; nl = findByte(nl + 1, end, '\n')) {
        if (!passed(nl)) break;
    }
    p = line;
    return count;
}

// ---- whitespace tokens ---------------------------------------------------------------------

// The separators (SpaceBytes) among the 64 bytes at p.
inline uint64_t spaceMask64(const char* p) {
#if PERFMARKER_SCAN_SSE2
    // Timestamp lines hold no bytes below ' ': one test for all 64 bytes, and then the
    // separators are the spaces.
    const Load64 bytes(p);
    if (!bytes.anyControl()) return bytes.equalMask(' ');
#endif
    return maskOfBlock(SpaceBytes{}, Bounds{p, p + 64}, p, 64);
}

// The fields of a line, from the separators of its 64-byte blocks in turn: the edges of the
// separator runs alternate between the start of a field and its end.
class TokenEdges {
public:
    explicit TokenEdges(std::string_view* out) : m_out(out) {}

    // The block at `block`; `space`: its separators (1 bits).
    [[gnu::always_inline]] void visit(const char* block, uint64_t space) {
        uint64_t edges = space ^ ((space << 1) | m_before);
        m_before = space >> 63;
        if (m_start != nullptr && edges != 0) {  // the end of a field begun in an earlier block
            m_out[m_count++] =
                std::string_view(m_start, static_cast<size_t>(block + lowestBit(edges) - m_start));
            m_start = nullptr;
            edges &= edges - 1;
        }
        while (edges != 0) {  // a start, then its end (or none in this block)
            const unsigned first = lowestBit(edges);
            edges &= edges - 1;
            if (edges == 0) {
                m_start = block + first;
                break;
            }
            m_out[m_count++] = std::string_view(block + first, lowestBit(edges) - first);
            edges &= edges - 1;
        }
    }
    // The line ends at `end`, a block boundary, maybe in a field.
    void finish(const char* end) {
        if (m_start != nullptr) {
            m_out[m_count++] = std::string_view(m_start, static_cast<size_t>(end - m_start));
        }
    }
    size_t count() const { return m_count; }

private:
    std::string_view* m_out;
    size_t m_count = 0;
    const char* m_start = nullptr;  // of the field whose end comes next (null: none)
    uint64_t m_before = 1;          // whether the byte before the block is a separator
};

// splitFields() of ocl_timestamp.h: the runs of bytes other than ' ', '\t', '\r', '\n'.
inline void splitTokens(std::string_view line, Fields& fields) {
    fields.clear();
    const char* p = line.data();
    const size_t n = line.size();
    // At most one field in two bytes.
    TokenEdges tokens(fields.room(n / 2 + 1));
    size_t base = 0;
    for (; base + 64 <= n; base += 64) tokens.visit(p + base, spaceMask64(p + base));
    if (base < n) {
        const size_t rest = n - base;
        // The last 64 bytes of a longer line, or the rest alone; a separator after the end
        // closes the last field.
        const uint64_t space = n >= 64
                                   ? spaceMask64(p + n - 64) >> (64 - rest)
                                   : maskOfBlock(SpaceBytes{}, Bounds{p, p + n}, p + base, rest);
        tokens.visit(p + base, space | (~uint64_t{0} << rest));
    } else {
        tokens.finish(p + n);
    }
    fields.grow(tokens.count());
}

// The longest line splitLineTokens() splits.
inline constexpr size_t kLineTokensBytes = 1024;

// splitTokens() of the line that starts at p and ends at the first '\n' of [p, end), found in
// the same pass as its tokens: returns that '\n', with the tokens of the line in `fields` (the
// bytes after the '\n' are read, not used). Null, with `fields` unspecified, when the line is
// longer than kLineTokensBytes or its '\n' is not in whole 64-byte blocks inside [p, end): the
// caller then reads it the usual way. With *p a plainStart() byte, the line as trimText() trims
// it ends where its last field ends.
// (`Block`: Load64, or Wide64 from a PERFMARKER_SCAN_WIDE_TARGET function.)
template <typename Block>
inline const char* splitLineTokensIn(const char* p, const char* end, Fields& fields) {
    const char* limit = end - p > static_cast<ptrdiff_t>(kLineTokensBytes)
                            ? p + kLineTokensBytes
                            : end;
    fields.clear();
    TokenEdges tokens(fields.room(kLineTokensBytes / 2 + 1));
    for (const char* block = p; limit - block >= 64; block += 64) {
        const Block bytes(block);
        if (!bytes.anyControl()) {  // no '\n', and the separators are the spaces
            tokens.visit(block, bytes.equalMask(' '));
            continue;
        }
        // Every byte from the '\n' on counts as a separator: the last field ends there. Most
        // often the '\n' is the first control byte, and the separators before it are spaces.
        const unsigned first = lowestBit(bytes.controlMask());
        if (block[first] == '\n') {
            tokens.visit(block, bytes.equalMask(' ') | (~uint64_t{0} << first));
            fields.grow(tokens.count());
            return block + first;
        }
        const uint64_t ends = bytes.equalMask('\n');
        const uint64_t space = maskOfBlock(SpaceBytes{}, Bounds{block, block + 64}, block, 64);
        if (ends == 0) {
            tokens.visit(block, space);
            continue;
        }
        const unsigned at = lowestBit(ends);
        tokens.visit(block, space | (~uint64_t{0} << at));
        fields.grow(tokens.count());
        return block + at;
    }
    return nullptr;
}

#if PERFMARKER_SCAN_WIDE
// splitLineTokensIn<Wide64>() (tests: only where wideBlocks()).
const char* splitLineTokensWide(const char* p, const char* end, Fields& fields);
#endif

inline const char* splitLineTokens(const char* p, const char* end, Fields& fields) {
    return splitLineTokensIn<Load64>(p, end, fields);
}

// The same into a vector (tests).
inline void splitTokens(std::string_view line, std::vector<std::string_view>& fields) {
    Fields found;
    splitTokens(line, found);
    fields.assign(found.begin(), found.end());
}

// ---- decimal numbers -----------------------------------------------------------------------

// Eight ASCII bytes (the first in the lowest byte) as a number, or false when one of them is
// not a digit.
inline bool eightDigits(uint64_t bytes, uint64_t& value) {
    constexpr uint64_t kHighNibbles = 0xf0f0f0f0f0f0f0f0ull;
    constexpr uint64_t kZeros = 0x3030303030303030ull;
    constexpr uint64_t kSixes = 0x0606060606060606ull;
    // '0'..'9' are the bytes 0x30..0x39: high nibble 3, and still 3 after adding 6.
    if ((bytes & kHighNibbles) != kZeros || ((bytes + kSixes) & kHighNibbles) != kZeros) {
        return false;
    }
    uint64_t d = bytes - kZeros;                          // eight digits 0..9
    d = ((d * 10) + (d >> 8)) & 0x00ff00ff00ff00ffull;    // four pairs 0..99
    d = ((d * 100) + (d >> 16)) & 0x0000ffff0000ffffull;  // two quads 0..9999
    value = (d & 0xffffffffull) * 10000 + (d >> 32);
    return true;
}

inline uint64_t load8(const char* p) {
    uint64_t bytes;
    std::memcpy(&bytes, p, sizeof bytes);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    bytes = __builtin_bswap64(bytes);
#endif
    return bytes;
}

inline uint32_t load4(const char* p) {
    uint32_t bytes;
    std::memcpy(&bytes, p, sizeof bytes);
    return bytes;
}

// a == b without a call to memcmp (whose branches on the size cost more than the compare on
// lines whose names change from one to the next): words that overlap where the size is not a
// multiple of theirs, and only inside the two texts. One pass without a branch for 8 to 32
// bytes (the API names).
inline bool sameText(std::string_view a, std::string_view b) {
    const size_t n = a.size();
    if (n != b.size()) return false;
    const char* p = a.data();
    const char* q = b.data();
    if (n >= 8 && n <= 32) {
        // [0, 16) and [n - 16, n), or [0, 8) and [n - 8, n) under 16 bytes.
        const size_t second = n >= 16 ? 8 : n - 8;
        const size_t third = n >= 16 ? n - 16 : 0;
        const uint64_t diff = (load8(p) ^ load8(q)) | (load8(p + second) ^ load8(q + second)) |
                              (load8(p + third) ^ load8(q + third)) |
                              (load8(p + n - 8) ^ load8(q + n - 8));
        return diff == 0;
    }
    if (n > 32) {
        uint64_t diff = load8(p + n - 8) ^ load8(q + n - 8);
        for (size_t i = 0; i + 8 < n; i += 8) diff |= load8(p + i) ^ load8(q + i);
        return diff == 0;
    }
    if (n >= 4) {
        return ((load4(p) ^ load4(q)) | (load4(p + n - 4) ^ load4(q + n - 4))) == 0;
    }
    for (size_t i = 0; i < n; ++i) {
        if (p[i] != q[i]) return false;
    }
    return true;
}

// Plain digits one at a time (at most 19 of them: no overflow).
inline bool fewDigits(const char* p, size_t n, uint64_t& value) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) {
        const auto d = static_cast<unsigned>(static_cast<unsigned char>(p[i]) - '0');
        if (d > 9) return false;
        v = v * 10 + d;
    }
    value = v;
    return true;
}

// std::from_chars over the whole of `text` into an unsigned 64-bit value: decimal digits only,
// at least one, no overflow.
inline bool parseU64(std::string_view text, uint64_t& value) {
    const char* p = text.data();
    const size_t n = text.size();
    if (n == 0) return false;
    if (n < 8) return fewDigits(p, n, value);
    if (n <= 16) {
        // The last eight digits, and the ones before them moved to the top of a word whose low
        // bytes are '0' (leading zeros).
        uint64_t low = 0, high = 0;
        const size_t k = n - 8;
        uint64_t first = k == 0 ? 0x3030303030303030ull : load8(p);
        if (k > 0 && k < 8) first = (first << (8 * (8 - k))) | (0x3030303030303030ull >> (8 * k));
        if (!eightDigits(load8(p + k), low) || !eightDigits(first, high)) return false;
        value = high * 100000000ull + low;
        return true;
    }
    if (n <= 19) {
        uint64_t top = 0, middle = 0, low = 0;
        if (!fewDigits(p, n - 16, top) || !eightDigits(load8(p + n - 16), middle) ||
            !eightDigits(load8(p + n - 8), low)) {
            return false;
        }
        value = (top * 100000000ull + middle) * 100000000ull + low;
        return true;
    }
    const auto r = std::from_chars(p, p + n, value);
    return r.ec == std::errc() && r.ptr == p + n;
}

// parseU64() of a number inside a text that starts at `from` (a field of a line): a number of
// 8 to 16 digits is checked and converted 16 bytes at a time, from the 16 bytes that end with
// it when they lie in the text (the bytes before the number are masked out).
[[gnu::always_inline]] inline bool parseU64In(std::string_view text, const char* from,
                                              uint64_t& value) {
#if PERFMARKER_SCAN_SSE2 && defined(__x86_64__)
    const size_t n = text.size();
    if (n >= 8 && n <= 16 && static_cast<size_t>(text.data() - from) + n >= 16) {
        const __m128i digits = _mm_sub_epi8(load16(text.data() + n - 16), _mm_set1_epi8('0'));
        // Bytes 16 - n .. 15 must be digits: 0..9 once '0' is taken away (unsigned).
        const uint32_t isDigit =
            maskOf(_mm_cmpeq_epi8(_mm_min_epu8(digits, _mm_set1_epi8(9)), digits));
        const uint32_t wanted = (0xffffu << (16 - n)) & 0xffffu;
        if ((isDigit & wanted) != wanted) return false;
        // 16 zero bytes then 16 bytes of ones: from byte n, the mask that keeps the number's.
        alignas(16) static constexpr unsigned char kKeep[32] = {
            0,    0,    0,    0,    0,    0,    0,    0,    0,    0,    0,
            0,    0,    0,    0,    0,    0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
            0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
        const __m128i d = _mm_and_si128(digits, load16(reinterpret_cast<const char*>(kKeep) + n));
        // Eight pairs (the first digit of each in its low byte) 0..99, four quads 0..9999,
        // two groups of eight digits.
        const __m128i pairs = _mm_add_epi16(
            _mm_mullo_epi16(_mm_and_si128(d, _mm_set1_epi16(0xff)), _mm_set1_epi16(10)),
            _mm_srli_epi16(d, 8));
        const __m128i quads = _mm_madd_epi16(pairs, _mm_set1_epi32(0x00010064));  // a * 100 + b
        const __m128i eights =
            _mm_add_epi64(_mm_mul_epu32(quads, _mm_set1_epi32(10000)), _mm_srli_epi64(quads, 32));
        const auto high = static_cast<uint64_t>(_mm_cvtsi128_si64(eights));
        const auto low =
            static_cast<uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(eights, eights)));
        value = high * 100000000ull + low;
        return true;
    }
#else
    (void)from;
#endif
    return parseU64(text, value);
}

// std::from_chars over the whole of `text` into an int (a sign allowed, as from_chars does).
inline bool parseInt(std::string_view text, int& value) {
    if (!text.empty() && text.size() <= 9) {
        uint64_t v = 0;
        if (fewDigits(text.data(), text.size(), v)) {
            value = static_cast<int>(v);
            return true;
        }
    }
    const auto r = std::from_chars(text.data(), text.data() + text.size(), value);
    return r.ec == std::errc() && r.ptr == text.data() + text.size();
}

}  // namespace perfmarker::atp::detail::scan
