// Helpers shared by the unit tests of the per-thread recorder (record_recorder_*_test.cpp): a
// scratch directory, a visitor that keeps and checks what collect() delivers, recorder options,
// a forked child, and the RecorderModeTest fixture (instantiated for both flush modes in
// record_recorder_threads_test.cpp).
#pragma once

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <system_error>
#include <vector>

#include "record/collect.h"
#include "record/fragments/fragment.h"
#include "record/recorder.h"
#include "sanitizers.h"

// Under ThreadSanitizer, run with the suite's suppressions (tests/tsan.supp, see scripts/test.sh).

namespace perfmarker::record {

// The helpers and the fixture; each test file takes them in with `using namespace recorder_test`.
namespace recorder_test {

namespace fs = std::filesystem;

inline constexpr bool kSanitized = PERFMARKER_TEST_SANITIZED;

// GCC 12's ThreadSanitizer keeps the parent's threads registered in a fork child, so a thread
// started there can reuse a registered pthread id and abort the child ("dup thread").
#if PERFMARKER_TEST_TSAN
inline constexpr bool kTsanCannotStartThreadsAfterFork = true;
#else
inline constexpr bool kTsanCannotStartThreadsAfterFork = false;
#endif

// Scales an iteration count down under sanitizers.
constexpr size_t scaled(size_t normal, size_t sanitized) { return kSanitized ? sanitized : normal; }

// Allowed distance between a converted record time and CLOCK_MONOTONIC read around its ticks.
inline constexpr uint64_t kTimeToleranceNs = 50000;

inline const std::string kTag = "rectest";

inline uint64_t gettidNow() { return static_cast<uint64_t>(syscall(SYS_gettid)); }
inline uint64_t pidNow() { return static_cast<uint64_t>(getpid()); }

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
inline std::vector<std::string> fragFilesIn(const std::string& dir) {
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

inline bool stopAndCollect(Recorder& rec, Collector& c, std::string* stopError = nullptr) {
    std::string error;
    const bool stopped = rec.stop(error);
    if (stopError != nullptr) *stopError = error;
    EXPECT_EQ(stopped, error.empty()) << error;
    std::string collectError;
    EXPECT_TRUE(rec.collect(c, collectError)) << collectError;
    c.expectWellFramed();
    return stopped;
}

inline RecorderOptions options(FlushMode mode, const std::string& dir,
                               size_t chunkBytes = 64 * 1024) {
    RecorderOptions o;
    o.mode = mode;
    o.intervalMs = 100;
    o.fragmentDir = dir;
    o.fragmentTag = kTag;
    o.chunkBytes = chunkBytes;
    return o;
}

// Runs `body` in a forked child; returns its exit code (or 128 + signal).
inline int runInChild(const std::function<int()>& body) {
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

class RecorderModeTest : public ::testing::TestWithParam<FlushMode> {};

}  // namespace recorder_test
}  // namespace perfmarker::record
