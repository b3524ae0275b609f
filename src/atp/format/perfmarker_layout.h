// The layout of Perfmarker marker lines shared by their writer (perfmarker_writer.cpp) and reader
// (perfmarker_section.cpp): keywords, field widths and byte classes
// (docs/format.md#perfmarker-section). Internal to src/atp/format.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "atp/format/decimal.h"

namespace perfmarker::atp::section_layout {

inline constexpr std::string_view kBeginKeyword = "clBeginPerfMarker";
inline constexpr std::string_view kEndKeyword = "clEndPerfMarker";
inline constexpr std::string_view kEndExKeyword = "clEndPerfMarkerEx";
// The keywords left-aligned in their 20-wide field, as the writer emits them.
inline constexpr std::string_view kBeginField = "clBeginPerfMarker   ";
inline constexpr std::string_view kEndField = "clEndPerfMarker     ";
inline constexpr std::string_view kEndExField = "clEndPerfMarkerEx   ";
inline constexpr std::string_view kEmptyEntity = "&empty;";
inline constexpr std::string_view kUserPrefix = "user=";
inline constexpr std::string_view kProfilerVersionPrefix = "ProfilerVersion=";
inline constexpr std::string_view kSectionFence = "=====";
inline constexpr std::string_view kSeparator = "   ";
inline constexpr size_t kKeywordWidth = 20;
inline constexpr size_t kNameWidth = 50;
inline constexpr size_t kTimestampWidth = 20;
inline constexpr size_t kMaxEntityLength = 12;  // "&#1114111;" is the longest entity we decode
inline constexpr size_t kMaxQuotedLength = 60;
inline constexpr uint64_t kMaxReserve = 1u << 16;  // a declared count is not trusted for allocation
inline constexpr std::string_view kSpaces = "                                                  ";
static_assert(kBeginField.size() == kKeywordWidth && kEndField.size() == kKeywordWidth &&
              kEndExField.size() == kKeywordWidth);
static_assert(kSpaces.size() >= kNameWidth && kSpaces.size() >= kTimestampWidth);

// Byte classes looked up per byte on both hot paths (escaping, tokenizing padded lines).
struct CharClasses {
    static constexpr uint8_t kEscape = 1;  // replaced by appendEscapedToken
    static constexpr uint8_t kSpace = 2;   // separates tokens
    uint8_t flags[256] = {};
    constexpr CharClasses() {
        for (int c = 0; c <= 0x20; ++c) flags[c] = kEscape;
        flags[static_cast<unsigned char>('&')] = kEscape;
        flags[0x7f] = kEscape;
        for (const char c : {' ', '\t', '\r', '\v', '\f'})
            flags[static_cast<unsigned char>(c)] |= kSpace;
    }
};
inline constexpr CharClasses kCharClasses;

inline bool needsEscape(unsigned char c) { return kCharClasses.flags[c] & CharClasses::kEscape; }

}  // namespace perfmarker::atp::section_layout
