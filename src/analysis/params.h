// Reading values back out of printed API parameters (spec §2.3 for OpenCL, §4.1 for HSA).
// Everything here is lenient: text that does not have the expected shape gives "no value",
// never an error, because the rules must work on traces of any writer version.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace perfmarker::analysis {

// The parameter at `index`, or "" when the call has fewer.
std::string_view paramAt(const std::vector<std::string_view>& params, size_t index);

// "[x]" -> "x"; other text unchanged. Only one level.
std::string_view stripBrackets(std::string_view text);

// Splits "a,b,c" on commas outside brackets and braces.
std::vector<std::string_view> splitList(std::string_view text);

// The product of an N-dimensional size: "[64,64]", "{1048576}", "64" -> the product; no value
// for "NULL", "{NULL}", "" or non-numbers.
std::optional<uint64_t> sizeProduct(std::string_view text);

// Lower-cased handle ("0x2101E80" and "0x2101e80" are the same object); "" for "NULL"/"0".
std::string normalizeHandle(std::string_view text);

// True when `flags` ("A|B|C") holds the name `flag`.
bool hasFlag(std::string_view flags, std::string_view flag);

// The value of the HSA parameter "name=value", or no value when the call has none.
std::optional<std::string_view> hsaParam(const std::vector<std::string_view>& params,
                                         std::string_view name);

// An hsa_agent_t as printed: "{handle=31298480,name=gfx900}" -> handle and unescaped name.
struct HsaAgent {
    std::string handle;
    std::string name;
};
std::optional<HsaAgent> parseHsaAgent(std::string_view text);

// Decimal digits only, no sign; no value on overflow or other characters.
std::optional<uint64_t> parseUnsigned(std::string_view text);

}  // namespace perfmarker::analysis
