// Tests of the public C APIs through the real shared libraries libCLPerfMarker.so and
// libActivityLogger.so. Their state is process-wide, so every scenario runs in a forked child
// that sets its environment before the first call and reports failures back through a pipe.
//
// Needs the compile definition PERFMARKER_TEST_AGENT_PATH: the path of the test agent
// (tests/unit/markers/test_agent.c, built as libCLTraceAgent.so).
#include <dirent.h>
#include <dlfcn.h>
#include <ftw.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "ActivityLogger.h"
#include "CLPerfMarker.h"
#include "atp/format/perfmarker_section.h"
#include "marker_test_support.h"
#include "record/fragments/fragment.h"
#include "sanitizers.h"

#ifndef PERFMARKER_TEST_AGENT_PATH
#error "PERFMARKER_TEST_AGENT_PATH must name the test agent library"
#endif

// The out-of-memory tests make an allocation fail on purpose: the sanitizers' allocators must
// return null as malloc does instead of ending the process.
#if PERFMARKER_TEST_ASAN
extern "C" const char* __asan_default_options() { return "allocator_may_return_null=1"; }
#endif
#if PERFMARKER_TEST_TSAN
// atexit_sleep_ms=0: the children that exit() with the library's writer thread alive would
// otherwise wait a second each.
extern "C" const char* __tsan_default_options() {
    return "allocator_may_return_null=1:atexit_sleep_ms=0";
}
#endif

namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

// ---- files and processes -------------------------------------------------------------------

using perfmarker::test::ChildReport;
using perfmarker::test::ChildResult;
using perfmarker::test::listDir;
using perfmarker::test::runInChild;
using perfmarker::test::TempDir;

#define CHILD_EXPECT_EQ(actual, expected) report.expectEq((actual), (expected), #actual, __LINE__)


// In the child: no PERFMARKER_* variable but the given ones.
void clearSession() {
    for (const char* name : {"PERFMARKER_OUTPUT", "PERFMARKER_MODE", "PERFMARKER_INTERVAL_MS",
                             "PERFMARKER_TMPDIR", "PERFMARKER_MAX_MEMORY_MB"}) {
        unsetenv(name);
    }
}

void startSession(const std::string& base, const char* mode = "cached",
                  const char* intervalMs = nullptr) {
    clearSession();
    setenv("PERFMARKER_OUTPUT", base.c_str(), 1);
    setenv("PERFMARKER_MODE", mode, 1);
    if (intervalMs != nullptr) setenv("PERFMARKER_INTERVAL_MS", intervalMs, 1);
}

::testing::AssertionResult parseFile(const std::string& path, perfmarker::atp::PerfmarkerFile& out) {
    std::string error;
    if (!perfmarker::atp::readPerfmarkerFile(path, out, error)) {
        return ::testing::AssertionFailure() << "cannot parse " << path << ": " << error;
    }
    return ::testing::AssertionSuccess();
}

std::vector<std::string> describe(const perfmarker::atp::ThreadMarkers& thread) {
    std::vector<std::string> out;
    for (const perfmarker::atp::Marker& m : thread.markers) {
        const std::string user = m.userString.empty() ? "" : "|" + m.userString;
        switch (m.kind) {
        case perfmarker::atp::MarkerKind::Begin: out.push_back("B " + m.name + "|" + m.group + user); break;
        case perfmarker::atp::MarkerKind::End: out.push_back("E"); break;
        case perfmarker::atp::MarkerKind::EndEx: out.push_back("X " + m.name + "|" + m.group + user); break;
        }
    }
    return out;
}

// The begin names of every record in the fragments of `pid` (and the number of records).
size_t readFragments(const std::string& dir, pid_t pid, const std::string& tag,
                     std::vector<std::string>& beginNames) {
    size_t records = 0;
    for (const auto& f : perfmarker::record::listFragments(dir, static_cast<uint64_t>(pid), tag)) {
        std::string error;
        const bool ok = perfmarker::record::readFragment(
            f.path,
            [&](const perfmarker::record::RecordView& r) {
                ++records;
                if (r.kind == perfmarker::record::RecordKind::MarkerBegin) {
                    beginNames.emplace_back(r.str0);
                }
            },
            error);
        EXPECT_TRUE(ok) << error;
    }
    return records;
}

size_t vmSizeBytes() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind("VmSize:", 0) == 0) return std::stoull(line.substr(7)) * 1024;
    }
    return 0;
}

// ---- CLPerfMarker ---------------------------------------------------------------------------

TEST(markers_PublicCL, CodesWithoutSession) {
    ChildResult child = runInChild([](ChildReport& report) {
        clearSession();
        CHILD_EXPECT_EQ(clBeginPerfMarkerAMD("a", "g"), AP_UNINITIALIZED_PERF_MARKER);
        CHILD_EXPECT_EQ(clEndPerfMarkerAMD(), AP_UNINITIALIZED_PERF_MARKER);
        CHILD_EXPECT_EQ(clFinalizePerfMarkerAMD(), AP_UNINITIALIZED_PERF_MARKER);
        CHILD_EXPECT_EQ(clInitializePerfMarkerAMD(), AP_APP_PROFILER_NOT_DETECTED);
        CHILD_EXPECT_EQ(clInitializePerfMarkerAMD(), AP_APP_PROFILER_NOT_DETECTED);
        CHILD_EXPECT_EQ(clBeginPerfMarkerAMD("a", "g"), AP_UNINITIALIZED_PERF_MARKER);
        CHILD_EXPECT_EQ(clBeginPerfMarkerAMD(nullptr, nullptr), AP_UNINITIALIZED_PERF_MARKER);
        CHILD_EXPECT_EQ(clEndPerfMarkerAMD(), AP_UNINITIALIZED_PERF_MARKER);
        CHILD_EXPECT_EQ(clFinalizePerfMarkerAMD(), AP_UNINITIALIZED_PERF_MARKER);
    });
    EXPECT_TRUE(child.exitedCleanly()) << child.status;
    EXPECT_EQ(child.failures, "");
}

