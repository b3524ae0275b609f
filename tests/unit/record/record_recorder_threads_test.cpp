// The per-thread recorder: rotation under many threads, thread exit, fork, and stop racing with
// appends. Helpers and the RecorderModeTest fixture, instantiated here for every
// record_recorder_*_test.cpp, are in record_recorder_support.h.
#include "record_recorder_support.h"
#include "sanitizers.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace perfmarker::record {
namespace {

using namespace recorder_test;

// ---- many threads ---------------------------------------------------------------------------

std::string payloadFor(size_t thread, size_t seq) {
    return std::string(seq % 53, static_cast<char>('a' + (thread + seq) % 26));
}

TEST_P(RecorderModeTest, ManyThreadsSmallChunks) {
    TempDir dir;
    constexpr size_t kThreads = 8;
    const size_t perThread = scaled(20000, 2500);
    Recorder rec(options(GetParam(), dir.path(), 4096));

    std::vector<uint64_t> tids(kThreads, 0);
    std::atomic<size_t> ready{0};
    std::atomic<size_t> failures{0};
    std::vector<std::thread> threads;
    for (size_t t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            tids[t] = gettidNow();
            ThreadLog* log = rec.threadLog();
            // All threads are alive together, so their tids are distinct.
            ready.fetch_add(1);
            while (ready.load() < kThreads) std::this_thread::yield();
            if (log == nullptr) {
                failures.fetch_add(1);
                return;
            }
            for (size_t i = 0; i < perThread; ++i) {
                const std::string s0 = "t" + std::to_string(t) + ":" + std::to_string(i);
                if (!rec.append(log, static_cast<RecordKind>(1 + i % 3), rec.now(), s0,
                                payloadFor(t, i), i % 5 == 0 ? "five" : "")) {
                    failures.fetch_add(1);
                }
            }
        });
    }
    for (auto& th : threads) th.join();
    ASSERT_EQ(failures.load(), 0u);

    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    ASSERT_EQ(c.recs.size(), kThreads * perThread);
    ASSERT_EQ(c.groups.size(), kThreads);

    std::vector<size_t> next(kThreads, 0);
    std::vector<uint64_t> lastTime(kThreads, 0);
    for (const Rec& r : c.recs) {
        const size_t colon = r.s0.find(':');
        ASSERT_EQ(r.s0[0], 't');
        ASSERT_NE(colon, std::string::npos) << r.s0;
        const size_t t = std::stoul(r.s0.substr(1, colon - 1));
        const size_t seq = std::stoul(r.s0.substr(colon + 1));
        ASSERT_LT(t, kThreads);
        ASSERT_EQ(r.tid, tids[t]) << r.s0;
        ASSERT_EQ(seq, next[t]) << "thread " << t << " out of order or duplicated";
        ASSERT_EQ(r.kind, static_cast<RecordKind>(1 + seq % 3));
        ASSERT_EQ(r.s1, payloadFor(t, seq));
        ASSERT_EQ(r.s2, seq % 5 == 0 ? "five" : "");
        ASSERT_GE(r.time, lastTime[t]);
        lastTime[t] = r.time;
        ++next[t];
    }
    for (size_t t = 0; t < kThreads; ++t) {
        EXPECT_EQ(next[t], perThread) << "thread " << t;
    }
}

// The names of this process's threads (/proc/self/task/<tid>/comm).
std::vector<std::string> threadNames() {
    std::vector<std::string> names;
    for (const auto& task : fs::directory_iterator("/proc/self/task")) {
        std::ifstream in(task.path() / "comm");
        std::string name;
        if (std::getline(in, name)) names.push_back(name);
    }
    return names;
}

// The writer thread starts with the first thread that records, under its own name, and is gone
// once the recorder stopped.
TEST_P(RecorderModeTest, TheWriterThreadHasItsName) {
    TempDir dir;
    const auto writers = [] {
        const auto names = threadNames();
        return std::count(names.begin(), names.end(), std::string(kWriterThreadName));
    };
    const auto before = writers();
    Recorder rec(options(GetParam(), dir.path(), 4096));
    EXPECT_EQ(writers(), before);
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    ASSERT_TRUE(rec.append(log, RecordKind::MarkerBegin, rec.now(), "named"));
    // pthread_setname_np runs on the writer itself, just after it starts.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (writers() == before && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    EXPECT_EQ(writers(), before + 1);
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    EXPECT_EQ(c.recs.size(), 1u);
    EXPECT_EQ(writers(), before);
}

