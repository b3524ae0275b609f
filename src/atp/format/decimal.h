// Decimal digits for the writers of the trace's text (finalize writes 10^7 numbers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace perfmarker::atp {

inline constexpr size_t kMaxDecimalDigits = 20;  // UINT64_MAX

// Writes `value` in decimal so that it ends just before `end` (at least kMaxDecimalDigits bytes
// after the buffer's start); returns its first digit.
char* formatDecimalBackward(char* end, uint64_t value);

// The number of decimal digits of `value` (1 for 0).
size_t decimalLength(uint64_t value);

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
    // are left spaces.
    char* put(char* field, uint64_t value);

    static constexpr size_t kRoom = 16;

private:
    static constexpr uint64_t kLow = 100000000;  // 10^8: below it, the eight digits formatted

    uint64_t m_high = 0;            // value / kLow of the digits kept; 0 for none
    size_t m_highLength = 0;        // its digits
    char m_highDigits[kRoom] = {};  // its digits, then spaces
};

}  // namespace perfmarker::atp