TEST(markers_PublicCL, CodesWithSession) {
    TempDir dir;
    ChildResult child = runInChild([&](ChildReport& report) {
        startSession(dir / "cl");
        CHILD_EXPECT_EQ(clBeginPerfMarkerAMD("early", nullptr), AP_UNINITIALIZED_PERF_MARKER);
        CHILD_EXPECT_EQ(clInitializePerfMarkerAMD(), AP_SUCCESS);
        CHILD_EXPECT_EQ(clInitializePerfMarkerAMD(), AP_SUCCESS);
        CHILD_EXPECT_EQ(clBeginPerfMarkerAMD(nullptr, "g"), AP_NULL_MARKER_NAME);
        CHILD_EXPECT_EQ(clEndPerfMarkerAMD(), AP_UNBALANCED_MARKER);
        CHILD_EXPECT_EQ(clBeginPerfMarkerAMD("a b", nullptr), AP_SUCCESS);
        CHILD_EXPECT_EQ(clBeginPerfMarkerAMD("inner", "grp"), AP_SUCCESS);
        CHILD_EXPECT_EQ(clBeginPerfMarkerAMD("empty group", ""), AP_SUCCESS);
        CHILD_EXPECT_EQ(clEndPerfMarkerAMD(), AP_SUCCESS);
        CHILD_EXPECT_EQ(clEndPerfMarkerAMD(), AP_SUCCESS);
        std::thread other([&] { CHILD_EXPECT_EQ(clEndPerfMarkerAMD(), AP_UNBALANCED_MARKER); });
        other.join();
        CHILD_EXPECT_EQ(clEndPerfMarkerAMD(), AP_SUCCESS);
        CHILD_EXPECT_EQ(clEndPerfMarkerAMD(), AP_UNBALANCED_MARKER);
        CHILD_EXPECT_EQ(clFinalizePerfMarkerAMD(), AP_SUCCESS);
        CHILD_EXPECT_EQ(clFinalizePerfMarkerAMD(), AP_FINALIZED_PERF_MARKER);
        CHILD_EXPECT_EQ(clInitializePerfMarkerAMD(), AP_FINALIZED_PERF_MARKER);
        CHILD_EXPECT_EQ(clBeginPerfMarkerAMD("late", nullptr), AP_FINALIZED_PERF_MARKER);
        CHILD_EXPECT_EQ(clBeginPerfMarkerAMD(nullptr, nullptr), AP_FINALIZED_PERF_MARKER);
        CHILD_EXPECT_EQ(clEndPerfMarkerAMD(), AP_FINALIZED_PERF_MARKER);
    });
    EXPECT_TRUE(child.exitedCleanly()) << child.status;
    EXPECT_EQ(child.failures, "");
    EXPECT_THAT(listDir(dir.path()), ElementsAre("cl.clperfmarker"));
    perfmarker::atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(dir / "cl.clperfmarker", file));
    ASSERT_EQ(file.threads.size(), 1u);
    EXPECT_EQ(file.threads[0].tid, static_cast<uint64_t>(child.pid));  // the child's main thread
    EXPECT_THAT(describe(file.threads[0]),
                ElementsAre("B a b|Default", "B inner|grp", "B empty group|Default", "E", "E", "E"));
    EXPECT_THAT(file.warnings, IsEmpty());
}

TEST(markers_PublicCL, InvalidSessionIsInternalError) {
    TempDir dir;
    for (const auto& [name, value] : {std::pair<const char*, const char*>{"PERFMARKER_INTERVAL_MS", "0"},
                                      {"PERFMARKER_INTERVAL_MS", "fast"},
                                      {"PERFMARKER_MODE", "bogus"}}) {
        SCOPED_TRACE(std::string(name) + "=" + value);
        ChildResult child = runInChild([&, name = name, value = value](ChildReport& report) {
            startSession(dir / "cl");
            setenv(name, value, 1);
            CHILD_EXPECT_EQ(clInitializePerfMarkerAMD(), AP_INTERNAL_ERROR);
            CHILD_EXPECT_EQ(clBeginPerfMarkerAMD("a", nullptr), AP_UNINITIALIZED_PERF_MARKER);
            CHILD_EXPECT_EQ(clEndPerfMarkerAMD(), AP_UNINITIALIZED_PERF_MARKER);
            CHILD_EXPECT_EQ(clFinalizePerfMarkerAMD(), AP_UNINITIALIZED_PERF_MARKER);
        });
        EXPECT_TRUE(child.exitedCleanly()) << child.status;
        EXPECT_EQ(child.failures, "");
    }
    EXPECT_THAT(listDir(dir.path()), IsEmpty());
}

