// The per-thread recorder: round trips, fragments, rotation under many threads, thread exit,
// the memory cap, write failures, fork, stop racing with appends, and fragment read-back.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "record/fragment.h"
#include "record/recorder.h"

#if defined(__SANITIZE_THREAD__)
#define PERFMARKER_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define PERFMARKER_TEST_TSAN 1
#endif
#endif

// Under ThreadSanitizer, run with the suite's suppressions (tests/tsan.supp, see scripts/test.sh).

namespace perfmarker::record {
namespace {

namespace fs = std::filesystem;

#if defined(PERFMARKER_TEST_TSAN) || defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

// GCC 12's ThreadSanitizer keeps the parent's threads registered in a fork child, so a thread
// started there can reuse a registered pthread id and abort the child ("dup thread").
#if defined(PERFMARKER_TEST_TSAN)
constexpr bool kTsanCannotStartThreadsAfterFork = true;
#else
constexpr bool kTsanCannotStartThreadsAfterFork = false;
#endif

// Scales an iteration count down under sanitizers.
constexpr size_t scaled(size_t normal, size_t sanitized) { return kSanitized ? sanitized : normal; }

// Allowed distance between a converted record time and CLOCK_MONOTONIC read around its ticks.
constexpr uint64_t kTimeToleranceNs = 50000;

const std::string kTag = "rectest";

uint64_t gettidNow() { return static_cast<uint64_t>(syscall(SYS_gettid)); }
uint64_t pidNow() { return static_cast<uint64_t>(getpid()); }

// A fresh directory per test, removed afterwards.
class TempDir {
public:
    TempDir() {
        char tmpl[] = "/tmp/perfmarker-rec-XXXXXX";
        const char* p = mkdtemp(tmpl);
        if (p != nullptr) m_path = p;
    }
    ~TempDir() {
        if (!m_path.empty()) {
            std::error_code ec;
            fs::remove_all(m_path, ec);
        }
    }
    const std::string& path() const { return m_path; }

private:
    std::string m_path;
};

// Regular files in `dir` whose names end in ".frag".
std::vector<std::string> fragFilesIn(const std::string& dir) {
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (name.size() > 5 && name.compare(name.size() - 5, 5, ".frag") == 0) out.push_back(name);
    }
    return out;
}

struct Rec {
    uint64_t tid = 0;
    uint64_t time = 0;
    RecordKind kind = RecordKind::MarkerBegin;
    std::string s0, s1, s2;
};

// Keeps everything collect() delivers, and checks its framing: every record comes after an
// onThread, and each onThread announces exactly the records that follow it.
class Collector : public RecordVisitor {
public:
    struct Group {
        uint64_t tid;
        uint64_t announced;
        uint64_t delivered;
    };
    std::vector<Group> groups;
    std::vector<Rec> recs;
    bool recordBeforeThread = false;

    void onThread(uint64_t tid, uint64_t recordCount) override {
        groups.push_back({tid, recordCount, 0});
    }
    void onRecord(const RecordView& r) override {
        if (groups.empty()) {
            recordBeforeThread = true;
            return;
        }
        ++groups.back().delivered;
        recs.push_back({groups.back().tid, r.time, r.kind, std::string(r.str0), std::string(r.str1),
                        std::string(r.str2)});
    }

