// The per-thread recorder: the memory cap, and write failures (a bad fragment directory, a file
// size limit reached mid-run). Helpers are in record_recorder_support.h.
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "record/recorder_state.h"
#include "record_recorder_support.h"

namespace perfmarker::record {
namespace {

using namespace recorder_test;

// ---- memory bound -------------------------------------------------------------------------

// Counts and checks records without keeping them.
class SequenceChecker : public RecordVisitor {
public:
    uint64_t threads = 0;
    uint64_t announced = 0;
    uint64_t next = 0;
    uint64_t bad = 0;
    void onThread(uint64_t, uint64_t count) override {
        ++threads;
        announced += count;
    }
    void onRecord(const RecordView& r) override {
        uint64_t v = 0;
        if (r.str0.size() == sizeof v) std::memcpy(&v, r.str0.data(), sizeof v);
        if (r.str0.size() != sizeof v || v != next) ++bad;
        ++next;
    }
};

// Appends records 0 to n - 1 (8 bytes each) on `log`; `peak`: the most memory the recorder held,
// seen every 256 records and at the end. False when a record was refused.
bool appendNumbered(Recorder& rec, ThreadLog* log, uint64_t n, size_t& peak) {
    for (uint64_t i = 0; i < n; ++i) {
        char s[sizeof i];
        std::memcpy(s, &i, sizeof i);
        if (!rec.append(log, RecordKind::MarkerBegin, rec.now(), {s, sizeof s})) return false;
        if ((i & 255) == 0) peak = std::max(peak, rec.allocatedBytes());
    }
    peak = std::max(peak, rec.allocatedBytes());
    return true;
}

TEST(record_Memory, StaysUnderCap) {
    TempDir dir;
    RecorderOptions o = options(FlushMode::Timeout, dir.path(), 64 * 1024);
    o.maxMemoryBytes = size_t{4} << 20;
    Recorder rec(o);
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    // 32-byte records: far more than the cap in total.
    const uint64_t n = scaled(3000000, 450000);
    size_t peak = 0;
    ASSERT_TRUE(appendNumbered(rec, log, n, peak));
    EXPECT_LE(peak, o.maxMemoryBytes);
    // The test means something: far more than the cap went through, and the writer (which
    // converts every record) fell behind enough for the cap to matter. Sanitizers slow the
    // producer's copies more than the writer, which then keeps up.
    EXPECT_GT(n * 32, 3 * o.maxMemoryBytes);
    if (!kSanitized) {
        EXPECT_GT(peak, o.maxMemoryBytes / 2) << "the producer never got near the cap";
    }

    std::string error;
    ASSERT_TRUE(rec.stop(error)) << error;
    EXPECT_LE(rec.allocatedBytes(), o.maxMemoryBytes);
    SequenceChecker check;
    ASSERT_TRUE(rec.collect(check, error)) << error;
    EXPECT_EQ(check.threads, 1u);
    EXPECT_EQ(check.announced, n);
    EXPECT_EQ(check.next, n);
    EXPECT_EQ(check.bad, 0u);
}

// Pinned to one core, the writer shares it with the recording thread and is woken a few chunks
// at a time (recorder_state.h, kWakeEvery): an owner at the cap, or leaving the pool nearly
// empty, still wakes it at once, so the records all arrive, in order, under the cap.
TEST(record_Memory, OnOneCoreTheWriterWakesAFewChunksAtATime) {
    cpu_set_t before;
    ASSERT_EQ(sched_getaffinity(0, sizeof before, &before), 0);
    const int cpu = sched_getcpu();
    ASSERT_GE(cpu, 0);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    ASSERT_EQ(sched_setaffinity(0, sizeof one, &one), 0);
    EXPECT_EQ(wakeEveryForThisProcess(), kWakeEvery);
    {
        TempDir dir;
        RecorderOptions o = options(FlushMode::Timeout, dir.path(), 64 * 1024);
        // Room for fewer chunks than kWakeEvery: the owner reaches the cap before it has
        // sealed enough to wake the writer by their number.
        o.preallocatedChunks = 2;
        o.maxMemoryBytes = 5 * (sizeof(Chunk) + o.chunkBytes);
        static_assert(kWakeEvery > 5);
        o.intervalMs = 3600000;  // no interval flush: only the chunks' wakes move records
        Recorder rec(o);
        ThreadLog* log = rec.threadLog();
        ASSERT_NE(log, nullptr);
        const uint64_t n = scaled(1000000, 200000);
        size_t peak = 0;
        ASSERT_TRUE(appendNumbered(rec, log, n, peak));
        EXPECT_GT(n * 32, 3 * o.maxMemoryBytes);
        // A thread's first chunk may pass the cap by a small one (recorder.cpp, rotate).
        EXPECT_LE(peak, o.maxMemoryBytes + 4096);
        std::string error;
        ASSERT_TRUE(rec.stop(error)) << error;
        SequenceChecker check;
        ASSERT_TRUE(rec.collect(check, error)) << error;
        EXPECT_EQ(check.announced, n);
        EXPECT_EQ(check.next, n);
        EXPECT_EQ(check.bad, 0u);
    }
    ASSERT_EQ(sched_setaffinity(0, sizeof before, &before), 0);
    if (CPU_COUNT(&before) > 1) {
        EXPECT_EQ(wakeEveryForThisProcess(), 1u);
    }
}

// Cached mode keeps the writer's packed blocks (docs/format.md#fragments): a marker pair with a
// known name costs a few bytes, far under the 32 bytes per pair the recorder allows itself.
TEST(record_Memory, CachedModeHoldsAFewBytesPerPair) {
    TempDir dir;
    Recorder rec(options(FlushMode::Cached, dir.path(), 64 * 1024));
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    const char* names[] = {"frame", "shadow pass", "upload textures", "post-processing"};
    constexpr size_t kPairs = 200000;
    for (size_t i = 0; i < kPairs; ++i) {
        ASSERT_TRUE(rec.append(log, RecordKind::MarkerBegin, rec.now(), names[i % 4], "render"));
        ASSERT_TRUE(rec.append(log, RecordKind::MarkerEnd, rec.now()));
    }
    rec.flushNow();
    const size_t held = rec.heldBytes();
    EXPECT_GT(held, kPairs * 2);  // a tag and a time per record at least
    EXPECT_LE(held, kPairs * 16) << held / kPairs << " bytes per pair";
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    ASSERT_EQ(c.recs.size(), 2 * kPairs);
    for (size_t i = 0; i < kPairs; i += 997) {
        EXPECT_EQ(c.recs[2 * i].s0, names[i % 4]);
        EXPECT_EQ(c.recs[2 * i].s1, "render");
        EXPECT_EQ(c.recs[2 * i + 1].kind, RecordKind::MarkerEnd);
    }
}

// ---- write failures ------------------------------------------------------------------------

void expectDegradedButComplete(const std::string& fragmentDir) {
    Recorder rec(options(FlushMode::Timeout, fragmentDir, 4096));
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    const size_t n = 2000;  // many chunks
    for (size_t i = 0; i < n; ++i) {
        ASSERT_TRUE(
            rec.append(log, RecordKind::MarkerBegin, rec.now(), "kept " + std::to_string(i)));
    }
    rec.flushNow();
    EXPECT_TRUE(rec.degraded());
    std::string error;
    EXPECT_FALSE(rec.stop(error));
    EXPECT_NE(error.find(fragmentDir), std::string::npos) << error;
    EXPECT_TRUE(rec.degraded());
    Collector c;
    std::string collectError;
    ASSERT_TRUE(rec.collect(c, collectError)) << collectError;
    c.expectWellFramed();
    ASSERT_EQ(c.recs.size(), n);
    for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(c.recs[i].s0, "kept " + std::to_string(i));
    }
    rec.removeFragments();  // nothing to remove; must not crash
}

TEST(record_WriteFailure, ParentIsARegularFile) {
    TempDir dir;
    const std::string file = dir.path() + "/plainfile";
    std::ofstream(file) << "not a directory";
    expectDegradedButComplete(file + "/frags");
}

TEST(record_WriteFailure, NonexistentDirectory) {
    TempDir dir;
    expectDegradedButComplete(dir.path() + "/does/not/exist");
}

// The writer appends packed blocks in batches (docs/session.md#modes): blocks of several threads
// wait together for the interval or a full batch. When that one write fails, every block goes
// back to its own thread's memory, in order, and nothing is lost.
TEST(record_WriteFailure, AFailedBatchGivesEachThreadItsBlocksBack) {
    TempDir dir;
    const std::string fragments = dir.path() + "/frags";
    ASSERT_TRUE(fs::create_directory(fragments));
    RecorderOptions o = options(FlushMode::Timeout, fragments, 4096);
    o.intervalMs = 60000;  // no interval passes: the blocks are written at stop()
    Recorder rec(o);
    constexpr size_t kThreads = 3;
    constexpr size_t kPerThread = 1500;  // several chunks a thread, far under a batch packed
    for (size_t t = 0; t < kThreads; ++t) {
        std::thread([&rec, t] {
            ThreadLog* log = rec.threadLog();
            ASSERT_NE(log, nullptr);
            for (size_t i = 0; i < kPerThread; ++i) {
                const std::string name = "t" + std::to_string(t) + " " + std::to_string(i);
                ASSERT_TRUE(rec.append(log, RecordKind::MarkerBegin, rec.now(), name));
            }
        }).join();
    }
    // Nothing has reached the disk yet: the directory is still empty, and now it is gone.
    ASSERT_TRUE(fs::remove(fragments));
    Collector c;
    std::string stopError;
    EXPECT_FALSE(stopAndCollect(rec, c, &stopError));
    EXPECT_NE(stopError.find(fragments), std::string::npos) << stopError;
    EXPECT_TRUE(rec.degraded());
    ASSERT_EQ(c.groups.size(), kThreads);
    ASSERT_EQ(c.recs.size(), kThreads * kPerThread);
    for (size_t g = 0; g < kThreads; ++g) {
        ASSERT_EQ(c.groups[g].announced, kPerThread);
        const std::string prefix = c.recs[g * kPerThread].s0.substr(0, 3);
        for (size_t i = 0; i < kPerThread; ++i) {
            ASSERT_EQ(c.recs[g * kPerThread + i].s0, prefix + std::to_string(i)) << g;
        }
    }
}

// A batch is bounded: with an interval far away, the blocks of a long run still reach the
// fragment file as the batches fill, and the writer holds at most one batch of them.
TEST(record_Memory, BlocksWaitingForTheIntervalAreWrittenOnceABatchFills) {
    TempDir dir;
    RecorderOptions o = options(FlushMode::Timeout, dir.path(), 64 * 1024);
    o.intervalMs = 60000;
    Recorder rec(o);
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    // Distinct names: about 15 packed bytes a record, 3.0 MB in all.
    constexpr size_t kRecords = 200000;
    for (size_t i = 0; i < kRecords; ++i) {
        ASSERT_TRUE(rec.append(log, RecordKind::MarkerBegin, rec.now(),
                               "name " + std::to_string(1000000 + i)));
    }
    // All but the current chunk is sealed; wait for the writer to pack what it was handed.
    auto fragmentBytes = [&] {
        const auto frags = listFragments(dir.path(), pidNow(), kTag);
        std::error_code ec;
        return frags.size() == 1 ? fs::file_size(frags[0].path, ec) : uintmax_t{0};
    };
    constexpr uintmax_t kAtLeast = 2500000;  // 3.0 MB less a batch (256 KiB) and a chunk
    for (int i = 0; i < 1000 && fragmentBytes() < kAtLeast; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_GE(fragmentBytes(), kAtLeast);
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    ASSERT_EQ(c.recs.size(), kRecords);
    EXPECT_EQ(c.recs.back().s0, "name " + std::to_string(1000000 + kRecords - 1));
    EXPECT_GT(fragmentBytes(), kAtLeast);
    rec.removeFragments();
}

TEST(record_WriteFailure, FileSizeLimitMidRun) {
    TempDir dir;
    const std::string path = dir.path();
    const int code = runInChild([&]() -> int {
        constexpr rlim_t kLimit = 64 * 1024;
        signal(SIGXFSZ, SIG_IGN);
        rlimit lim{kLimit, kLimit};
        CHILD_CHECK(setrlimit(RLIMIT_FSIZE, &lim) == 0, 10);
        const size_t n = 20000;  // ~32 bytes each: well past the limit
        {
            Recorder rec(options(FlushMode::Timeout, path, 4096));
            ThreadLog* log = rec.threadLog();
            CHILD_CHECK(log != nullptr, 11);
            for (size_t i = 0; i < n; ++i) {
                std::string s = "rec" + std::to_string(i);
                CHILD_CHECK(rec.append(log, RecordKind::MarkerBegin, rec.now(), s), 12);
                if (i % 500 == 0) rec.flushNow();
            }
            std::string error;
            CHILD_CHECK(!rec.stop(error), 13);
            CHILD_CHECK(rec.degraded(), 14);
            CHILD_CHECK(!error.empty(), 15);
            Collector c;
            std::string collectError;
            CHILD_CHECK(rec.collect(c, collectError), 16);
            CHILD_CHECK(c.groups.size() == 1 && c.groups[0].announced == n, 17);
            CHILD_CHECK(c.recs.size() == n, 18);
            for (size_t i = 0; i < n; ++i) {
                CHILD_CHECK(c.recs[i].s0 == "rec" + std::to_string(i), 19);
            }
            // The fragment holds whole records only: a prefix of what was recorded.
            auto frags = listFragments(path, pidNow(), kTag);
            CHILD_CHECK(frags.size() == 1, 20);
            struct stat st {};
            CHILD_CHECK(stat(frags[0].path.c_str(), &st) == 0, 21);
            CHILD_CHECK(static_cast<rlim_t>(st.st_size) <= kLimit, 22);
            size_t count = 0;
            bool prefix = true;
            bool truncated = true;
            std::string readError;
            CHILD_CHECK(readFragment(
                            frags[0].path,
                            [&](const RecordView& r) {
                                if (r.str0 != "rec" + std::to_string(count)) prefix = false;
                                ++count;
                            },
                            readError, &truncated),
                        23);
            CHILD_CHECK(!truncated, 24);
            CHILD_CHECK(prefix, 25);
            CHILD_CHECK(count > 0 && count < n, 26);
            rec.removeFragments();
        }
        return 0;
    });
    EXPECT_EQ(code, 0) << "child failed; see its stderr for the check";
}

}  // namespace
}  // namespace perfmarker::record