TEST(markers_PublicCL, UnwritableOutputFailsToOpenOutputFile) {
    TempDir dir;
    ChildResult child = runInChild([&](ChildReport& report) {
        // Said at initialize, not at finalize: nothing is recorded that could not be written.
        startSession(dir / "missing/cl");
        CHILD_EXPECT_EQ(clInitializePerfMarkerAMD(), AP_FAILED_TO_OPEN_OUTPUT_FILE);
        CHILD_EXPECT_EQ(clBeginPerfMarkerAMD("lost", nullptr), AP_UNINITIALIZED_PERF_MARKER);
        CHILD_EXPECT_EQ(clFinalizePerfMarkerAMD(), AP_UNINITIALIZED_PERF_MARKER);
        // A base ending in '/' names a directory, not a file base.
        startSession(dir / "");
        CHILD_EXPECT_EQ(clInitializePerfMarkerAMD(), AP_FAILED_TO_OPEN_OUTPUT_FILE);
    });
    EXPECT_TRUE(child.exitedCleanly()) << child.status;
    EXPECT_EQ(child.failures, "");
    EXPECT_THAT(listDir(dir.path()), IsEmpty());
}

// A marker whose copy cannot be allocated (the address space is capped just above what the
// child already uses, and the name needs a chunk of its own) fails with AP_OUT_OF_MEMORY; the
// library goes on working afterwards.
TEST(markers_PublicCL, OutOfMemoryForAHugeName) {
    TempDir dir;
    ChildResult child = runInChild([&](ChildReport& report) {
        startSession(dir / "oom");
        CHILD_EXPECT_EQ(clInitializePerfMarkerAMD(), AP_SUCCESS);
        CHILD_EXPECT_EQ(clBeginPerfMarkerAMD("warm up", nullptr), AP_SUCCESS);
        CHILD_EXPECT_EQ(clEndPerfMarkerAMD(), AP_SUCCESS);
        const std::string huge(size_t{64} << 20, 'h');
        rlimit old{};
        getrlimit(RLIMIT_AS, &old);
        const rlimit tight{vmSizeBytes() + (size_t{16} << 20), old.rlim_max};
        if (setrlimit(RLIMIT_AS, &tight) != 0) report.fail(__LINE__, "setrlimit");
        const int hugeCode = clBeginPerfMarkerAMD(huge.c_str(), nullptr);
        const int smallCode = clBeginPerfMarkerAMD("small", nullptr);
        setrlimit(RLIMIT_AS, &old);
        CHILD_EXPECT_EQ(hugeCode, AP_OUT_OF_MEMORY);
        CHILD_EXPECT_EQ(smallCode, AP_SUCCESS);
        CHILD_EXPECT_EQ(clEndPerfMarkerAMD(), AP_SUCCESS);
        CHILD_EXPECT_EQ(clEndPerfMarkerAMD(), AP_UNBALANCED_MARKER);  // the huge one never opened
        CHILD_EXPECT_EQ(clFinalizePerfMarkerAMD(), AP_SUCCESS);
    });
    EXPECT_TRUE(child.exitedCleanly()) << child.status;
    EXPECT_EQ(child.failures, "");
    perfmarker::atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(dir / "oom.clperfmarker", file));
    ASSERT_EQ(file.threads.size(), 1u);
    EXPECT_THAT(describe(file.threads[0]),
                ElementsAre("B warm up|Default", "E", "B small|Default", "E"));
}

TEST(markers_PublicCL, ExitWithoutFinalizeKeepsEveryMarkerInFragments) {
    TempDir dir;
    ChildResult child = runInChild([&](ChildReport& report) {
        // The interval timer never fires: only the flush at exit writes the fragments.
        startSession(dir / "exit", "timeout", "3600000");
        CHILD_EXPECT_EQ(clInitializePerfMarkerAMD(), AP_SUCCESS);
        for (int i = 0; i < 40; ++i) {
            CHILD_EXPECT_EQ(clBeginPerfMarkerAMD("main", nullptr), AP_SUCCESS);
            CHILD_EXPECT_EQ(clEndPerfMarkerAMD(), AP_SUCCESS);
        }
        std::thread worker([&] {
            for (int i = 0; i < 10; ++i) {
                CHILD_EXPECT_EQ(clBeginPerfMarkerAMD("worker", nullptr), AP_SUCCESS);
                CHILD_EXPECT_EQ(clEndPerfMarkerAMD(), AP_SUCCESS);
            }
        });
        worker.join();
        CHILD_EXPECT_EQ(clBeginPerfMarkerAMD("open at exit", nullptr), AP_SUCCESS);
        std::exit(0);
    });
    EXPECT_TRUE(child.exitedCleanly()) << child.status;
    EXPECT_EQ(child.failures, "");
    std::vector<std::string> names;
    EXPECT_EQ(readFragments(dir.path(), child.pid, "clperfmarker", names), 101u);
    EXPECT_EQ(std::count(names.begin(), names.end(), "main"), 40);
    EXPECT_EQ(std::count(names.begin(), names.end(), "worker"), 10);
    EXPECT_EQ(std::count(names.begin(), names.end(), "open at exit"), 1);
    // One fragment file for both threads.
    EXPECT_EQ(perfmarker::record::listFragments(dir.path(), child.pid, "clperfmarker").size(), 1u);
}

// ---- ActivityLogger -------------------------------------------------------------------------

