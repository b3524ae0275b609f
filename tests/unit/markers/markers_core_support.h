// Helpers shared by the unit tests of the marker core (markers_core_*_test.cpp): a fake
// environment, reading the written marker file back, and the CoreTest fixture. Every CoreTest
// test runs for both flavors (CLPerfMarker, ActivityLogger) with a fake environment and a fresh
// temporary directory; the suite is instantiated once, in markers_core_lifecycle_test.cpp.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "atp/format/perfmarker_section.h"
#include "marker_test_support.h"
#include "markers/marker_core.h"
#include "record/fragments/fragment.h"
#include "sanitizers.h"

namespace perfmarker::markers {

// Names the parameter in test output ("CL"/"AL" come from the name generator below).
inline void PrintTo(const Flavor& flavor, std::ostream* os) { *os << flavor.extension; }

// The helpers and the fixture; each test file takes them in with `using namespace core_test`.
namespace core_test {

using perfmarker::test::ChildReport;
using perfmarker::test::ChildResult;
using perfmarker::test::listDir;
using perfmarker::test::runInChild;
using perfmarker::test::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

inline constexpr int kLoopScale = PERFMARKER_TEST_SANITIZED ? 10 : 1;

// ---- environment, files, processes ---------------------------------------------------------

inline std::map<std::string, std::string>& fakeEnv() {
    static auto* env = new std::map<std::string, std::string>();
    return *env;
}

inline const char* fakeLookup(const char* name) {
    const auto& env = fakeEnv();
    const auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
}

inline bool exists(const std::string& path) {
    struct stat st {};
    return stat(path.c_str(), &st) == 0;
}

inline uint64_t currentTid() { return static_cast<uint64_t>(syscall(SYS_gettid)); }

// Checks inside a runInChild body; failures reach the parent through `report`.
#define CHILD_EXPECT_EQ(report, actual, expected) \
    (report).expectEq((actual), (expected), #actual, __LINE__)

// ---- reading the output --------------------------------------------------------------------

inline ::testing::AssertionResult parseFile(const std::string& path, atp::PerfmarkerFile& out) {
    std::string error;
    if (!atp::readPerfmarkerFile(path, out, error)) {
        return ::testing::AssertionFailure() << "cannot parse " << path << ": " << error;
    }
    return ::testing::AssertionSuccess();
}

inline std::string describe(const atp::Marker& m) {
    const std::string user = m.userString.empty() ? "" : "|" + m.userString;
    switch (m.kind) {
    case atp::MarkerKind::Begin: return "B " + m.name + "|" + m.group + user;
    case atp::MarkerKind::End: return "E";
    case atp::MarkerKind::EndEx: return "X " + m.name + "|" + m.group + user;
    }
    return "?";
}

inline std::vector<std::string> describe(const atp::ThreadMarkers& thread) {
    std::vector<std::string> out;
    for (const atp::Marker& m : thread.markers) out.push_back(describe(m));
    return out;
}

inline const atp::ThreadMarkers* findThread(const atp::PerfmarkerFile& file, uint64_t tid) {
    for (const auto& t : file.threads) {
        if (t.tid == tid) return &t;
    }
    return nullptr;
}

inline size_t countFragmentRecords(const std::string& dir, uint64_t pid, const std::string& tag,
                                   std::vector<std::string>* names = nullptr) {
    size_t count = 0;
    for (const record::FragmentFile& f : record::listFragments(dir, pid, tag)) {
        std::string error;
        bool truncated = false;
        const bool ok = record::readFragment(
            f.path,
            [&](const record::RecordView& r) {
                ++count;
                if (names != nullptr && r.kind == record::RecordKind::MarkerBegin) {
                    names->emplace_back(r.str0);
                }
            },
            error, &truncated);
        EXPECT_TRUE(ok) << error;
        EXPECT_FALSE(truncated) << f.path;
    }
    return count;
}

// ---- the fixture ---------------------------------------------------------------------------

class CoreTest : public ::testing::TestWithParam<Flavor> {
protected:
    void SetUp() override {
        fakeEnv().clear();
        fakeEnv()["PERFMARKER_OUTPUT"] = base();
    }
    void TearDown() override { fakeEnv().clear(); }

    const Flavor& flavor() const { return GetParam(); }
    std::string ext() const { return flavor().extension; }
    int invalidCode() const { return flavor().invalidSessionCode; }
    std::string dir() const { return m_dir.path(); }
    std::string base() const { return dir() + "/out"; }
    std::string outFile() const { return base() + "." + ext(); }
    void setEnv(const char* name, const std::string& value) { fakeEnv()[name] = value; }
    void unsetEnv(const char* name) { fakeEnv().erase(name); }

    // A directory for fragments, apart from the output.
    std::string makeSubdir(const std::string& name) {
        const std::string path = dir() + "/" + name;
        EXPECT_EQ(mkdir(path.c_str(), 0700), 0) << path;
        return path;
    }

    TempDir m_dir;
};

inline std::string flavorName(const ::testing::TestParamInfo<Flavor>& info) {
    return std::strcmp(info.param.extension, "clperfmarker") == 0 ? "CL" : "AL";
}

}  // namespace core_test
}  // namespace perfmarker::markers
