// Decimal digits for the writers of the trace's text (finalize writes 10^7 numbers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

namespace perfmarker::atp {

inline constexpr size_t kMaxDecimalDigits = 20;  // UINT64_MAX

// "00" to "99", two bytes each.
inline constexpr char kDigitPairs[] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

// Writes `value` in decimal so that it ends just before `end` (at least kMaxDecimalDigits bytes
// after the buffer's start); returns its first digit.
char* formatDecimalBackward(char* end, uint64_t value);

// The number of decimal digits of `value` (1 for 0).
size_t decimalLength(uint64_t value);

// "0000" to "9999", four bytes each (40 KB): put8Digits() takes two of them. Computed once, at
// compile time, in decimal.cpp (not in every file that includes this one); hidden, so that a
// shared library reaches its own copy without a lookup.
struct DigitQuads {
    char digits[10000][4];
};
extern const DigitQuads kDigitQuads __attribute__((visibility("hidden")));

// Writes the 8 decimal digits of `v` (< 10^8, zero-padded) at `p`: two quads of the table, 1.5x
// the rate of four pairs in a loop of timestamps (docs/performance.md). The division by 10^4 is
// written as the multiplication the compiler makes of it (exact below 10^8): where the compiler
// takes a block for cold (finalize's copied Begin line was one), it compiles it for size, with a
// `div` instruction of 20-40 cycles.
inline __attribute__((always_inline)) void put8Digits(char* p, uint32_t v) {
    const auto high = static_cast<uint32_t>((uint64_t{v} * 3518437209u) >> 45);  // v / 10^4
    std::memcpy(p, kDigitQuads.digits[high], 4);
    std::memcpy(p + 4, kDigitQuads.digits[v - high * 10000], 4);
}

// Appends `value` in decimal.
inline void appendDecimal(std::string& out, uint64_t value) {
    char buffer[kMaxDecimalDigits];
    char* const end = buffer + sizeof buffer;
    const char* const first = formatDecimalBackward(end, value);
    out.append(first, static_cast<size_t>(end - first));
}

// `value` in decimal, with a '-' when negative (INT64_MIN included).
inline void appendSignedDecimal(std::string& out, int64_t value) {
    if (value < 0) out.push_back('-');
    appendDecimal(out,
                  value < 0 ? ~static_cast<uint64_t>(value) + 1 : static_cast<uint64_t>(value));
}

// Writes numbers left-aligned into space-padded fields, keeping the digits above the last eight
// of the number before: a thread's timestamps in ns share them for 0.1 s, and then only the
// last eight are formatted (no division loop, no digit count).
class DecimalFieldWriter {
public:
    // Writes `value` at `field`, a field of at least kMaxDecimalDigits bytes that holds spaces,
    // and returns the end of its digits. The bytes up to kRoom after `field` not taken by digits
    // are left spaces. Inline: finalize calls it twice a marker pair.
    __attribute__((always_inline)) char* put(char* field, uint64_t value) {
        const uint64_t low = value - m_base;  // past kLow too when value < m_base
        if (low >= kLow) return putNewHigh(field, value);
        std::memcpy(field, m_highDigits, kRoom);
        put8Digits(field + m_highLength, static_cast<uint32_t>(low));
        return field + m_highLength + 8;
    }

    static constexpr size_t kRoom = 16;

private:
    static constexpr uint64_t kLow = 100000000;  // 10^8: below it, the eight digits formatted

    char* putNewHigh(char* field, uint64_t value);

    // The most digits kept: put()'s one comparison needs a value below m_base to wrap past kLow.
    static constexpr uint64_t kMaxHigh = (UINT64_MAX - kLow) / kLow;

    // The digits kept, times kLow: at least 1 and at most kMaxHigh. At first kMaxHigh itself,
    // so that the one comparison also serves a new writer.
    uint64_t m_base = kMaxHigh * kLow;
    size_t m_highLength = 12;  // the digits kept
    char m_highDigits[kRoom] = {'1', '8', '4', '4', '6', '7', '4', '4',
                                '0', '7', '3', '6', ' ', ' ', ' ', ' '};  // then spaces
};

}  // namespace perfmarker::atp
