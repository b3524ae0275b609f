// Unit tests of the decimal digits the trace's writers use (src/atp/format/decimal.h), against
// std::to_string.
#include "atp/format/decimal.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace perfmarker::atp {
namespace {

std::string formatted(uint64_t value) {
    char buffer[kMaxDecimalDigits];
    char* const end = buffer + sizeof buffer;
    const char* const first = formatDecimalBackward(end, value);
    return std::string(first, static_cast<size_t>(end - first));
}

// 0, every power of ten and its neighbours, every power of two and its neighbours, the largest.
std::vector<uint64_t> edges() {
    std::vector<uint64_t> values = {0, UINT64_MAX, UINT64_MAX - 1};
    for (uint64_t p = 1;; p *= 10) {
        values.insert(values.end(), {p - 1, p, p + 1});
        if (p > UINT64_MAX / 10) break;
    }
    for (int bit = 0; bit < 64; ++bit) {
        const uint64_t p = uint64_t{1} << bit;
        values.insert(values.end(), {p - 1, p, p + 1});
    }
    return values;
}

TEST(Decimal, DigitsAndLengthAtEveryEdge) {
    for (const uint64_t value : edges()) {
        EXPECT_EQ(formatted(value), std::to_string(value));
        EXPECT_EQ(decimalLength(value), std::to_string(value).size()) << value;
    }
}

TEST(Decimal, RandomValuesOfEveryLength) {
    std::mt19937_64 random(11);
    for (int i = 0; i < 100000; ++i) {
        const uint64_t value = random() >> (random() % 64);
        ASSERT_EQ(formatted(value), std::to_string(value));
        ASSERT_EQ(decimalLength(value), std::to_string(value).size()) << value;
    }
}

}  // namespace
}  // namespace perfmarker::atp