TEST(markers_PublicAL, CodesWithoutSession) {
    ChildResult child = runInChild([](ChildReport& report) {
        clearSession();
        CHILD_EXPECT_EQ(amdtBeginMarker("a", "g", "u"), AL_UNINITIALIZED_ACTIVITY_LOGGER);
        CHILD_EXPECT_EQ(amdtEndMarker(), AL_UNINITIALIZED_ACTIVITY_LOGGER);
        CHILD_EXPECT_EQ(amdtEndMarkerEx("a", "g", "u"), AL_UNINITIALIZED_ACTIVITY_LOGGER);
        CHILD_EXPECT_EQ(amdtFinalizeActivityLogger(), AL_UNINITIALIZED_ACTIVITY_LOGGER);
        CHILD_EXPECT_EQ(amdtInitializeActivityLogger(), AL_GPU_PROFILER_NOT_DETECTED);
        CHILD_EXPECT_EQ(amdtInitializeActivityLogger(), AL_GPU_PROFILER_NOT_DETECTED);
        CHILD_EXPECT_EQ(amdtBeginMarker("a", nullptr, nullptr), AL_UNINITIALIZED_ACTIVITY_LOGGER);
        CHILD_EXPECT_EQ(amdtEndMarker(), AL_UNINITIALIZED_ACTIVITY_LOGGER);
        CHILD_EXPECT_EQ(amdtEndMarkerEx(nullptr, nullptr, nullptr), AL_UNINITIALIZED_ACTIVITY_LOGGER);
        CHILD_EXPECT_EQ(amdtFinalizeActivityLogger(), AL_UNINITIALIZED_ACTIVITY_LOGGER);
    });
    EXPECT_TRUE(child.exitedCleanly()) << child.status;
    EXPECT_EQ(child.failures, "");
}

TEST(markers_PublicAL, CodesWithSessionAndUserStrings) {
    TempDir dir;
    ChildResult child = runInChild([&](ChildReport& report) {
        startSession(dir / "al", "timeout", "10");
        CHILD_EXPECT_EQ(amdtInitializeActivityLogger(), AL_SUCCESS);
        CHILD_EXPECT_EQ(amdtInitializeActivityLogger(), AL_SUCCESS);
        CHILD_EXPECT_EQ(amdtBeginMarker(nullptr, "g", "u"), AL_NULL_MARKER_NAME);
        CHILD_EXPECT_EQ(amdtEndMarker(), AL_UNBALANCED_MARKER);
        CHILD_EXPECT_EQ(amdtEndMarkerEx("x", nullptr, nullptr), AL_UNBALANCED_MARKER);
        CHILD_EXPECT_EQ(amdtBeginMarker("Frame 42", "Render", "#00ff00"), AL_SUCCESS);
        CHILD_EXPECT_EQ(amdtBeginMarker("Upload", nullptr, nullptr), AL_SUCCESS);
        CHILD_EXPECT_EQ(amdtEndMarkerEx("", "Other", nullptr), AL_NULL_MARKER_NAME);
        CHILD_EXPECT_EQ(amdtEndMarkerEx(nullptr, "Default", nullptr), AL_SUCCESS);  // plain end
        CHILD_EXPECT_EQ(amdtEndMarkerEx("Frame42Done", "Render 2", "#ff0000"), AL_SUCCESS);
        CHILD_EXPECT_EQ(amdtEndMarkerEx(nullptr, nullptr, nullptr), AL_UNBALANCED_MARKER);
        std::thread other([&] {
            CHILD_EXPECT_EQ(amdtEndMarker(), AL_UNBALANCED_MARKER);
            CHILD_EXPECT_EQ(amdtBeginMarker("", "", ""), AL_SUCCESS);
            CHILD_EXPECT_EQ(amdtEndMarker(), AL_SUCCESS);
        });
        other.join();
        CHILD_EXPECT_EQ(amdtFinalizeActivityLogger(), AL_SUCCESS);
        CHILD_EXPECT_EQ(amdtFinalizeActivityLogger(), AL_FINALIZED_ACTIVITY_LOGGER);
        CHILD_EXPECT_EQ(amdtInitializeActivityLogger(), AL_FINALIZED_ACTIVITY_LOGGER);
        CHILD_EXPECT_EQ(amdtBeginMarker("late", nullptr, nullptr), AL_FINALIZED_ACTIVITY_LOGGER);
        CHILD_EXPECT_EQ(amdtEndMarker(), AL_FINALIZED_ACTIVITY_LOGGER);
        CHILD_EXPECT_EQ(amdtEndMarkerEx("late", "G", nullptr), AL_FINALIZED_ACTIVITY_LOGGER);
    });
    EXPECT_TRUE(child.exitedCleanly()) << child.status;
    EXPECT_EQ(child.failures, "");
    EXPECT_THAT(listDir(dir.path()), ElementsAre("al.amdtperfmarker"));  // fragments removed
    perfmarker::atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(dir / "al.amdtperfmarker", file));
    ASSERT_EQ(file.threads.size(), 2u);
    const auto& mainThread =
        file.threads[0].tid == static_cast<uint64_t>(child.pid) ? file.threads[0] : file.threads[1];
    const auto& otherThread = &mainThread == &file.threads[0] ? file.threads[1] : file.threads[0];
    EXPECT_EQ(mainThread.tid, static_cast<uint64_t>(child.pid));
    EXPECT_THAT(describe(mainThread),
                ElementsAre("B Frame 42|Render|#00ff00", "B Upload|Default", "E",
                            "X Frame42Done|Render 2|#ff0000"));
    EXPECT_THAT(describe(otherThread), ElementsAre("B |Default", "E"));
    EXPECT_THAT(file.warnings, IsEmpty());
}

