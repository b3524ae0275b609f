// Unaligned loads and the equality of short strings without a call to memcmp: the writers
// compare a marker's name and group with the ones before (the recorder's packing, the marker
// lines of finalize and the merge), and most are shorter than 17 bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace perfmarker::atp {

inline uint64_t load8(const char* p) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    return v;
}

inline uint32_t load4(const char* p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

// Equal bytes, for two strings of length n (either pointer may be null when n is 0); up to 16
// bytes in at most two overlapping loads from each.
inline __attribute__((always_inline)) bool sameBytes(const char* a, const char* b, size_t n) {
    if (n > 16) return std::memcmp(a, b, n) == 0;
    if (n >= 8) return load8(a) == load8(b) && load8(a + n - 8) == load8(b + n - 8);
    if (n >= 4) return load4(a) == load4(b) && load4(a + n - 4) == load4(b + n - 4);
    for (size_t i = 0; i < n; ++i) {
        if (a[i] != b[i]) return false;
    }
    return true;
}

}  // namespace perfmarker::atp
