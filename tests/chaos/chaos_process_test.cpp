// Processes and threads at their worst (docs/session.md#chaos-tests): a process killed with
// SIGKILL in the middle of recording, thousands of short-lived threads, and a burst of forks
// while the writer runs. Each runs chaos_app under a session through the public API and counts
// the pairs in the output with the product's reader.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "chaos_support.h"
#include "run_process.h"
#include "sanitizers.h"

#ifndef PERFMARKER_CLI_PATH
#error "PERFMARKER_CLI_PATH must name the perfmarker program"
#endif

namespace {

namespace fs = std::filesystem;
using perfmarker::chaos::kChaosApp;
using perfmarker::chaos::PairCount;
using perfmarker::chaos::readPairs;
using perfmarker::test::EnvChanges;
using perfmarker::test::ProcessResult;
using perfmarker::test::readFile;
using perfmarker::test::runProcess;
using perfmarker::test::ScratchDir;

const std::string kPerfmarker = PERFMARKER_CLI_PATH;

class ChaosProcess : public ::testing::Test {
protected:
    void SetUp() override {
        fs::create_directories(m_session);
        fs::permissions(m_session, fs::perms::owner_all);
    }

    // A session writing <scratch>/session/run.clperfmarker, fragments in the same private dir.
    EnvChanges session(const char* mode, const char* intervalMs) const {
        return {{"PERFMARKER_OUTPUT", m_session + "/run"},
                {"PERFMARKER_TMPDIR", m_session},
                {"PERFMARKER_MODE", std::string(mode)},
                {"PERFMARKER_INTERVAL_MS", std::string(intervalMs)},
                {"PERFMARKER_MAX_MEMORY_MB", std::nullopt}};
    }

    ScratchDir m_scratch;
    std::string m_session = m_scratch.path() + "/session";
};

// kill -9 in timeout mode: every pair recorded more than an interval before the kill was
// flushed to the fragments, and `perfmarker merge` turns them into a trace of whole pairs (at
// most the very last begin may have lost its end).
TEST_F(ChaosProcess, KillNineInTimeoutModeKeepsWhatWasFlushed) {
    const std::string noted = m_scratch.path() + "/noted";
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        if (freopen("/dev/null", "w", stdout) == nullptr) _exit(126);
        for (const auto& [name, value] : session("timeout", "50")) {
            if (value) setenv(name.c_str(), value->c_str(), 1);
        }
        execl(kChaosApp.c_str(), kChaosApp.c_str(), "init", "stream", "200", noted.c_str(),
              static_cast<char*>(nullptr));
        _exit(127);
    }
    // The app notes its count at 200 ms and writes it 400 ms (8 intervals) later.
    for (int i = 0; i < 1500 && !fs::exists(noted); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    const bool ready = fs::exists(noted);
    kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(ready) << "chaos_app never wrote its count";
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
    const long flushed = std::stol(readFile(noted));
    ASSERT_GT(flushed, 0);

    const ProcessResult merge =
        runProcess({kPerfmarker, "merge", m_session, "-o", m_scratch.path() + "/killed.atp"}, {},
                   m_scratch.path());
    ASSERT_EQ(merge.exitCode, 0) << merge.err;
    PairCount count;
    ASSERT_TRUE(readPairs(m_scratch.path() + "/killed.atp", count)) << merge.err;
    EXPECT_EQ(count.problem, "");
    EXPECT_EQ(count.threads, 1u);
    EXPECT_LE(count.openTails, 1u);
    EXPECT_GE(count.pairs, static_cast<size_t>(flushed));
}

// 2,000 threads that live for 100 pairs each, 16 at a time: every thread registers, exits and is
// retired while others start, and every pair of every thread is in the output, whole.
TEST_F(ChaosProcess, ThreadStormCountsAreExact) {
    constexpr long kThreads = 2000;
    constexpr long kPairsEach = 100;
    for (const char* mode : {"timeout", "cached"}) {
        SCOPED_TRACE(mode);
        const ProcessResult run = runProcess({kChaosApp, "init", "storm", std::to_string(kThreads),
                                              "16", std::to_string(kPairsEach), "finalize"},
                                             session(mode, "5"), m_scratch.path());
        ASSERT_EQ(run.exitCode, 0) << run.err;
        EXPECT_EQ(run.out, "init=0\nstorm=" + std::to_string(kThreads * kPairsEach) +
                               " failed=0\nfinalize=0\n")
            << run.err;
        PairCount count;
        ASSERT_TRUE(readPairs(m_session + "/run.clperfmarker", count));
        EXPECT_EQ(count.problem, "");
        EXPECT_EQ(count.openTails, 0u);
        EXPECT_EQ(count.threads, static_cast<size_t>(kThreads));
        EXPECT_EQ(count.pairs, static_cast<size_t>(kThreads * kPairsEach));
        fs::remove(m_session + "/run.clperfmarker");
    }
}

// 24 children forked at once while the parent records and its writer runs: each child writes its
// own run.<pid>.clperfmarker with exactly its pairs, the parent's file holds only its own.
TEST_F(ChaosProcess, ForkBurstGivesEveryProcessItsOwnExactFile) {
#if PERFMARKER_TEST_SANITIZED
    // chaos_app is built with the sanitizer too. ASan's allocator (GCC 12) has no fork
    // handlers: a child forked while the writer thread holds its lock deadlocks in malloc (a
    // CI run timed out here). TSan cannot start threads in such a child. As in
    // markers_core_fork_test, the plain build runs it.
    GTEST_SKIP() << "sanitizers do not support this multi-threaded fork";
#endif
    constexpr int kChildren = 24;
    constexpr long kPairs = 5000;
    const ProcessResult run =
        runProcess({kChaosApp, "init", "pairs", std::to_string(kPairs), "forks",
                    std::to_string(kChildren), std::to_string(kPairs), "finalize"},
                   session("timeout", "2"), m_scratch.path());
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const std::string pairs = std::to_string(kPairs);
    EXPECT_EQ(run.out, "init=0\npairs=" + pairs + " failed=0\nforks=" + std::to_string(kChildren) +
                           "\npairs=" + pairs + " failed=0\nfinalize=0\n")
        << run.err;
    int childFiles = 0;
    for (const auto& entry : fs::directory_iterator(m_session)) {
        const std::string name = entry.path().filename().string();
        SCOPED_TRACE(name);
        ASSERT_EQ(entry.path().extension(), ".clperfmarker") << "only outputs are left";
        PairCount count;
        ASSERT_TRUE(readPairs(entry.path().string(), count));
        EXPECT_EQ(count.problem, "");
        EXPECT_EQ(count.threads, 1u);
        EXPECT_EQ(count.openTails, 0u);
        if (name == "run.clperfmarker") {
            EXPECT_EQ(count.pairs, static_cast<size_t>(2 * kPairs));
        } else {
            EXPECT_EQ(count.pairs, static_cast<size_t>(kPairs));
            ++childFiles;
        }
    }
    EXPECT_EQ(childFiles, kChildren);
}

}  // namespace