TEST(markers_PublicAL, InvalidSessionIsProfilerMismatch) {
    TempDir dir;
    for (const auto& [name, value] : {std::pair<const char*, const char*>{"PERFMARKER_INTERVAL_MS", "0"},
                                      {"PERFMARKER_INTERVAL_MS", "99999999999999999999"},
                                      {"PERFMARKER_MODE", "bogus"}}) {
        SCOPED_TRACE(std::string(name) + "=" + value);
        ChildResult child = runInChild([&, name = name, value = value](ChildReport& report) {
            startSession(dir / "al");
            setenv(name, value, 1);
            CHILD_EXPECT_EQ(amdtInitializeActivityLogger(), AL_GPU_PROFILER_MISMATCH);
            CHILD_EXPECT_EQ(amdtBeginMarker("a", nullptr, nullptr), AL_UNINITIALIZED_ACTIVITY_LOGGER);
            CHILD_EXPECT_EQ(amdtEndMarker(), AL_UNINITIALIZED_ACTIVITY_LOGGER);
            CHILD_EXPECT_EQ(amdtFinalizeActivityLogger(), AL_UNINITIALIZED_ACTIVITY_LOGGER);
        });
        EXPECT_TRUE(child.exitedCleanly()) << child.status;
        EXPECT_EQ(child.failures, "");
    }
    EXPECT_THAT(listDir(dir.path()), IsEmpty());
}

TEST(markers_PublicAL, UnwritableOutputFailsToOpenOutputFile) {
    TempDir dir;
    ChildResult child = runInChild([&](ChildReport& report) {
        startSession(dir / "missing/al", "timeout", "5");
        CHILD_EXPECT_EQ(amdtInitializeActivityLogger(), AL_FAILED_TO_OPEN_OUTPUT_FILE);
        CHILD_EXPECT_EQ(amdtBeginMarker("lost", nullptr, nullptr), AL_UNINITIALIZED_ACTIVITY_LOGGER);
        CHILD_EXPECT_EQ(amdtFinalizeActivityLogger(), AL_UNINITIALIZED_ACTIVITY_LOGGER);
    });
    EXPECT_TRUE(child.exitedCleanly()) << child.status;
    EXPECT_EQ(child.failures, "");
    EXPECT_THAT(listDir(dir.path()), IsEmpty());
}

TEST(markers_PublicAL, OutOfMemoryForAHugeName) {
    TempDir dir;
    ChildResult child = runInChild([&](ChildReport& report) {
        startSession(dir / "oom");
        CHILD_EXPECT_EQ(amdtInitializeActivityLogger(), AL_SUCCESS);
        CHILD_EXPECT_EQ(amdtBeginMarker("warm up", nullptr, nullptr), AL_SUCCESS);
        CHILD_EXPECT_EQ(amdtEndMarker(), AL_SUCCESS);
        const std::string huge(size_t{64} << 20, 'h');
        rlimit old{};
        getrlimit(RLIMIT_AS, &old);
        const rlimit tight{vmSizeBytes() + (size_t{16} << 20), old.rlim_max};
        if (setrlimit(RLIMIT_AS, &tight) != 0) report.fail(__LINE__, "setrlimit");
        const int hugeBegin = amdtBeginMarker(huge.c_str(), nullptr, nullptr);
        const int hugeUser = amdtBeginMarker("small name", nullptr, huge.c_str());
        const int smallBegin = amdtBeginMarker("small", nullptr, nullptr);
        const int hugeEndEx = amdtEndMarkerEx(huge.c_str(), nullptr, nullptr);
        setrlimit(RLIMIT_AS, &old);
        CHILD_EXPECT_EQ(hugeBegin, AL_OUT_OF_MEMORY);
        CHILD_EXPECT_EQ(hugeUser, AL_OUT_OF_MEMORY);
        CHILD_EXPECT_EQ(smallBegin, AL_SUCCESS);
        CHILD_EXPECT_EQ(hugeEndEx, AL_OUT_OF_MEMORY);
        CHILD_EXPECT_EQ(amdtEndMarker(), AL_SUCCESS);  // "small" was still open
        CHILD_EXPECT_EQ(amdtEndMarker(), AL_UNBALANCED_MARKER);
        CHILD_EXPECT_EQ(amdtFinalizeActivityLogger(), AL_SUCCESS);
    });
    EXPECT_TRUE(child.exitedCleanly()) << child.status;
    EXPECT_EQ(child.failures, "");
    perfmarker::atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(dir / "oom.amdtperfmarker", file));
    ASSERT_EQ(file.threads.size(), 1u);
    EXPECT_THAT(describe(file.threads[0]),
                ElementsAre("B warm up|Default", "E", "B small|Default", "E"));
}

