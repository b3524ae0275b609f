// Decimal digits for the writers of the trace's text (finalize writes 10^7 numbers).
#pragma once

#include <cstddef>
#include <cstdint>

namespace perfmarker::atp {

inline constexpr size_t kMaxDecimalDigits = 20;  // UINT64_MAX

// Writes `value` in decimal so that it ends just before `end` (at least kMaxDecimalDigits bytes
// after the buffer's start); returns its first digit.
char* formatDecimalBackward(char* end, uint64_t value);

// The number of decimal digits of `value` (1 for 0).
size_t decimalLength(uint64_t value);

}  // namespace perfmarker::atp