TEST_P(RecorderModeTest, ExitedThreadsKeepTheirRecords) {
    TempDir dir;
    const size_t perThread = scaled(3000, 1000);
    Recorder rec(options(GetParam(), dir.path(), 4096));
    std::vector<uint64_t> tids;
    std::atomic<size_t> failures{0};
    auto work = [&](size_t t) {
        ThreadLog* log = rec.threadLog();
        if (log == nullptr) {
            failures.fetch_add(1);
            return;
        }
        for (size_t i = 0; i < perThread; ++i) {
            if (!rec.append(log, RecordKind::MarkerBegin, rec.now(),
                            "x" + std::to_string(t) + ":" + std::to_string(i))) {
                failures.fetch_add(1);
            }
        }
    };
    // Three threads one after another, then three at once; all gone before stop().
    for (size_t t = 0; t < 3; ++t) {
        uint64_t tid = 0;
        std::thread th([&, t] {
            tid = gettidNow();
            work(t);
        });
        th.join();
        tids.push_back(tid);
    }
    {
        std::vector<std::thread> threads;
        std::vector<uint64_t> concurrentTids(3, 0);
        for (size_t t = 3; t < 6; ++t) {
            threads.emplace_back([&, t] {
                concurrentTids[t - 3] = gettidNow();
                work(t);
            });
        }
        for (auto& th : threads) th.join();
        tids.insert(tids.end(), concurrentTids.begin(), concurrentTids.end());
    }
    ASSERT_EQ(failures.load(), 0u);
    // Exited threads are retired once all of their records are flushed (a batch the writer
    // thread has taken off the queue may land after this flush: retry for a while).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
    rec.flushNow();
    while (rec.threadCount() != 0 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        rec.flushNow();
    }
    EXPECT_EQ(rec.threadCount(), 0u);

    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    ASSERT_EQ(c.recs.size(), 6 * perThread);
    std::vector<size_t> next(6, 0);
    for (const Rec& r : c.recs) {
        const size_t colon = r.s0.find(':');
        ASSERT_NE(colon, std::string::npos);
        const size_t t = std::stoul(r.s0.substr(1, colon - 1));
        ASSERT_LT(t, 6u);
        ASSERT_EQ(r.tid, tids[t]);
        ASSERT_EQ(std::stoul(r.s0.substr(colon + 1)), next[t]);
        ++next[t];
    }
}

TEST_P(RecorderModeTest, FlushNowRacesWithWriterAndAppends) {
    // flushNow() (the public flush) runs while the writer thread takes sealed chunks off the
    // queue: every record is still delivered once, in order.
    TempDir dir;
    constexpr size_t kThreads = 3;
    const size_t perThread = scaled(40000, 6000);
    RecorderOptions o = options(GetParam(), dir.path(), 4096);
    o.intervalMs = 1;
    // Enough pooled chunks that producers never allocate: allocating takes flushMutex, which
    // this test keeps busy (and unfair mutexes starve the waiters).
    o.preallocatedChunks = 1024;
    Recorder rec(o);
    std::vector<uint64_t> tids(kThreads, 0);
    std::atomic<size_t> registered{0};
    std::atomic<bool> go{false};
    std::atomic<size_t> done{0};
    std::atomic<size_t> failures{0};
    std::vector<std::thread> threads;
    for (size_t t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            tids[t] = gettidNow();
            ThreadLog* log = rec.threadLog();
            registered.fetch_add(1);
            while (!go.load()) std::this_thread::yield();
            for (size_t i = 0; log != nullptr && i < perThread; ++i) {
                const std::string s0 = "f" + std::to_string(t) + ":" + std::to_string(i);
                if (!rec.append(log, RecordKind::MarkerBegin, rec.now(), s0)) failures.fetch_add(1);
            }
            if (log == nullptr) failures.fetch_add(1);
            done.fetch_add(1);
        });
    }
    // Registration takes the registry lock that every flush takes too: flush once all are in.
    while (registered.load() < kThreads) std::this_thread::yield();
    go.store(true);
    do {
        // Back-to-back flushes: the writer thread, holding a batch it took off the queue,
        // waits for flushMutex meanwhile.
        rec.flushNow();
    } while (done.load() < kThreads);
    for (auto& th : threads) th.join();
    ASSERT_EQ(failures.load(), 0u);

    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    std::vector<size_t> next(kThreads, 0);
    for (const Rec& r : c.recs) {
        const size_t colon = r.s0.find(':');
        ASSERT_NE(colon, std::string::npos);
        const size_t t = std::stoul(r.s0.substr(1, colon - 1));
        ASSERT_LT(t, kThreads);
        ASSERT_EQ(r.tid, tids[t]);
        ASSERT_EQ(std::stoul(r.s0.substr(colon + 1)), next[t]) << "thread " << t;
        ++next[t];
    }
    for (size_t t = 0; t < kThreads; ++t) {
        EXPECT_EQ(next[t], perThread) << "thread " << t << " lost records";
    }
}