TEST(markers_PublicAL, ScopedMarkerIsBalanced) {
    TempDir dir;
    ChildResult child = runInChild([&](ChildReport& report) {
        {
            amdtScopedMarker before("before init");
            CHILD_EXPECT_EQ(before.result(), AL_UNINITIALIZED_ACTIVITY_LOGGER);
        }
        startSession(dir / "scoped");
        CHILD_EXPECT_EQ(amdtInitializeActivityLogger(), AL_SUCCESS);
        CHILD_EXPECT_EQ(amdtBeginMarker("outer", nullptr, nullptr), AL_SUCCESS);
        {
            amdtScopedMarker frame("Frame", "Render", "#123456");
            CHILD_EXPECT_EQ(frame.result(), AL_SUCCESS);
            amdtScopedMarker inner("inner scoped");
            CHILD_EXPECT_EQ(inner.result(), AL_SUCCESS);
        }
        CHILD_EXPECT_EQ(amdtEndMarker(), AL_SUCCESS);  // closes "outer": the scopes closed theirs
        CHILD_EXPECT_EQ(amdtEndMarker(), AL_UNBALANCED_MARKER);
        CHILD_EXPECT_EQ(amdtBeginMarker("guard", nullptr, nullptr), AL_SUCCESS);
        {
            amdtScopedMarker failed(nullptr);
            CHILD_EXPECT_EQ(failed.result(), AL_NULL_MARKER_NAME);
        }
        CHILD_EXPECT_EQ(amdtEndMarker(), AL_SUCCESS);  // the failed scope did not end "guard"
        CHILD_EXPECT_EQ(amdtFinalizeActivityLogger(), AL_SUCCESS);
        {
            amdtScopedMarker after("after finalize");
            CHILD_EXPECT_EQ(after.result(), AL_FINALIZED_ACTIVITY_LOGGER);
        }
    });
    EXPECT_TRUE(child.exitedCleanly()) << child.status;
    EXPECT_EQ(child.failures, "");
    perfmarker::atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(dir / "scoped.amdtperfmarker", file));
    ASSERT_EQ(file.threads.size(), 1u);
    EXPECT_THAT(describe(file.threads[0]),
                ElementsAre("B outer|Default", "B Frame|Render|#123456", "B inner scoped|Default",
                            "E", "E", "E", "B guard|Default", "E"));
    EXPECT_THAT(file.warnings, IsEmpty());
}

TEST(markers_PublicAL, ProfilingControlWithoutAgentFailsToAttach) {
    TempDir dir;
    ChildResult child = runInChild([&](ChildReport& report) {
        for (int pass = 0; pass < 2; ++pass) {  // before and after initialization
            CHILD_EXPECT_EQ(amdtStopProfiling(AMDT_TRACE_PROFILING), AL_FAILED_TO_ATTACH_TO_PROFILER);
            CHILD_EXPECT_EQ(amdtResumeProfiling(AMDT_TRACE_PROFILING), AL_FAILED_TO_ATTACH_TO_PROFILER);
            CHILD_EXPECT_EQ(amdtStopProfiling(AMDT_PERF_COUNTER_PROFILING),
                            AL_FAILED_TO_ATTACH_TO_PROFILER);
            CHILD_EXPECT_EQ(amdtStopProfiling(AMDT_CPU_PROFILING), AL_FAILED_TO_ATTACH_TO_PROFILER);
            CHILD_EXPECT_EQ(amdtStopProfiling(AMDT_ALL_PROFILING), AL_FAILED_TO_ATTACH_TO_PROFILER);
            CHILD_EXPECT_EQ(amdtResumeProfiling(AMDT_ALL_PROFILING), AL_FAILED_TO_ATTACH_TO_PROFILER);
            CHILD_EXPECT_EQ(amdtStopProfilingEx(), AL_FAILED_TO_ATTACH_TO_PROFILER);
            CHILD_EXPECT_EQ(amdtResumeProfilingEx(), AL_FAILED_TO_ATTACH_TO_PROFILER);
            startSession(dir / "control");
            CHILD_EXPECT_EQ(amdtInitializeActivityLogger(), AL_SUCCESS);
        }
    });
    EXPECT_TRUE(child.exitedCleanly()) << child.status;
    EXPECT_EQ(child.failures, "");
}

