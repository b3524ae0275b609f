// Unit tests of the decimal digits the trace's writers use (src/atp/format/decimal.h), against
// std::to_string.
#include "atp/format/decimal.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
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

// The last eight digits of a number past 10^8 are written in one step (put8Digits): every
// value of them below 10^6 against an odometer, and a stride across the rest.
TEST(Decimal, EveryGroupOfEightDigits) {
    constexpr uint64_t kBase = 300000000;  // its last eight digits are zeros
    char odometer[] = "300000000";
    for (uint64_t low = 0; low < 1000000; ++low) {
        ASSERT_EQ(formatted(kBase + low), odometer) << low;
        for (char* d = odometer + 8; ++*d > '9'; --d) *d = '0';
    }
    for (uint64_t low = 1000000; low < 100000000; low += 997) {
        ASSERT_EQ(formatted(kBase + low), std::to_string(kBase + low));
    }
    EXPECT_EQ(formatted(kBase + 99999999), "399999999");
}

// put8Digits splits a number in two halves of four digits: every value of each half, with the
// other half at its edges and at the same value.
TEST(Decimal, EightDigitsAtEveryValueOfEachHalf) {
    const auto eight = [](uint32_t v) {
        char text[9] = {};
        put8Digits(text, v);
        return std::string(text, 8);
    };
    const auto expected = [](uint32_t v) {
        char text[16];
        std::snprintf(text, sizeof text, "%08u", v);
        return std::string(text);
    };
    for (uint32_t half = 0; half < 10000; ++half) {
        for (const uint32_t other : {0u, 1u, 9u, 10u, 99u, 100u, 999u, 1000u, 9998u, 9999u, half}) {
            ASSERT_EQ(eight(half * 10000 + other), expected(half * 10000 + other));
            ASSERT_EQ(eight(other * 10000 + half), expected(other * 10000 + half));
        }
    }
}

// Signed values appended after text already there, as std::to_string writes them.
TEST(Decimal, SignedValuesAtEveryEdge) {
    std::vector<int64_t> values = {INT64_MIN, INT64_MIN + 1, INT64_MAX, -1, 0, 1};
    for (const uint64_t value : edges()) {
        values.push_back(static_cast<int64_t>(value));
        values.push_back(-static_cast<int64_t>(value >> 1));
    }
    for (const int64_t value : values) {
        std::string out = "x";
        appendSignedDecimal(out, value);
        EXPECT_EQ(out, "x" + std::to_string(value));
    }
}

// What DecimalFieldWriter::put leaves in a field of spaces: its digits, then spaces.
std::string putInField(DecimalFieldWriter& writer, uint64_t value) {
    std::string field(kMaxDecimalDigits + 4, ' ');
    const char* const end = writer.put(field.data(), value);
    EXPECT_EQ(field.find_last_not_of(' ') + 1, static_cast<size_t>(end - field.data())) << value;
    return field.substr(0, static_cast<size_t>(end - field.data()));
}

// One writer through values that keep, change, lengthen and shorten the digits above the last
// eight: every value as std::to_string writes it, with spaces after it.
TEST(DecimalFieldWriter, KeptLeadingDigitsNeverLeak) {
    DecimalFieldWriter writer;
    std::vector<uint64_t> values = edges();
    for (const uint64_t base : {uint64_t{4035402100000}, uint64_t{99999999} * 100000000 + 99999990,
                                uint64_t{100000000}, uint64_t{999999999999}}) {
        for (uint64_t v = base; v < base + 40; v += 3) values.push_back(v);
    }
    values.insert(values.end(),
                  {123, 100000000, 7, UINT64_MAX, 100000001, 199999999, 200000000, UINT64_MAX - 5,
                   0, UINT64_MAX - 100000000, 5, UINT64_MAX - 100000000, UINT64_MAX - 3});
    for (const uint64_t value : values) ASSERT_EQ(putInField(writer, value), std::to_string(value));
}

// A writer's first value, whatever it is: a new writer keeps the digits above the last eight of
// the last multiple of 10^8 that has 10^8 values after it below 2^64.
TEST(DecimalFieldWriter, FirstValues) {
    constexpr uint64_t kLow = 100000000;
    constexpr uint64_t kFirstBase = (UINT64_MAX - kLow) / kLow * kLow;
    std::vector<uint64_t> values = edges();
    values.insert(values.end(), {kFirstBase - 1, kFirstBase, kFirstBase + 1, kFirstBase + kLow - 1,
                                 kFirstBase + kLow, kFirstBase + kLow + 1});
    for (const uint64_t value : values) {
        DecimalFieldWriter writer;
        ASSERT_EQ(putInField(writer, value), std::to_string(value));
    }
}

// Timestamps as a thread writes them: increasing by random steps, sometimes by seconds.
TEST(DecimalFieldWriter, IncreasingTimestamps) {
    DecimalFieldWriter writer;
    std::mt19937_64 random(5);
    uint64_t ts = 86399999990000;
    for (int i = 0; i < 200000; ++i) {
        ts += (i % 1000 == 0) ? random() % 3000000000 : random() % 5000;
        ASSERT_EQ(putInField(writer, ts), std::to_string(ts));
    }
}

}  // namespace
}  // namespace perfmarker::atp
