// Unit tests of the marker core (src/markers/marker_core.h): the hot path across threads, the
// memory cap, and finalize racing with recording threads. Helpers and the CoreTest fixture are
// in markers_core_support.h.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "markers_core_support.h"

namespace perfmarker::markers {
namespace {

using namespace core_test;

// ---- threads -------------------------------------------------------------------------------

TEST_P(CoreTest, ThreadsThatExitBeforeFinalizeKeepTheirMarkers) {
    for (const char* mode : {"cached", "timeout"}) {
        SCOPED_TRACE(mode);
        TempDir out;
        setEnv("PERFMARKER_OUTPUT", out.path() + "/out");
        setEnv("PERFMARKER_MODE", mode);
        setEnv("PERFMARKER_INTERVAL_MS", "5");
        MarkerCore core(flavor(), fakeLookup);
        ASSERT_EQ(core.initialize(), kSuccess);
        std::vector<uint64_t> tids;
        for (int t = 0; t < 3; ++t) {
            std::thread worker([&, t] {
                tids.push_back(currentTid());
                for (int j = 0; j < 5; ++j) {
                    const std::string name = "t" + std::to_string(t) + "-" + std::to_string(j);
                    EXPECT_EQ(core.begin(name.c_str(), "workers", nullptr), kSuccess);
                    EXPECT_EQ(core.end(), kSuccess);
                }
            });
            worker.join();
            // Let the writer notice the exit and retire the thread before the next one.
            std::this_thread::sleep_for(std::chrono::milliseconds(t == 0 ? 30 : 0));
        }
        ASSERT_EQ(core.finalize(), kSuccess);
        atp::PerfmarkerFile file;
        ASSERT_TRUE(parseFile(out.path() + "/out." + ext(), file));
        ASSERT_EQ(tids.size(), 3u);
        if (tids[0] == tids[1] || tids[1] == tids[2] || tids[0] == tids[2]) {
            GTEST_SKIP() << "the kernel reused a thread id; blocks are merged by tid";
        }
        EXPECT_EQ(file.threads.size(), 3u);
        for (int t = 0; t < 3; ++t) {
            std::vector<std::string> expected;
            for (int j = 0; j < 5; ++j) {
                expected.push_back("B t" + std::to_string(t) + "-" + std::to_string(j) +
                                   "|workers");
                expected.push_back("E");
            }
            const atp::ThreadMarkers* thread = findThread(file, tids[t]);
            ASSERT_NE(thread, nullptr) << tids[t];
            EXPECT_EQ(describe(*thread), expected);
        }
        EXPECT_THAT(file.warnings, IsEmpty());
    }
}

TEST_P(CoreTest, ManyThreadsCountsAreExact) {
    constexpr int kThreads = 8;
    const int pairs = 10000 / kLoopScale;
    setEnv("PERFMARKER_INTERVAL_MS", "5");
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    std::vector<uint64_t> tids(kThreads);
    std::atomic<int> ready{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            tids[t] = currentTid();
            const std::string name = "worker " + std::to_string(t);
            ready.fetch_add(1);
            while (ready.load() < kThreads) std::this_thread::yield();
            int failures = 0;
            for (int i = 0; i < pairs; ++i) {
                failures += core.begin(name.c_str(), "many", nullptr) != kSuccess;
                failures += core.end() != kSuccess;
            }
            EXPECT_EQ(failures, 0);
        });
    }
    for (auto& t : threads) t.join();
    ASSERT_EQ(core.finalize(), kSuccess);

    atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(outFile(), file));
    EXPECT_THAT(file.warnings, IsEmpty());
    ASSERT_EQ(file.threads.size(), static_cast<size_t>(kThreads));
    for (int t = 0; t < kThreads; ++t) {
        const atp::ThreadMarkers* thread = findThread(file, tids[t]);
        ASSERT_NE(thread, nullptr);
        ASSERT_EQ(thread->markers.size(), static_cast<size_t>(2 * pairs));
        const std::string name = "worker " + std::to_string(t);
        int wrong = 0;
        for (size_t i = 0; i < thread->markers.size(); ++i) {
            const atp::Marker& m = thread->markers[i];
            if (i % 2 == 0) {
                wrong += m.kind != atp::MarkerKind::Begin || m.name != name || m.group != "many";
            } else {
                wrong += m.kind != atp::MarkerKind::End;
            }
        }
        EXPECT_EQ(wrong, 0) << name;
    }
}

