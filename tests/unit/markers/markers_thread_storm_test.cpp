// Threads through the public API: thousands of short-lived ones under a small memory cap
// (docs/session.md#memory): every pair is written, and the session's peak memory stays within
// 32 MB of the same run without a session. Each run is a forked child; both children start from
// the same parent, so their peak resident sizes share one baseline.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "CLPerfMarker.h"
#include "atp/format/perfmarker_section.h"
#include "marker_test_support.h"
#include "sanitizers.h"

namespace {

using perfmarker::test::ChildReport;
using perfmarker::test::ChildResult;
using perfmarker::test::runInChild;
using perfmarker::test::TempDir;

constexpr bool kSanitized = PERFMARKER_TEST_SANITIZED;

constexpr int kThreads = kSanitized ? 400 : 4000;
constexpr int kPairs = 100;
constexpr int kWave = 16;  // threads alive at once

// Runs the storm in a child, with a session when `base` is not empty; returns the child's peak
// resident size in kB (0 when it failed).
long stormPeakKb(const std::string& base, const std::string& rssFile) {
    ChildResult child = runInChild([&](ChildReport& report) {
        alarm(120);
        if (!base.empty()) {
            setenv("PERFMARKER_OUTPUT", base.c_str(), 1);
            setenv("PERFMARKER_MODE", "timeout", 1);
            setenv("PERFMARKER_MAX_MEMORY_MB", "16", 1);
            if (clInitializePerfMarkerAMD() != AP_SUCCESS) report.fail(__LINE__, "initialize");
        }
        for (int done = 0; done < kThreads; done += kWave) {
            std::vector<std::thread> wave;
            for (int i = 0; i < kWave; ++i) {
                wave.emplace_back([] {
                    for (int p = 0; p < kPairs; ++p) {
                        clBeginPerfMarkerAMD("storm", "threads");
                        clEndPerfMarkerAMD();
                    }
                });
            }
            for (auto& t : wave) t.join();
        }
        if (!base.empty() && clFinalizePerfMarkerAMD() != AP_SUCCESS) {
            report.fail(__LINE__, "finalize");
        }
        rusage usage{};
        getrusage(RUSAGE_SELF, &usage);
        std::ofstream(rssFile) << usage.ru_maxrss << "\n";
    });
    EXPECT_TRUE(child.exitedCleanly()) << child.status;
    EXPECT_EQ(child.failures, "");
    long kb = 0;
    std::ifstream(rssFile) >> kb;
    return kb;
}

TEST(markers_ThreadStorm, EveryPairWrittenAndMemoryBoundedUnderTheCap) {
    TempDir dir;
    const long without = stormPeakKb("", dir / "rss-without");
    const long with = stormPeakKb(dir / "storm", dir / "rss-with");
    ASSERT_GT(without, 0);
    ASSERT_GT(with, 0);
    std::printf("peak resident: %ld kB without a session, %ld kB with (%d threads x %d pairs)\n",
                without, with, kThreads, kPairs);
    if (!kSanitized) {  // sanitizers keep shadow memory and freed blocks
        EXPECT_LE(with - without, 32 * 1024);
    }
    perfmarker::atp::PerfmarkerFile file;
    std::string error;
    ASSERT_TRUE(perfmarker::atp::readPerfmarkerFile(dir / "storm.clperfmarker", file, error))
        << error;
    size_t begins = 0;
    size_t ends = 0;
    for (const auto& thread : file.threads) {
        for (const auto& m : thread.markers) {
            (m.kind == perfmarker::atp::MarkerKind::Begin ? begins : ends) += 1;
        }
    }
    EXPECT_EQ(begins, size_t{kThreads} * kPairs);
    EXPECT_EQ(ends, size_t{kThreads} * kPairs);
}

}  // namespace

namespace {

// The main thread's thread_local objects are destroyed first in exit(), before the atexit
// handlers: a handler registered after initialize still records, and its finalize writes all.
void recordAndFinalizeAtExit() {
    const bool ok = clBeginPerfMarkerAMD("at exit", "late") == AP_SUCCESS &&
                    clEndPerfMarkerAMD() == AP_SUCCESS && clFinalizePerfMarkerAMD() == AP_SUCCESS;
    if (!ok) _exit(3);
}

TEST(markers_ThreadStorm, MainThreadRecordsInAtexitHandlers) {
    TempDir dir;
    ChildResult child = runInChild([&](ChildReport& report) {
        setenv("PERFMARKER_OUTPUT", (dir / "late").c_str(), 1);
        setenv("PERFMARKER_MODE", "timeout", 1);
        if (clInitializePerfMarkerAMD() != AP_SUCCESS) report.fail(__LINE__, "initialize");
        if (clBeginPerfMarkerAMD("in main", nullptr) != AP_SUCCESS) report.fail(__LINE__, "begin");
        if (clEndPerfMarkerAMD() != AP_SUCCESS) report.fail(__LINE__, "end");
        std::atexit(recordAndFinalizeAtExit);
        std::exit(0);
    });
    EXPECT_TRUE(child.exitedCleanly()) << child.status;
    EXPECT_EQ(child.failures, "");
    perfmarker::atp::PerfmarkerFile file;
    std::string error;
    ASSERT_TRUE(perfmarker::atp::readPerfmarkerFile(dir / "late.clperfmarker", file, error))
        << error;
    std::vector<std::string> names;
    for (const auto& thread : file.threads) {
        for (const auto& m : thread.markers) {
            if (m.kind == perfmarker::atp::MarkerKind::Begin) names.push_back(m.name);
        }
    }
    EXPECT_EQ(names, (std::vector<std::string>{"in main", "at exit"}));
}

}  // namespace