// The RecorderModeTest tests of every record_recorder_*_test.cpp, for both flush modes.
INSTANTIATE_TEST_SUITE_P(record, RecorderModeTest,
                         ::testing::Values(FlushMode::Timeout, FlushMode::Cached),
                         [](const ::testing::TestParamInfo<FlushMode>& info) {
                             return info.param == FlushMode::Timeout ? "Timeout" : "Cached";
                         });

// ---- fork -----------------------------------------------------------------------------------

TEST(record_Fork, ChildRecordsOnlyItsOwn) {
#if PERFMARKER_TEST_ASAN
    // GCC 12's AddressSanitizer does not lock its allocator around fork(): when the parent's
    // writer thread allocates at that moment, every allocation in the child waits forever.
    GTEST_SKIP() << "fork with a live writer thread is not safe under this AddressSanitizer";
#endif
    TempDir dir;
    const std::string path = dir.path();
    Recorder rec(options(FlushMode::Timeout, path, 4096));
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    const size_t before = 500, inChild = 700, after = 300;
    for (size_t i = 0; i < before; ++i) {
        ASSERT_TRUE(
            rec.append(log, RecordKind::MarkerBegin, rec.now(), "parent " + std::to_string(i)));
    }
    rec.flushNow();
    const uint64_t parentPid = pidNow();
    const uint64_t parentTid = gettidNow();

    const int code = runInChild([&]() -> int {
        const uint64_t childPid = pidNow();
        CHILD_CHECK(childPid != parentPid, 30);
        // The child starts with a clean recorder: no threads, nothing to deliver.
        CHILD_CHECK(rec.threadCount() == 0, 42);
        CHILD_CHECK(!rec.degraded(), 43);
        if (kTsanCannotStartThreadsAfterFork) {
            // Registering starts the child's writer thread, which this ThreadSanitizer
            // cannot follow after a multi-threaded fork: check the parent's records are not
            // there and stop.
            std::string error;
            CHILD_CHECK(rec.stop(error), 44);
            Collector c;
            CHILD_CHECK(rec.collect(c, error), 45);
            CHILD_CHECK(c.groups.empty() && c.recs.empty(), 46);
            CHILD_CHECK(listFragments(path, childPid, kTag).empty(), 47);
            return 0;
        }
        ThreadLog* childLog = rec.threadLog();
        CHILD_CHECK(childLog != nullptr, 31);
        CHILD_CHECK(childLog != log, 32);
        for (size_t i = 0; i < inChild; ++i) {
            CHILD_CHECK(rec.append(childLog, RecordKind::MarkerEnd, rec.now(),
                                   "child " + std::to_string(i)),
                        33);
        }
        std::string error;
        CHILD_CHECK(rec.stop(error), 34);
        Collector c;
        CHILD_CHECK(rec.collect(c, error), 35);
        CHILD_CHECK(c.groups.size() == 1, 36);
        CHILD_CHECK(c.groups[0].tid == gettidNow(), 37);
        CHILD_CHECK(c.recs.size() == inChild, 38);
        for (size_t i = 0; i < inChild; ++i) {
            CHILD_CHECK(c.recs[i].s0 == "child " + std::to_string(i), 39);
        }
        // The child's fragments carry its own pid.
        auto frags = listFragments(path, childPid, kTag);
        CHILD_CHECK(frags.size() == 1, 40);
        rec.removeFragments();
        CHILD_CHECK(listFragments(path, childPid, kTag).empty(), 41);
        return 0;
    });
    EXPECT_EQ(code, 0) << "child failed; see its stderr for the check";

    // The parent goes on as if nothing happened.
    for (size_t i = before; i < before + after; ++i) {
        ASSERT_TRUE(
            rec.append(log, RecordKind::MarkerBegin, rec.now(), "parent " + std::to_string(i)));
    }
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    ASSERT_EQ(c.groups.size(), 1u);
    EXPECT_EQ(c.groups[0].tid, parentTid);
    ASSERT_EQ(c.recs.size(), before + after);
    for (size_t i = 0; i < before + after; ++i) {
        ASSERT_EQ(c.recs[i].s0, "parent " + std::to_string(i));
    }
    auto frags = listFragments(path, parentPid, kTag);
    ASSERT_EQ(frags.size(), 1u);
    std::vector<FragmentStream> streams;
    std::string error;
    ASSERT_TRUE(scanFragment(frags[0].path, streams, error)) << error;
    ASSERT_EQ(streams.size(), 1u);
    EXPECT_EQ(streams[0].tid, parentTid);
    rec.removeFragments();
}

