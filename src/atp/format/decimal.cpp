#include "atp/format/decimal.h"

#include <cstring>

namespace perfmarker::atp {
namespace {

constexpr DigitQuads makeDigitQuads() {
    DigitQuads quads{};
    for (int i = 0; i < 10000; ++i) {
        quads.digits[i][0] = static_cast<char>('0' + i / 1000);
        quads.digits[i][1] = static_cast<char>('0' + i / 100 % 10);
        quads.digits[i][2] = static_cast<char>('0' + i / 10 % 10);
        quads.digits[i][3] = static_cast<char>('0' + i % 10);
    }
    return quads;
}

}  // namespace

constexpr DigitQuads kDigitQuads = makeDigitQuads();
static_assert(kDigitQuads.digits[9407][0] == '9' && kDigitQuads.digits[9407][1] == '4' &&
              kDigitQuads.digits[9407][2] == '0' && kDigitQuads.digits[9407][3] == '7');

// Eight digits per 64-bit division, then two per step in 32 bits: a 19-digit timestamp takes
// two long divisions instead of ten (finalize writes 10^7 lines), std::to_chars twice as long.
char* formatDecimalBackward(char* end, uint64_t value) {
    while (value >= 100000000) {
        const uint64_t rest = value / 100000000;
        end -= 8;
        put8Digits(end, static_cast<uint32_t>(value - rest * 100000000));
        value = rest;
    }
    auto v = static_cast<uint32_t>(value);
    while (v >= 100) {
        const uint32_t pair = (v % 100) * 2;
        v /= 100;
        end -= 2;
        std::memcpy(end, kDigitPairs + pair, 2);
    }
    if (v >= 10) {
        end -= 2;
        std::memcpy(end, kDigitPairs + v * 2, 2);
    } else {
        *--end = static_cast<char>('0' + v);
    }
    return end;
}

size_t decimalLength(uint64_t value) {
    // From the bit length: log10(2) ~ 1233 / 4096 gives the digits of 2^bits - 1, one too many
    // below the next power of ten.
    static constexpr uint64_t kPowers[] = {1u,
                                           10u,
                                           100u,
                                           1000u,
                                           10000u,
                                           100000u,
                                           1000000u,
                                           10000000u,
                                           100000000u,
                                           1000000000u,
                                           10000000000u,
                                           100000000000u,
                                           1000000000000u,
                                           10000000000000u,
                                           100000000000000u,
                                           1000000000000000u,
                                           10000000000000000u,
                                           100000000000000000u,
                                           1000000000000000000u,
                                           10000000000000000000u};
    value |= 1;  // the same length (no power of ten is odd but 1), and a bit to count
    const auto bits = static_cast<size_t>(64 - __builtin_clzll(value));
    const size_t digits = (bits * 1233 >> 12) + 1;
    return digits - (value < kPowers[digits - 1] ? 1 : 0);
}

char* DecimalFieldWriter::putNewHigh(char* field, uint64_t value) {
    static_assert(kMaxDecimalDigits - 8 <= kRoom && kRoom <= kMaxDecimalDigits);
    static_assert(kMaxHigh == 184467440736, "m_highDigits' first digits");
    const uint64_t high = value / kLow;
    if (high == 0 || high > kMaxHigh) {  // written whole, the digits kept as they are
        const size_t length = decimalLength(value);
        formatDecimalBackward(field + length, value);
        return field + length;
    }
    m_base = high * kLow;
    m_highLength = decimalLength(high);
    std::memset(m_highDigits, ' ', sizeof m_highDigits);
    formatDecimalBackward(m_highDigits + m_highLength, high);
    std::memcpy(field, m_highDigits, kRoom);
    put8Digits(field + m_highLength, static_cast<uint32_t>(value - m_base));
    return field + m_highLength + 8;
}

}  // namespace perfmarker::atp