TEST(markers_PublicAL, ProfilingControlReachesTheLoadedAgent) {
    TempDir dir;
    ChildResult child = runInChild([&](ChildReport& report) {
        void* agent = dlopen(PERFMARKER_TEST_AGENT_PATH, RTLD_NOW | RTLD_LOCAL);
        if (agent == nullptr) {
            report.fail(__LINE__, std::string("dlopen: ") + dlerror());
            return;
        }
        auto symbol = [&](const char* name) {
            void* p = dlsym(agent, name);
            if (p == nullptr) report.fail(__LINE__, std::string("missing ") + name);
            return p;
        };
        auto stopCalls = reinterpret_cast<int (*)()>(symbol("testAgentStopCalls"));
        auto resumeCalls = reinterpret_cast<int (*)()>(symbol("testAgentResumeCalls"));
        auto isPaused = reinterpret_cast<int (*)()>(symbol("perfmarkerAgentIsPaused"));
        auto setPaused = reinterpret_cast<void (*)(int)>(symbol("testAgentSetPaused"));
        if (!stopCalls || !resumeCalls || !isPaused || !setPaused) return;

        CHILD_EXPECT_EQ(amdtStopProfiling(AMDT_TRACE_PROFILING), AL_SUCCESS);
        CHILD_EXPECT_EQ(stopCalls(), 1);
        CHILD_EXPECT_EQ(isPaused(), 1);
        CHILD_EXPECT_EQ(amdtStopProfiling(AMDT_TRACE_PROFILING), AL_WARN_PROFILE_ALREADY_PAUSED);
        CHILD_EXPECT_EQ(stopCalls(), 1);  // not called again
        CHILD_EXPECT_EQ(amdtResumeProfiling(AMDT_TRACE_PROFILING), AL_SUCCESS);
        CHILD_EXPECT_EQ(resumeCalls(), 1);
        CHILD_EXPECT_EQ(isPaused(), 0);
        CHILD_EXPECT_EQ(amdtResumeProfiling(AMDT_TRACE_PROFILING), AL_WARN_PROFILE_ALREADY_RESUMED);
        CHILD_EXPECT_EQ(resumeCalls(), 1);

        // No agent for these kinds of profiling is loaded (and none exists for CPU profiling).
        CHILD_EXPECT_EQ(amdtStopProfiling(AMDT_PERF_COUNTER_PROFILING), AL_FAILED_TO_ATTACH_TO_PROFILER);
        CHILD_EXPECT_EQ(amdtStopProfiling(AMDT_CPU_PROFILING), AL_FAILED_TO_ATTACH_TO_PROFILER);
        CHILD_EXPECT_EQ(amdtStopProfilingEx(), AL_FAILED_TO_ATTACH_TO_PROFILER);
        CHILD_EXPECT_EQ(amdtResumeProfilingEx(), AL_FAILED_TO_ATTACH_TO_PROFILER);
        CHILD_EXPECT_EQ(stopCalls(), 1);
        CHILD_EXPECT_EQ(resumeCalls(), 1);

        // All kinds: the loaded trace agent obeys.
        CHILD_EXPECT_EQ(amdtStopProfiling(AMDT_ALL_PROFILING), AL_SUCCESS);
        CHILD_EXPECT_EQ(stopCalls(), 2);
        CHILD_EXPECT_EQ(amdtResumeProfiling(AMDT_ALL_PROFILING), AL_SUCCESS);
        CHILD_EXPECT_EQ(resumeCalls(), 2);

        // The agent's own state counts: one that paused itself is already paused.
        setPaused(1);
        CHILD_EXPECT_EQ(amdtStopProfiling(AMDT_TRACE_PROFILING), AL_WARN_PROFILE_ALREADY_PAUSED);
        CHILD_EXPECT_EQ(stopCalls(), 2);
        CHILD_EXPECT_EQ(amdtResumeProfiling(AMDT_TRACE_PROFILING), AL_SUCCESS);
        CHILD_EXPECT_EQ(resumeCalls(), 3);

        // Markers are still recorded while tracing is paused.
        startSession(dir / "paused");
        CHILD_EXPECT_EQ(amdtInitializeActivityLogger(), AL_SUCCESS);
        CHILD_EXPECT_EQ(amdtStopProfiling(AMDT_TRACE_PROFILING), AL_SUCCESS);
        CHILD_EXPECT_EQ(amdtBeginMarker("while paused", nullptr, nullptr), AL_SUCCESS);
        CHILD_EXPECT_EQ(amdtEndMarker(), AL_SUCCESS);
        CHILD_EXPECT_EQ(amdtResumeProfiling(AMDT_TRACE_PROFILING), AL_SUCCESS);
        CHILD_EXPECT_EQ(amdtFinalizeActivityLogger(), AL_SUCCESS);
        CHILD_EXPECT_EQ(stopCalls(), 3);
        CHILD_EXPECT_EQ(resumeCalls(), 4);
    });
    EXPECT_TRUE(child.exitedCleanly()) << child.status;
    EXPECT_EQ(child.failures, "");
    perfmarker::atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(dir / "paused.amdtperfmarker", file));
    ASSERT_EQ(file.threads.size(), 1u);
    EXPECT_THAT(describe(file.threads[0]), ElementsAre("B while paused|Default", "E"));
}