// ---- stop racing with appends ---------------------------------------------------------------

TEST_P(RecorderModeTest, StopRacesWithAppends) {
    TempDir dir;
    constexpr size_t kThreads = 4;
    const size_t maxPerThread = scaled(2000000, 200000);
    Recorder rec(options(GetParam(), dir.path(), 4096));
    std::vector<uint64_t> tids(kThreads, 0);
    std::vector<std::atomic<size_t>> appended(kThreads);
    for (auto& a : appended) a.store(0);
    std::atomic<bool> quit{false};
    std::vector<std::thread> threads;
    for (size_t t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            tids[t] = gettidNow();
            ThreadLog* log = rec.threadLog();
            if (log == nullptr) return;
            for (size_t i = 0; i < maxPerThread && !quit.load(std::memory_order_relaxed); ++i) {
                const std::string s0 = "T" + std::to_string(t) + ":" + std::to_string(i);
                if (!rec.append(log, RecordKind::MarkerBegin, rec.now(), s0, payloadFor(t, i),
                                s0)) {
                    break;  // stopped
                }
                appended[t].store(i + 1, std::memory_order_relaxed);
            }
        });
    }
    // Let every thread get going (through many chunks) before stopping.
    constexpr size_t kBeforeStop = 2000;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    for (size_t t = 0; t < kThreads; ++t) {
        while (appended[t].load(std::memory_order_relaxed) < kBeforeStop &&
               std::chrono::steady_clock::now() < deadline) {
            std::this_thread::yield();
        }
    }
    std::string error;
    EXPECT_TRUE(rec.stop(error)) << error;
    Collector c;
    EXPECT_TRUE(rec.collect(c, error)) << error;  // while the threads may still append
    quit.store(true);
    for (auto& th : threads) th.join();

    c.expectWellFramed();
    std::vector<size_t> next(kThreads, 0);
    for (const Rec& r : c.recs) {
        ASSERT_EQ(r.s0, r.s2) << "torn record";
        const size_t colon = r.s0.find(':');
        ASSERT_TRUE(r.s0.size() > 2 && r.s0[0] == 'T' && colon != std::string::npos) << r.s0;
        const size_t t = std::stoul(r.s0.substr(1, colon - 1));
        const size_t seq = std::stoul(r.s0.substr(colon + 1));
        ASSERT_LT(t, kThreads);
        ASSERT_EQ(r.tid, tids[t]);
        ASSERT_EQ(seq, next[t]) << "thread " << t << ": gap or reorder";
        ASSERT_EQ(r.s1, payloadFor(t, seq)) << "torn record";
        ++next[t];
    }
    for (size_t t = 0; t < kThreads; ++t) {
        EXPECT_LE(next[t], appended[t].load()) << "thread " << t;
        // Records committed well before stop() are delivered (only the chunk a thread seals
        // while stop() flushes, about 85 records here, may be dropped).
        EXPECT_GE(next[t], kBeforeStop / 2) << "thread " << t;
    }
    rec.removeFragments();
}

}  // namespace
}  // namespace perfmarker::record