    // Framing checks shared by every test.
    void expectWellFramed() const {
        EXPECT_FALSE(recordBeforeThread);
        for (size_t i = 0; i < groups.size(); ++i) {
            EXPECT_EQ(groups[i].announced, groups[i].delivered) << "tid " << groups[i].tid;
            EXPECT_GT(groups[i].announced, 0u) << "tid " << groups[i].tid;
            if (i > 0) {
                EXPECT_LT(groups[i - 1].tid, groups[i].tid) << "tids not increasing";
            }
        }
    }
};

bool stopAndCollect(Recorder& rec, Collector& c, std::string* stopError = nullptr) {
    std::string error;
    const bool stopped = rec.stop(error);
    if (stopError != nullptr) *stopError = error;
    EXPECT_EQ(stopped, error.empty()) << error;
    std::string collectError;
    EXPECT_TRUE(rec.collect(c, collectError)) << collectError;
    c.expectWellFramed();
    return stopped;
}

RecorderOptions options(FlushMode mode, const std::string& dir, size_t chunkBytes = 64 * 1024) {
    RecorderOptions o;
    o.mode = mode;
    o.intervalMs = 100;
    o.fragmentDir = dir;
    o.fragmentTag = kTag;
    o.chunkBytes = chunkBytes;
    return o;
}

// Runs `body` in a forked child; returns its exit code (or 128 + signal).
int runInChild(const std::function<int()>& body) {
    std::fflush(nullptr);
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) {
        int code = 99;
        try {
            code = body();
        } catch (...) {
            code = 98;
        }
        std::fflush(nullptr);
        _exit(code);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -2;
}

#define CHILD_CHECK(cond, code)                                                 \
    do {                                                                        \
        if (!(cond)) {                                                          \
            std::fprintf(stderr, "child check failed (%d): %s\n", code, #cond); \
            return code;                                                        \
        }                                                                       \
    } while (0)

// ---- single thread round trip ---------------------------------------------------------------

std::string megabyteString() {
    std::string s(1 << 20, '\0');
    for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<char>((i * 131 + i / 977) & 0xff);
    return s;
}

class RecorderModeTest : public ::testing::TestWithParam<FlushMode> {};

TEST_P(RecorderModeTest, SingleThreadRoundTrip) {
    TempDir dir;
    ASSERT_FALSE(dir.path().empty());
    const std::string big = megabyteString();
    const std::vector<std::string> strings = {
        "",
        "hello world",
        "two\nlines\r\nand\ttabs",
        std::string("nul\0in\0the middle\0", 19),
        std::string("\0", 1),
        "\xff\xfe\xc0\x80 not utf-8 \xed\xa0\x80",
        "\xe2\x82",  // a cut multibyte sequence
        "x",
        "seven..",
        "eight...",
        std::string(300, 'q'),
    };
    const size_t n = scaled(6000, 2000);

    Recorder rec(options(GetParam(), dir.path()));
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    EXPECT_EQ(rec.threadLog(), log);

    std::vector<Rec> expected;
    std::vector<std::pair<uint64_t, uint64_t>> window;  // monotonicNs around each tick read
    const size_t ns = strings.size();
    for (size_t i = 0; i < n; ++i) {
        Rec r;
        r.kind = static_cast<RecordKind>(1 + i % 3);
        r.s0 = strings[i % ns];
        r.s1 = strings[(i / ns) % ns];
        r.s2 = strings[(i * 7 + 3) % ns];
        if (i == n / 3) r.s0 = big;  // oversize records, in each string position
        if (i == n / 2) r.s1 = big;
        if (i == 2 * n / 3) {
            r.s0 = big;
            r.s2 = big;
        }
        const uint64_t lo = monotonicNs();
        const uint64_t ticks = rec.now();
        const uint64_t hi = monotonicNs();
        ASSERT_TRUE(rec.append(log, r.kind, ticks, r.s0, r.s1, r.s2)) << i;
        expected.push_back(std::move(r));
        window.emplace_back(lo, hi);
    }

    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    EXPECT_FALSE(rec.degraded());
    ASSERT_EQ(c.groups.size(), 1u);
    EXPECT_EQ(c.groups[0].tid, gettidNow());
    ASSERT_EQ(c.recs.size(), n);
    uint64_t prevTime = 0;
    for (size_t i = 0; i < n; ++i) {
        const Rec& got = c.recs[i];
        const Rec& want = expected[i];
        ASSERT_EQ(got.kind, want.kind) << i;
        ASSERT_TRUE(got.s0 == want.s0)
            << i << ": s0 of size " << got.s0.size() << " vs " << want.s0.size();
        ASSERT_TRUE(got.s1 == want.s1) << i;
        ASSERT_TRUE(got.s2 == want.s2) << i;
        ASSERT_GE(got.time, prevTime) << "time went backwards at " << i;
        prevTime = got.time;
        ASSERT_GE(got.time + kTimeToleranceNs, window[i].first)
            << i << ": " << (window[i].first - got.time) << " ns early";
        ASSERT_LE(got.time, window[i].second + kTimeToleranceNs)
            << i << ": " << (got.time - window[i].second) << " ns late";
    }
    // Timeout mode streamed them into this thread's fragment; cached mode wrote no file.
    EXPECT_EQ(fragFilesIn(dir.path()).size(), GetParam() == FlushMode::Timeout ? 1u : 0u);
    rec.removeFragments();
    EXPECT_TRUE(fragFilesIn(dir.path()).empty());
}

// Agent records (kind ApiCall) carry an end time as the first 8 payload bytes: the writer
// converts it like the header's time; other kinds' payloads are left alone.
TEST_P(RecorderModeTest, ApiCallEndTimeIsConverted) {
    TempDir dir;
    Recorder rec(options(GetParam(), dir.path()));
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    const uint64_t lo = monotonicNs();
    const uint64_t start = rec.now();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const uint64_t end = rec.now();
    const uint64_t hi = monotonicNs();
    std::string payload(16, '\0');
    std::memcpy(payload.data(), &end, 8);
    std::memcpy(payload.data() + 8, &end, 8);  // a copy of the raw ticks, left as is
    ASSERT_TRUE(rec.append(log, RecordKind::ApiCall, start, payload));
    ASSERT_TRUE(rec.append(log, RecordKind::DeviceTimes, start, payload));
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    ASSERT_EQ(c.recs.size(), 2u);
    uint64_t convertedEnd = 0, rawCopy = 0;
    std::memcpy(&convertedEnd, c.recs[0].s0.data(), 8);
    std::memcpy(&rawCopy, c.recs[0].s0.data() + 8, 8);
    EXPECT_EQ(rawCopy, end);
    EXPECT_GE(convertedEnd, c.recs[0].time + 1000000) << "end less than 1 ms after start";
    EXPECT_GE(c.recs[0].time + kTimeToleranceNs, lo);
    EXPECT_LE(convertedEnd, hi + kTimeToleranceNs);
    EXPECT_EQ(c.recs[1].kind, RecordKind::DeviceTimes);
    EXPECT_EQ(c.recs[1].s0, payload) << "a DeviceTimes payload is not converted";
}

// reserve()/commitReserved() write a payload in place: the same record as append() would
// make, across chunk rotations and for payloads larger than a chunk.
TEST_P(RecorderModeTest, ReservedPayloadsRoundTrip) {
    TempDir dir;
    Recorder rec(options(GetParam(), dir.path(), 4096));
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    std::vector<std::string> payloads;
    for (size_t i = 0; i < 300; ++i) {
        const size_t words = i == 150 ? 1024 : 1 + i % 40;  // one payload of 8 KB
        std::string p(words * 8, '\0');
        for (size_t b = 0; b < p.size(); ++b) p[b] = static_cast<char>('a' + (i + b) % 26);
        unsigned char* out = rec.reserve(log, RecordKind::ApiCall, rec.now(), p.size());
        ASSERT_NE(out, nullptr) << i;
        std::memcpy(out, p.data(), p.size());
        rec.commitReserved(log, p.size());
        payloads.push_back(std::move(p));
    }
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    ASSERT_EQ(c.recs.size(), payloads.size());
    for (size_t i = 0; i < payloads.size(); ++i) {
        EXPECT_EQ(c.recs[i].kind, RecordKind::ApiCall);
        // The first word is the end time, converted by the writer; the rest is untouched.
        ASSERT_EQ(c.recs[i].s0.size(), payloads[i].size()) << i;
        EXPECT_EQ(c.recs[i].s0.substr(8), payloads[i].substr(8)) << i;
        EXPECT_TRUE(c.recs[i].s1.empty() && c.recs[i].s2.empty());
    }
}

TEST_P(RecorderModeTest, EmptyRecorderDeliversNothing) {
    TempDir dir;
    Recorder rec(options(GetParam(), dir.path()));
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    EXPECT_TRUE(c.groups.empty());
    EXPECT_TRUE(c.recs.empty());
}

TEST_P(RecorderModeTest, AppendAfterStopFails) {
    TempDir dir;
    Recorder rec(options(GetParam(), dir.path(), 4096));
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    ASSERT_TRUE(rec.append(log, RecordKind::MarkerBegin, rec.now(), "before"));
    std::string error;
    ASSERT_TRUE(rec.stop(error)) << error;
    // The current chunk may still take a few records, but not a chunk's worth.
    bool failed = false;
    for (int i = 0; i < 1000 && !failed; ++i) {
        failed = !rec.append(log, RecordKind::MarkerBegin, rec.now(), "after stop, padding...");
    }
    EXPECT_TRUE(failed);
    Collector c;
    ASSERT_TRUE(rec.collect(c, error)) << error;
    c.expectWellFramed();
    ASSERT_FALSE(c.recs.empty());
    EXPECT_EQ(c.recs[0].s0, "before");
    for (size_t i = 1; i < c.recs.size(); ++i) {
        EXPECT_EQ(c.recs[i].s0, "after stop, padding...");
    }
}

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

INSTANTIATE_TEST_SUITE_P(record, RecorderModeTest,
                         ::testing::Values(FlushMode::Timeout, FlushMode::Cached),
                         [](const ::testing::TestParamInfo<FlushMode>& info) {
                             return info.param == FlushMode::Timeout ? "Timeout" : "Cached";
                         });

// ---- fragments --------------------------------------------------------------------------------

size_t countFragmentRecords(const std::string& path, std::vector<std::string>* s0 = nullptr,
                            bool* truncated = nullptr) {
    size_t count = 0;
    std::string error;
    bool ok = readFragment(
        path,
        [&](const RecordView& r) {
            ++count;
            if (s0 != nullptr) s0->emplace_back(r.str0);
        },
        error, truncated);
    EXPECT_TRUE(ok) << error;
    return count;
}

TEST(record_Fragments, WrittenOnFlushNowAndRemoved) {
    TempDir dir;
    RecorderOptions o = options(FlushMode::Timeout, dir.path());
    o.intervalMs = 3600000;  // only flushNow() flushes
    Recorder rec(o);
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    for (int i = 0; i < 100; ++i) {
        ASSERT_TRUE(rec.append(log, RecordKind::MarkerBegin, rec.now(), "r" + std::to_string(i),
                               "second", ""));
    }
    rec.flushNow();

    const uint64_t tid = gettidNow();
    auto frags = listFragments(dir.path(), pidNow(), kTag);
    ASSERT_EQ(frags.size(), 1u);
    EXPECT_EQ(frags[0].pid, pidNow());
    EXPECT_EQ(frags[0].tid, tid);
    EXPECT_EQ(frags[0].serial, 0u);
    EXPECT_EQ(frags[0].path, dir.path() + "/" + fragmentFileName(pidNow(), tid, 0, kTag));
    EXPECT_EQ(fragFilesIn(dir.path()),
              std::vector<std::string>{std::to_string(pidNow()) + "_" + std::to_string(tid) +
                                       "_0." + kTag + ".frag"});

    std::vector<std::string> names;
    bool truncated = true;
    EXPECT_EQ(countFragmentRecords(frags[0].path, &names, &truncated), 100u);
    EXPECT_FALSE(truncated);
    ASSERT_EQ(names.size(), 100u);
    for (int i = 0; i < 100; ++i) {
        EXPECT_EQ(names[i], "r" + std::to_string(i));
    }

    // Appending more and flushing again extends the same fragment.
    for (int i = 100; i < 150; ++i) {
        ASSERT_TRUE(rec.append(log, RecordKind::MarkerEnd, rec.now(), "r" + std::to_string(i)));
    }
    rec.flushNow();
    EXPECT_EQ(listFragments(dir.path(), pidNow(), kTag).size(), 1u);
    EXPECT_EQ(countFragmentRecords(frags[0].path), 150u);
    // Another recorder tag or process id sees nothing.
    EXPECT_TRUE(listFragments(dir.path(), pidNow(), "othertag").empty());
    EXPECT_TRUE(listFragments(dir.path(), pidNow() + 1, kTag).empty());

    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    ASSERT_EQ(c.recs.size(), 150u);
    for (int i = 0; i < 150; ++i) {
        EXPECT_EQ(c.recs[i].s0, "r" + std::to_string(i));
    }

    rec.removeFragments();
    EXPECT_TRUE(listFragments(dir.path(), pidNow(), kTag).empty());
    EXPECT_TRUE(fragFilesIn(dir.path()).empty());
}

TEST(record_Fragments, WrittenAfterInterval) {
    TempDir dir;
    RecorderOptions o = options(FlushMode::Timeout, dir.path());
    o.intervalMs = 20;
    Recorder rec(o);
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    for (int i = 0; i < 10; ++i) {
        ASSERT_TRUE(rec.append(log, RecordKind::MarkerBegin, rec.now(), "tick"));
    }
    // No flushNow(): the writer's interval timer must flush them.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    size_t count = 0;
    while (std::chrono::steady_clock::now() < deadline) {
        auto frags = listFragments(dir.path(), pidNow(), kTag);
        if (frags.size() == 1) {
            std::string error;
            count = 0;
            readFragment(
                frags[0].path, [&](const RecordView&) { ++count; }, error);
            if (count == 10) break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_EQ(count, 10u);
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    EXPECT_EQ(c.recs.size(), 10u);
    rec.removeFragments();
    EXPECT_TRUE(fragFilesIn(dir.path()).empty());
}

TEST(record_Fragments, CachedModeWritesNoFragment) {
    TempDir dir;
    RecorderOptions o = options(FlushMode::Cached, dir.path(), 4096);
    o.intervalMs = 5;
    Recorder rec(o);
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    for (int i = 0; i < 2000; ++i) {  // many chunks
        ASSERT_TRUE(rec.append(log, RecordKind::MarkerBegin, rec.now(), "cached record", "s1"));
    }
    rec.flushNow();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a few intervals
    EXPECT_TRUE(fragFilesIn(dir.path()).empty());
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    EXPECT_EQ(c.recs.size(), 2000u);
    EXPECT_TRUE(fragFilesIn(dir.path()).empty());
    EXPECT_TRUE(fs::is_empty(dir.path()));
}

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
    for (uint64_t i = 0; i < n; ++i) {
        char s[sizeof i];
        std::memcpy(s, &i, sizeof i);
        ASSERT_TRUE(rec.append(log, RecordKind::MarkerBegin, rec.now(), {s, sizeof s}));
        if ((i & 255) == 0) peak = std::max(peak, rec.allocatedBytes());
    }
    peak = std::max(peak, rec.allocatedBytes());
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

// ---- fork -----------------------------------------------------------------------------------

TEST(record_Fork, ChildRecordsOnlyItsOwn) {
#if defined(__SANITIZE_ADDRESS__)
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
    EXPECT_EQ(frags[0].tid, parentTid);
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

// ---- fragment read-back ---------------------------------------------------------------------

// Records `n` records into a fragment and returns its path.
std::string makeFragment(const std::string& dir, size_t n) {
    RecorderOptions o = options(FlushMode::Timeout, dir);
    o.intervalMs = 3600000;
    Recorder rec(o);
    ThreadLog* log = rec.threadLog();
    EXPECT_NE(log, nullptr);
    if (log == nullptr) return {};
    for (size_t i = 0; i < n; ++i) {
        // Lengths chosen so the last record has no padding (3 + 5 = 8 bytes of strings).
        EXPECT_TRUE(rec.append(log, RecordKind::MarkerEndEx, rec.now(),
                               "r" + std::to_string(i % 10) + "x", "abcde"));
    }
    std::string error;
    EXPECT_TRUE(rec.stop(error)) << error;
    auto frags = listFragments(dir, pidNow(), kTag);
    EXPECT_EQ(frags.size(), 1u);
    return frags.empty() ? std::string() : frags[0].path;
}

TEST(record_ReadFragment, WholeFragment) {
    TempDir dir;
    const std::string path = makeFragment(dir.path(), 10);
    ASSERT_FALSE(path.empty());
    EXPECT_EQ(fs::file_size(path), sizeof(FragmentHeader) + 10 * recordSize(3, 5, 0));
    std::vector<std::string> names;
    bool truncated = true;
    EXPECT_EQ(countFragmentRecords(path, &names, &truncated), 10u);
    EXPECT_FALSE(truncated);
    ASSERT_EQ(names.size(), 10u);
    EXPECT_EQ(names[9], "r9x");

    // The header names the process and thread.
    FragmentHeader h{};
    std::ifstream in(path, std::ios::binary);
    in.read(reinterpret_cast<char*>(&h), sizeof h);
    EXPECT_EQ(std::memcmp(h.magic, kFragmentMagic, sizeof h.magic), 0);
    EXPECT_EQ(h.pid, pidNow());
    EXPECT_EQ(h.tid, gettidNow());
}

TEST(record_ReadFragment, TruncatedMidRecord) {
    TempDir dir;
    const std::string path = makeFragment(dir.path(), 10);
    ASSERT_FALSE(path.empty());
    const auto size = fs::file_size(path);
    for (uintmax_t cut : {uintmax_t{1}, uintmax_t{3}, uintmax_t{8}, recordSize(3, 5, 0) - 1}) {
        const std::string copy = dir.path() + "/cut" + std::to_string(cut);
        fs::copy_file(path, copy);
        fs::resize_file(copy, size - cut);
        std::vector<std::string> names;
        bool truncated = false;
        EXPECT_EQ(countFragmentRecords(copy, &names, &truncated), 9u) << "cut " << cut;
        EXPECT_TRUE(truncated) << "cut " << cut;
        ASSERT_EQ(names.size(), 9u);
        EXPECT_EQ(names[8], "r8x");
    }
    // Cut to the header, and into the first record's header.
    fs::resize_file(path, sizeof(FragmentHeader) + 10);
    bool truncated = false;
    EXPECT_EQ(countFragmentRecords(path, nullptr, &truncated), 0u);
    EXPECT_TRUE(truncated);
    fs::resize_file(path, sizeof(FragmentHeader));
    truncated = true;
    EXPECT_EQ(countFragmentRecords(path, nullptr, &truncated), 0u);
    EXPECT_FALSE(truncated);
}

TEST(record_ReadFragment, CorruptRecordStopsReading) {
    TempDir dir;
    const std::string path = makeFragment(dir.path(), 10);
    ASSERT_FALSE(path.empty());
    // Overwrite the kind of record 5 with an impossible value.
    {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(sizeof(FragmentHeader) + 5 * recordSize(3, 5, 0) + 8));
        const uint32_t kind = 77;
        f.write(reinterpret_cast<const char*>(&kind), sizeof kind);
    }
    bool truncated = false;
    EXPECT_EQ(countFragmentRecords(path, nullptr, &truncated), 5u);
    EXPECT_TRUE(truncated);
}

void writeFile(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void expectNotAFragment(const std::string& path) {
    std::string error;
    size_t visited = 0;
    bool truncated = true;
    EXPECT_FALSE(readFragment(
        path, [&](const RecordView&) { ++visited; }, error, &truncated))
        << path;
    EXPECT_EQ(visited, 0u);
    EXPECT_NE(error.find(path), std::string::npos) << error;
}

TEST(record_ReadFragment, BadMagicShortOrMissing) {
    TempDir dir;
    const std::string bad = dir.path() + "/1_2_0.t.frag";
    writeFile(bad, std::string(200, 'X'));
    expectNotAFragment(bad);

    // A real fragment with one byte of its magic changed.
    const std::string real = makeFragment(dir.path(), 3);
    ASSERT_FALSE(real.empty());
    {
        std::fstream f(real, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(7);
        f.put('2');
    }
    expectNotAFragment(real);

    const std::string shortFile = dir.path() + "/short.frag";
    writeFile(shortFile, std::string(kFragmentMagic, sizeof kFragmentMagic) + "0123456789");
    expectNotAFragment(shortFile);

    const std::string empty = dir.path() + "/empty.frag";
    writeFile(empty, "");
    expectNotAFragment(empty);

    expectNotAFragment(dir.path() + "/missing.frag");
}

TEST(record_ListFragments, MatchesPidAndTagSortedByTidThenSerial) {
    TempDir dir;
    const std::string d = dir.path();
    for (const char* name :
         {"123_5_0.tag.frag", "123_4_1.tag.frag", "123_10_0.tag.frag", "123_4_0.tag.frag",
          "123_4_12.tag.frag", "123_4_2.tag.frag",
          // foreign: another pid, another tag, malformed, other suffixes
          "124_1_0.tag.frag", "12_1_0.tag.frag", "1234_1_0.tag.frag", "123_1_0.other.frag",
          "123_1_0.tagx.frag", "123_1_0.xtag.frag", "123_1_0.tag.frag.bak", "123_1_0.tag",
          "123_x_0.tag.frag", "123_1.tag.frag", "123__0.tag.frag", "123_1_0_9.tag.frag",
          "_123_1_0.tag.frag", "123_1_.tag.frag", "123_1_-1.tag.frag", ".tag.frag", "readme.txt"}) {
        writeFile(d + "/" + name, "x");
    }
    auto frags = listFragments(d, 123, "tag");
    std::vector<std::tuple<uint64_t, uint64_t, std::string>> got;
    for (const auto& f : frags) {
        EXPECT_EQ(f.pid, 123u);
        got.emplace_back(f.tid, f.serial, f.path);
    }
    const std::vector<std::tuple<uint64_t, uint64_t, std::string>> want = {
        {4, 0, d + "/123_4_0.tag.frag"}, {4, 1, d + "/123_4_1.tag.frag"},
        {4, 2, d + "/123_4_2.tag.frag"}, {4, 12, d + "/123_4_12.tag.frag"},
        {5, 0, d + "/123_5_0.tag.frag"}, {10, 0, d + "/123_10_0.tag.frag"},
    };
    EXPECT_EQ(got, want);

    EXPECT_EQ(listFragments(d, 124, "tag").size(), 1u);
    EXPECT_EQ(listFragments(d, 123, "other").size(), 1u);
    EXPECT_TRUE(listFragments(d, 999, "tag").empty());
    EXPECT_TRUE(listFragments(d + "/nonexistent", 123, "tag").empty());
}

TEST(record_ListFragments, FileNameFormat) {
    EXPECT_EQ(fragmentFileName(12, 34, 5, "clperfmarker"), "12_34_5.clperfmarker.frag");
    EXPECT_EQ(fragmentFileName(0, 0, 0, "t"), "0_0_0.t.frag");
}

}  // namespace
}  // namespace perfmarker::record