// Threads whose records fill a chunk every few calls hand chunks to the writer all the time,
// and some records need a chunk of their own (freed, not pooled, once written): every record
// must still land in its own thread's block, whole and in order.
TEST_P(CoreTest, ThreadsRotatingChunksKeepTheirOwnRecords) {
    constexpr int kThreads = 4;
    const int iterations = 400 / kLoopScale;
    setEnv("PERFMARKER_INTERVAL_MS", "1");
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    std::vector<uint64_t> tids(kThreads);
    std::vector<std::thread> threads;
    std::atomic<int> ready{0};
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            tids[t] = currentTid();
            // ~2 KB records: a 64 KB chunk holds about 30 of them.
            const std::string name = "thread " + std::to_string(t) + std::string(2000, 'a' + t);
            const std::string oversize = "oversize " + std::to_string(t) + std::string(70000, 'o');
            ready.fetch_add(1);
            while (ready.load() < kThreads) std::this_thread::yield();
            int failures = 0;
            for (int i = 0; i < iterations; ++i) {
                const bool big = i % 40 == 0;
                failures +=
                    core.begin(big ? oversize.c_str() : name.c_str(), nullptr, nullptr) != kSuccess;
                failures += core.end() != kSuccess;
            }
            EXPECT_EQ(failures, 0);
        });
    }
    for (auto& t : threads) t.join();
    ASSERT_EQ(core.finalize(), kSuccess);

    atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(outFile(), file));
    EXPECT_THAT(file.warnings, IsEmpty());
    ASSERT_EQ(file.threads.size(), static_cast<size_t>(kThreads));
    for (int t = 0; t < kThreads; ++t) {
        SCOPED_TRACE("thread " + std::to_string(t));
        const atp::ThreadMarkers* thread = findThread(file, tids[t]);
        ASSERT_NE(thread, nullptr);
        ASSERT_EQ(thread->markers.size(), static_cast<size_t>(2 * iterations));
        const std::string name = "thread " + std::to_string(t) + std::string(2000, 'a' + t);
        const std::string oversize = "oversize " + std::to_string(t) + std::string(70000, 'o');
        int wrong = 0;
        for (int i = 0; i < iterations; ++i) {
            const atp::Marker& b = thread->markers[2 * i];
            wrong += b.kind != atp::MarkerKind::Begin || b.name != (i % 40 == 0 ? oversize : name);
            wrong += thread->markers[2 * i + 1].kind != atp::MarkerKind::End;
        }
        EXPECT_EQ(wrong, 0);
    }
}

// At the memory cap a thread waits for the writer to recycle a chunk: nothing is dropped and
// the cap holds.
TEST_P(CoreTest, MemoryCapMakesThreadsWaitInsteadOfDropping) {
    constexpr int kThreads = 4;
    const int pairs = PERFMARKER_TEST_SANITIZED ? 400 : 800;  // 1.7 / 3.4 MB of records
    for (const char* mode : {"cached", "timeout"}) {
        SCOPED_TRACE(mode);
        TempDir out;
        setEnv("PERFMARKER_OUTPUT", out.path() + "/out");
        setEnv("PERFMARKER_MODE", mode);
        setEnv("PERFMARKER_INTERVAL_MS", "2");
        setEnv("PERFMARKER_MAX_MEMORY_MB", "1");
        MarkerCore core(flavor(), fakeLookup);
        ASSERT_EQ(core.initialize(), kSuccess);
        std::vector<uint64_t> tids(kThreads);
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) {
            threads.emplace_back([&, t] {
                tids[t] = currentTid();
                const std::string name = std::to_string(t) + std::string(1000, 'c');
                int failures = 0;
                for (int i = 0; i < pairs; ++i) {
                    failures += core.begin(name.c_str(), nullptr, nullptr) != kSuccess;
                    failures += core.end() != kSuccess;
                }
                EXPECT_EQ(failures, 0);
            });
        }
        for (auto& t : threads) t.join();
        // The cap is checked, not reserved: threads allocating at the same moment may each
        // pass it by one chunk (64 KB plus its header).
        EXPECT_LE(core.recorder()->allocatedBytes(), (size_t{1} << 20) + kThreads * 65600);
        ASSERT_EQ(core.finalize(), kSuccess);
        atp::PerfmarkerFile file;
        ASSERT_TRUE(parseFile(out.path() + "/out." + ext(), file));
        ASSERT_EQ(file.threads.size(), static_cast<size_t>(kThreads));
        for (int t = 0; t < kThreads; ++t) {
            const atp::ThreadMarkers* thread = findThread(file, tids[t]);
            ASSERT_NE(thread, nullptr);
            EXPECT_EQ(thread->markers.size(), static_cast<size_t>(2 * pairs));
        }
    }
}