// A crash keeps what the interval timer flushed: the fragments can be merged afterwards.
TEST(markers_PublicAL, CrashKeepsWhatWasFlushed) {
    TempDir dir;
    ChildResult child = runInChild([&](ChildReport& report) {
        startSession(dir / "crash", "timeout", "20");
        CHILD_EXPECT_EQ(amdtInitializeActivityLogger(), AL_SUCCESS);
        for (int i = 0; i < 50; ++i) {
            CHILD_EXPECT_EQ(amdtBeginMarker("before crash", "G", "#ff0000"), AL_SUCCESS);
            CHILD_EXPECT_EQ(amdtEndMarker(), AL_SUCCESS);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        const rlimit noCore{0, 0};
        setrlimit(RLIMIT_CORE, &noCore);
        std::abort();
    });
    EXPECT_TRUE(WIFSIGNALED(child.status) && WTERMSIG(child.status) == SIGABRT) << child.status;
    EXPECT_EQ(child.failures, "");
    std::vector<std::string> names;
    EXPECT_GE(readFragments(dir.path(), child.pid, "amdtperfmarker", names), 100u);
    EXPECT_EQ(std::count(names.begin(), names.end(), "before crash"), 50);
    EXPECT_FALSE(perfmarker::record::listFragments(dir.path(), child.pid, "amdtperfmarker").empty());
    for (const std::string& name : listDir(dir.path())) {
        const std::string suffix = ".amdtperfmarker.frag";  // fragments only, no output file
        EXPECT_TRUE(name.size() > suffix.size() &&
                    name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
            << name;
    }
}

TEST(markers_PublicAL, ExitWithoutFinalizeKeepsEveryMarkerInFragments) {
    TempDir dir;
    ChildResult child = runInChild([&](ChildReport& report) {
        startSession(dir / "exit", "timeout", "3600000");
        CHILD_EXPECT_EQ(amdtInitializeActivityLogger(), AL_SUCCESS);
        for (int i = 0; i < 40; ++i) {
            CHILD_EXPECT_EQ(amdtBeginMarker("main", nullptr, "u"), AL_SUCCESS);
            CHILD_EXPECT_EQ(amdtEndMarkerEx("main done", nullptr, nullptr), AL_SUCCESS);
        }
        std::exit(0);
    });
    EXPECT_TRUE(child.exitedCleanly()) << child.status;
    EXPECT_EQ(child.failures, "");
    std::vector<std::string> names;
    EXPECT_EQ(readFragments(dir.path(), child.pid, "amdtperfmarker", names), 80u);
    EXPECT_EQ(std::count(names.begin(), names.end(), "main"), 40);
}

// ---- threads ---------------------------------------------------------------------------------

// Initialization from several threads at once is harmless, and every thread's markers are kept.
TEST(markers_PublicBoth, ConcurrentInitializeAndRecording) {
    TempDir dir;
    constexpr int kThreads = 4;
    ChildResult child = runInChild([&](ChildReport& report) {
        startSession(dir / "threads", "timeout", "5");
        std::atomic<int> ready{0};
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) {
            threads.emplace_back([&, t] {
                ready.fetch_add(1);
                while (ready.load() < kThreads) std::this_thread::yield();
                CHILD_EXPECT_EQ(clInitializePerfMarkerAMD(), AP_SUCCESS);
                CHILD_EXPECT_EQ(amdtInitializeActivityLogger(), AL_SUCCESS);
                const std::string name = "thread " + std::to_string(t);
                for (int i = 0; i < 100; ++i) {
                    CHILD_EXPECT_EQ(clBeginPerfMarkerAMD(name.c_str(), "cl"), AP_SUCCESS);
                    CHILD_EXPECT_EQ(amdtBeginMarker(name.c_str(), "al", nullptr), AL_SUCCESS);
                    CHILD_EXPECT_EQ(amdtEndMarker(), AL_SUCCESS);
                    CHILD_EXPECT_EQ(clEndPerfMarkerAMD(), AP_SUCCESS);
                }
            });
        }
        for (auto& t : threads) t.join();
        CHILD_EXPECT_EQ(clFinalizePerfMarkerAMD(), AP_SUCCESS);
        CHILD_EXPECT_EQ(amdtFinalizeActivityLogger(), AL_SUCCESS);
    });
    EXPECT_TRUE(child.exitedCleanly()) << child.status;
    EXPECT_EQ(child.failures, "");
    for (const char* ext : {"clperfmarker", "amdtperfmarker"}) {
        perfmarker::atp::PerfmarkerFile file;
        ASSERT_TRUE(parseFile(dir / (std::string("threads.") + ext), file));
        EXPECT_EQ(file.threads.size(), static_cast<size_t>(kThreads)) << ext;
        for (const auto& thread : file.threads) EXPECT_EQ(thread.markers.size(), 200u) << ext;
        EXPECT_THAT(file.warnings, IsEmpty());
    }
}

// ---- both libraries in one process ----------------------------------------------------------

TEST(markers_PublicBoth, LibrariesKeepSeparateSessions) {
    TempDir dir;
    ChildResult child = runInChild([&](ChildReport& report) {
        startSession(dir / "both", "timeout", "10");
        CHILD_EXPECT_EQ(clInitializePerfMarkerAMD(), AP_SUCCESS);
        CHILD_EXPECT_EQ(amdtInitializeActivityLogger(), AL_SUCCESS);
        CHILD_EXPECT_EQ(clBeginPerfMarkerAMD("cl marker", "CLG"), AP_SUCCESS);
        CHILD_EXPECT_EQ(amdtBeginMarker("al marker", "ALG", "u"), AL_SUCCESS);
        CHILD_EXPECT_EQ(clEndPerfMarkerAMD(), AP_SUCCESS);
        CHILD_EXPECT_EQ(amdtEndMarker(), AL_SUCCESS);
        CHILD_EXPECT_EQ(amdtEndMarker(), AL_UNBALANCED_MARKER);
        CHILD_EXPECT_EQ(clEndPerfMarkerAMD(), AP_UNBALANCED_MARKER);
        CHILD_EXPECT_EQ(clFinalizePerfMarkerAMD(), AP_SUCCESS);
        CHILD_EXPECT_EQ(amdtBeginMarker("al after cl finalize", nullptr, nullptr), AL_SUCCESS);
        CHILD_EXPECT_EQ(amdtEndMarker(), AL_SUCCESS);
        CHILD_EXPECT_EQ(amdtFinalizeActivityLogger(), AL_SUCCESS);
    });
    EXPECT_TRUE(child.exitedCleanly()) << child.status;
    EXPECT_EQ(child.failures, "");
    EXPECT_THAT(listDir(dir.path()), ElementsAre("both.amdtperfmarker", "both.clperfmarker"));
    perfmarker::atp::PerfmarkerFile cl;
    ASSERT_TRUE(parseFile(dir / "both.clperfmarker", cl));
    ASSERT_EQ(cl.threads.size(), 1u);
    EXPECT_THAT(describe(cl.threads[0]), ElementsAre("B cl marker|CLG", "E"));
    perfmarker::atp::PerfmarkerFile al;
    ASSERT_TRUE(parseFile(dir / "both.amdtperfmarker", al));
    ASSERT_EQ(al.threads.size(), 1u);
    EXPECT_THAT(describe(al.threads[0]),
                ElementsAre("B al marker|ALG|u", "E", "B al after cl finalize|Default", "E"));
}

}  // namespace
