// The per-thread recorder with many threads: a thread that ends gives its chunk back at once,
// threads that start at the memory cap get small first chunks, and threads waiting at the cap
// hand their full chunks over first, so the wait ends for any number of them
// (docs/session.md#memory). Helpers are in record_recorder_support.h.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "record_recorder_support.h"

namespace perfmarker::record {
namespace {

using namespace recorder_test;

// Waits until `done()` or 10 s.
template <typename Done>
bool eventually(Done done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done()) {
        if (std::chrono::steady_clock::now() > deadline) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

// Threads that come and go one after the other reuse one chunk: each gives its chunk back as it
// ends, long before the writer's interval, so the memory does not grow with the thread count.
TEST_P(RecorderModeTest, EndedThreadsGiveTheirChunkBackAtOnce) {
    TempDir dir;
    RecorderOptions o = options(GetParam(), dir.path());
    o.intervalMs = 3600000;  // no interval flush: only the threads' hand-over frees chunks
    o.preallocatedChunks = 2;
    Recorder rec(o);
    const size_t start = rec.allocatedBytes();
    const size_t threads = scaled(300, 60);
    for (size_t t = 0; t < threads; ++t) {
        std::thread([&rec, t] {
            ThreadLog* log = rec.threadLog();
            ASSERT_NE(log, nullptr);
            for (int i = 0; i < 10; ++i) {
                ASSERT_TRUE(rec.append(log, RecordKind::MarkerBegin, rec.now(),
                                       "t" + std::to_string(t) + "." + std::to_string(i)));
            }
        }).join();
        // The writer retires the thread and recycles its chunk.
        ASSERT_TRUE(eventually([&rec] { return rec.threadCount() == 0; })) << "thread " << t;
    }
    // Only the writer's pool top-up (at least 4 chunks) is on top of the preallocated ones.
    EXPECT_LE(rec.allocatedBytes(), start + 4 * (sizeof(Chunk) + o.chunkBytes));
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    ASSERT_EQ(c.recs.size(), threads * 10);
    // Every thread's records, in its order (threads that got the same tid are in one group).
    std::vector<size_t> next(threads, 0);
    for (const Rec& r : c.recs) {
        const size_t dot = r.s0.find('.');
        ASSERT_NE(dot, std::string::npos) << r.s0;
        const size_t t = std::stoul(r.s0.substr(1, dot - 1));
        ASSERT_LT(t, threads);
        EXPECT_EQ(std::stoul(r.s0.substr(dot + 1)), next[t]++) << r.s0;
    }
    rec.removeFragments();
}

std::atomic<int> g_lateResult{-1};

// Records as the thread ends, after the recorder's own thread_local (made later) is gone. The
// constructor is user-provided so that the object is made, and its destructor registered, in
// every thread that uses it.
struct Late {
    Late() {}  // NOLINT: not = default (see above)
    ~Late() {
        if (rec == nullptr) return;
        ThreadLog* log = rec->threadLog();
        g_lateResult =
            log != nullptr && rec->append(log, RecordKind::MarkerBegin, rec->now(), "too late");
    }
    Recorder* rec = nullptr;
};
thread_local Late t_late;

// A thread_local destructor that runs after the recorder's own (the object was made before the
// thread's first record) records after the thread handed its chunk over: refused, and nothing
// is written into the chunk the writer now owns. The records before are all there.
TEST_P(RecorderModeTest, RecordsAfterTheThreadEndedAreRefused) {
    TempDir dir;
    Recorder rec(options(GetParam(), dir.path()));
    g_lateResult = -1;
    std::thread([&rec] {
        t_late.rec = &rec;  // made before the recorder's exit hook: destroyed after it
        ThreadLog* log = rec.threadLog();
        ASSERT_NE(log, nullptr);
        for (int i = 0; i < 100; ++i) {
            ASSERT_TRUE(rec.append(log, RecordKind::MarkerBegin, rec.now(), "in time"));
        }
    }).join();
    EXPECT_EQ(g_lateResult.load(), 0);
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    EXPECT_EQ(c.recs.size(), 100u);
    for (const Rec& r : c.recs) EXPECT_EQ(r.s0, "in time");
    rec.removeFragments();
}

// Threads that start while the cap is reached do not wait (their first chunk may be all that
// stands between them and what the other threads wait for), and take 4 KB each, not a whole
// chunk.
TEST_P(RecorderModeTest, ThreadsStartingAtTheCapGetSmallChunks) {
    TempDir dir;
    RecorderOptions o = options(GetParam(), dir.path());
    o.preallocatedChunks = 4;
    o.maxMemoryBytes = 4 * (sizeof(Chunk) + o.chunkBytes);  // the preallocated chunks fill it
    Recorder rec(o);
    const size_t start = rec.allocatedBytes();
    constexpr size_t kThreads = 24;
    std::mutex mutex;
    std::condition_variable cv;
    size_t started = 0;
    bool release = false;
    std::vector<std::thread> threads;
    for (size_t t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            ThreadLog* log = rec.threadLog();
            ASSERT_NE(log, nullptr);
            EXPECT_TRUE(rec.append(log, RecordKind::MarkerBegin, rec.now(), std::to_string(t)));
            std::unique_lock<std::mutex> lock(mutex);
            ++started;
            cv.notify_all();
            cv.wait(lock, [&] { return release; });
        });
    }
    {
        std::unique_lock<std::mutex> lock(mutex);
        ASSERT_TRUE(
            cv.wait_for(lock, std::chrono::seconds(10), [&] { return started == kThreads; }));
        // All alive at once, each holding its first chunk: 4 pooled, 20 small ones.
        EXPECT_LE(rec.allocatedBytes(), start + (kThreads - 4) * 4096);
        EXPECT_GT(rec.allocatedBytes(), start);
        release = true;
        cv.notify_all();
    }
    for (auto& t : threads) t.join();
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    EXPECT_EQ(c.recs.size(), kThreads);
    rec.removeFragments();
}

// More threads than the cap has chunks, all alive and all filling chunk after chunk: a thread
// waiting at the cap gives its full chunk to the writer first, so the writer always has one to
// recycle and every thread finishes (a thread holding its full chunk while it waited would wait
// for ever once every chunk was held so).
TEST_P(RecorderModeTest, ThreadsWaitingAtTheCapAllFinish) {
    TempDir dir;
    RecorderOptions o = options(GetParam(), dir.path(), 4096);
    o.preallocatedChunks = 2;
    o.maxMemoryBytes = 4 * (sizeof(Chunk) + 4096);
    Recorder rec(o);
    constexpr size_t kThreads = 16;
    const size_t perThread = scaled(2000, 500);  // 32-byte records: about 16 chunks each
    std::atomic<size_t> ready{0};
    std::vector<std::thread> threads;
    for (size_t t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            ThreadLog* log = rec.threadLog();
            ASSERT_NE(log, nullptr);
            ++ready;
            while (ready.load() < kThreads) std::this_thread::yield();
            for (size_t i = 0; i < perThread; ++i) {
                const uint64_t v = t << 32 | i;
                ASSERT_TRUE(rec.append(log, RecordKind::MarkerBegin, rec.now(),
                                       {reinterpret_cast<const char*>(&v), sizeof v}));
            }
        });
    }
    for (auto& t : threads) t.join();
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    ASSERT_EQ(c.recs.size(), kThreads * perThread);
    // Each thread's records in its order.
    std::vector<uint64_t> next(kThreads, 0);
    for (const Rec& r : c.recs) {
        uint64_t v = 0;
        ASSERT_EQ(r.s0.size(), sizeof v);
        std::memcpy(&v, r.s0.data(), sizeof v);
        ASSERT_EQ(v & 0xffffffff, next[v >> 32]++);
    }
    rec.removeFragments();
}

// Instantiated for both modes in record_recorder_threads_test.cpp.

}  // namespace
}  // namespace perfmarker::record