// With a small cap, every chunk can be the current chunk of some idle thread, and the writer
// can recycle none of them. A new thread must still get its first chunk (or a clean
// out-of-memory code), never wait forever.
TEST_P(CoreTest, MemoryCapDoesNotBlockANewThreadForever) {
    setEnv("PERFMARKER_MODE", "cached");
    setEnv("PERFMARKER_MAX_MEMORY_MB", "1");  // 15 chunks of 64 KB
    const Flavor fl = flavor();
    ChildResult child = runInChild([&](ChildReport& report) {
        alarm(5);  // a hang ends the child with SIGALRM
        MarkerCore core(fl, fakeLookup);
        CHILD_EXPECT_EQ(report, core.initialize(), kSuccess);
        constexpr int kThreads = 24;
        std::atomic<int> done{0};
        std::atomic<bool> release{false};
        std::vector<std::thread> threads;
        for (int i = 0; i < kThreads; ++i) {
            threads.emplace_back([&] {
                const int code = core.begin("idle", nullptr, nullptr);
                if (code != kSuccess && code != kOutOfMemory) report.fail(__LINE__, "begin");
                if (code == kSuccess) CHILD_EXPECT_EQ(report, core.end(), kSuccess);
                done.fetch_add(1);
                while (!release.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
            });
        }
        while (done.load() < kThreads) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        release.store(true);
        for (auto& t : threads) t.join();
        CHILD_EXPECT_EQ(report, core.finalize(), kSuccess);
    });
    EXPECT_TRUE(child.exitedCleanly()) << "status " << child.status;
    EXPECT_EQ(child.failures, "");
}

TEST_P(CoreTest, FinalizeRacingWithRecordingThreads) {
    constexpr int kRacers = 4;
    setEnv("PERFMARKER_INTERVAL_MS", "2");
    MarkerCore core(flavor(), fakeLookup);
    ASSERT_EQ(core.initialize(), kSuccess);
    struct Racer {
        uint64_t tid = 0;
        uint64_t successes = 0;
        int unexpected = 0;
    };
    std::vector<Racer> racers(kRacers);
    std::atomic<int> warmedUp{0};
    std::vector<std::thread> threads;
    for (int k = 0; k < kRacers; ++k) {
        threads.emplace_back([&, k] {
            Racer& r = racers[k];
            r.tid = currentTid();
            const std::string name = "racer " + std::to_string(k) + " &";
            for (uint64_t i = 0;; ++i) {
                if (i == 200) warmedUp.fetch_add(1);
                // Nest every other pair so ends and begins alternate unevenly.
                int code = core.begin(name.c_str(), nullptr, nullptr);
                if (code == kFinalized) break;
                r.unexpected += code != kSuccess;
                r.successes += code == kSuccess;
                if (i % 2 == 0) {
                    code = core.begin(name.c_str(), nullptr, nullptr);
                    if (code == kFinalized) break;
                    r.unexpected += code != kSuccess;
                    r.successes += code == kSuccess;
                    code = core.end();
                    if (code == kFinalized) break;
                    r.unexpected += code != kSuccess;
                    r.successes += code == kSuccess;
                }
                code = core.end();
                if (code == kFinalized) break;
                r.unexpected += code != kSuccess;
                r.successes += code == kSuccess;
            }
        });
    }
    while (warmedUp.load() < kRacers) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    ::testing::internal::CaptureStderr();
    const int code = core.finalize();
    for (auto& t : threads) t.join();
    const std::string err = ::testing::internal::GetCapturedStderr();
    ASSERT_EQ(code, kSuccess);

    atp::PerfmarkerFile file;
    ASSERT_TRUE(parseFile(outFile(), file));  // every line whole, every block count right
    ASSERT_EQ(file.threads.size(), static_cast<size_t>(kRacers));
    for (int k = 0; k < kRacers; ++k) {
        SCOPED_TRACE("racer " + std::to_string(k));
        const Racer& r = racers[k];
        EXPECT_EQ(r.unexpected, 0);
        const atp::ThreadMarkers* thread = findThread(file, r.tid);
        ASSERT_NE(thread, nullptr);
        const std::string name = "racer " + std::to_string(k) + " &";
        // Every call that succeeded is in the file; the one call in flight while finalize began
        // reported the finalized code, and its record may or may not be there.
        EXPECT_GE(thread->markers.size(), r.successes);
        EXPECT_LE(thread->markers.size(), r.successes + 1);
        int depth = 0;
        int wrong = 0;
        for (const atp::Marker& m : thread->markers) {
            if (m.kind == atp::MarkerKind::Begin) {
                ++depth;
                wrong += m.name != name || m.group != "Default";
            } else {
                --depth;
                wrong += m.kind != atp::MarkerKind::End || depth < 0;
            }
        }
        EXPECT_EQ(wrong, 0);
        const std::string tid = std::to_string(r.tid);
        bool warned = false;
        for (const std::string& w : file.warnings) {
            warned = warned ||
                     w.find("unbalanced perf markers in thread " + tid + ":") != std::string::npos;
        }
        EXPECT_EQ(warned, depth != 0);
        EXPECT_EQ(err.find("[Thread " + tid + "] Unbalanced") != std::string::npos, depth != 0)
            << err;
    }
}

// Linearizable finalize (docs/session.md#finalize-and-recording-threads): 8 threads record while
// finalize runs when they are 1-7% through their work, 20 runs in each mode. Every call that
// returned success is in the file, in its order; a call that did not (it lost the race and got
// the finalized code) adds at most one record per thread.
TEST_P(CoreTest, EverySuccessfulCallIsInTheFileWhateverFinalizeRacesWith) {
    constexpr int kThreads = 8;
    constexpr uint64_t kPlanned = 20000;  // calls per thread if finalize never came
    for (const char* mode : {"cached", "timeout"}) {
        for (int run = 0; run < 20; ++run) {
            SCOPED_TRACE(std::string(mode) + " run " + std::to_string(run));
            setEnv("PERFMARKER_MODE", mode);
            setEnv("PERFMARKER_INTERVAL_MS", "1");
            MarkerCore core(flavor(), fakeLookup);
            ASSERT_EQ(core.initialize(), kSuccess);
            std::vector<uint64_t> tids(kThreads);
            std::vector<uint64_t> succeeded(kThreads);  // calls that returned success, in order
            std::atomic<uint64_t> progress{0};
            std::atomic<bool> finalized{false};
            std::vector<std::thread> threads;
            for (int k = 0; k < kThreads; ++k) {
                threads.emplace_back([&, k] {
                    tids[k] = currentTid();
                    for (uint64_t i = 0; i < kPlanned; ++i) {
                        const int code =
                            i % 2 == 0 ? core.begin("m", nullptr, nullptr) : core.end();
                        if (code != kSuccess) break;
                        succeeded[k] = i + 1;
                        progress.fetch_add(1, std::memory_order_relaxed);
                    }
                    // A thread that is done stays until finalize returns: this test is about
                    // recording threads, not threads that end before finalize (a slow machine
                    // can let a thread finish all its calls first).
                    while (!finalized.load()) std::this_thread::yield();
                });
            }
            const uint64_t at = kThreads * kPlanned * static_cast<uint64_t>(1 + run % 7) / 100;
            while (progress.load(std::memory_order_relaxed) < at) std::this_thread::yield();
            ::testing::internal::CaptureStderr();
            const int finalizeCode = core.finalize();
            finalized.store(true);
            for (auto& t : threads) t.join();
            const std::string said = ::testing::internal::GetCapturedStderr();
            ASSERT_EQ(finalizeCode, kSuccess) << said;

            atp::PerfmarkerFile file;
            ASSERT_TRUE(parseFile(outFile(), file));
            for (int k = 0; k < kThreads; ++k) {
                const atp::ThreadMarkers* thread = findThread(file, tids[k]);
                const size_t inFile = thread == nullptr ? 0 : thread->markers.size();
                EXPECT_GE(inFile, succeeded[k]) << "thread " << k << "; finalize said: " << said;
                EXPECT_LE(inFile, succeeded[k] + 1) << "thread " << k;
                for (size_t i = 0; thread != nullptr && i < inFile; ++i) {
                    const auto expected =
                        i % 2 == 0 ? atp::MarkerKind::Begin : atp::MarkerKind::End;
                    ASSERT_EQ(thread->markers[i].kind, expected)
                        << "thread " << k << " record " << i;
                }
            }
            ASSERT_EQ(unlink(outFile().c_str()), 0);
        }
    }
}

}  // namespace
}  // namespace perfmarker::markers
