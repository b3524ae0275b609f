// Helpers shared by the unit tests of the Perfmarker section writer and reader
// (perfmarker_section_*_test.cpp; the code under test is src/atp/format/perfmarker_section.h).
//
// Needs the compile definition PERFMARKER_FIXTURES_DIR: the absolute path of tests/fixtures
// (no trailing slash; perfmarker_add_gtest in tests/unit/CMakeLists.txt sets it). The hand-made
// files used here are in tests/fixtures/perfmarker/.
#pragma once

#include "atp/format/perfmarker_section.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

#ifndef PERFMARKER_FIXTURES_DIR
#error "PERFMARKER_FIXTURES_DIR must name tests/fixtures"
#endif

namespace perfmarker::atp {

// The helpers; each test file takes them in with `using namespace section_test`.
namespace section_test {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

inline std::string spaces(size_t count) { return std::string(count, ' '); }

inline std::string fixturePath(const std::string& name) {
    return std::string(PERFMARKER_FIXTURES_DIR) + "/perfmarker/" + name;
}

inline std::string readBytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    bytes << in.rdbuf();
    return bytes.str();
}

inline std::string escaped(std::string_view raw) {
    std::string out;
    appendEscapedToken(out, raw);
    return out;
}

inline std::string line(MarkerKind kind, uint64_t ts, std::string_view name = {},
                        std::string_view group = {}, std::string_view user = {}) {
    std::string out;
    appendMarkerLine(out, kind, ts, name, group, user);
    return out;
}

struct ParseResult {
    bool ok = false;
    PerfmarkerFile file;
    std::string error;
};

inline ParseResult parse(const std::string& text, std::string_view name = "t.atp") {
    ParseResult result;
    std::istringstream in(text);
    result.ok = readPerfmarkerFile(in, name, result.file, result.error);
    return result;
}

// Parses one marker line (inside a one-line thread block) and returns the marker.
inline Marker parseOne(const std::string& markerLine) {
    const ParseResult result = parse("=====Perfmarker Output=====\n1\n1\n" + markerLine);
    EXPECT_TRUE(result.ok) << result.error;
    if (!result.ok || result.file.threads.size() != 1 ||
        result.file.threads[0].markers.size() != 1)
        return Marker{};
    return result.file.threads[0].markers[0];
}

// Asserts that `text` is rejected with exactly `expected` as the error.
inline void expectError(const std::string& text, const std::string& expected) {
    const ParseResult result = parse(text);
    EXPECT_FALSE(result.ok);
    EXPECT_EQ(result.error, expected);
}

}  // namespace section_test
}  // namespace perfmarker::atp
