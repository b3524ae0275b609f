// The profile mode's counters (profile/counters/perf_counters.h) on this machine's kernel: the
// software events are counted whenever perf events are allowed at all.
#include "profile/counters/perf_counters.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <ctime>
#include <thread>

namespace perfmarker::profile {
namespace {

bool perfEventsAllowed() {
    std::vector<CounterEvent> events;
    std::string error;
    return resolveCounters({"task-clock"}, events, error);
}

uint64_t threadCpuNs() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1'000'000'000u + static_cast<uint64_t>(ts.tv_nsec);
}

// Runs on the CPU for `ns` of this thread's own CPU time (however busy the machine is).
void spinCpu(uint64_t ns) {
    const uint64_t end = threadCpuNs() + ns;
    volatile unsigned long sink = 0;
    while (threadCpuNs() < end) sink = sink + 1;
}

TEST(PerfCounters, UnknownNameIsRefusedByName) {
    std::vector<CounterEvent> events;
    std::string error;
    EXPECT_FALSE(resolveCounters({"task-clock", "no-such-counter"}, events, error));
    EXPECT_NE(error.find("unknown counter 'no-such-counter'"), std::string::npos) << error;
}

TEST(PerfCounters, EmptyAndRepeatedNamesAreRefused) {
    std::vector<CounterEvent> events;
    std::string error;
    EXPECT_FALSE(resolveCounters({"task-clock", ""}, events, error));
    EXPECT_NE(error.find("empty counter name"), std::string::npos) << error;
    EXPECT_FALSE(resolveCounters({"page-faults", "page-faults"}, events, error));
    EXPECT_NE(error.find("'page-faults' is named twice"), std::string::npos) << error;
}

TEST(PerfCounters, NotAllowedMessageNamesTheSettingAndWhatStillWorks) {
    const std::string high = notAllowedMessage("cycles", EACCES, 4);
    EXPECT_NE(high.find("counter 'cycles' is not allowed"), std::string::npos) << high;
    EXPECT_NE(high.find("/proc/sys/kernel/perf_event_paranoid is 4"), std::string::npos);
    EXPECT_NE(high.find("3 and above forbid"), std::string::npos);
    EXPECT_NE(high.find("without --counters"), std::string::npos);
    const std::string unreadable = notAllowedMessage("cycles", EPERM, -100);
    EXPECT_NE(unreadable.find("cannot be read"), std::string::npos) << unreadable;
    EXPECT_EQ(notAllowedMessage("x", EACCES, 2).find("3 and above"), std::string::npos);
}

TEST(PerfCounters, ListedCountersResolve) {
    if (!perfEventsAllowed()) GTEST_SKIP() << "perf events are not allowed here";
    const std::vector<std::string> names = availableCounters();
    EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
    EXPECT_NE(std::find(names.begin(), names.end(), "task-clock"), names.end());
    EXPECT_NE(std::find(names.begin(), names.end(), "context-switches"), names.end());
    std::vector<CounterEvent> events;
    std::string error;
    EXPECT_TRUE(resolveCounters({names.front(), names.back()}, events, error)) << error;
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].name, names.front());
}

// A dispatch's counts cover every thread of the process: 50 ms of CPU on another thread shows
// in task-clock (nanoseconds) between two reads.
TEST(PerfCounters, CountsCoverEveryThreadOfTheProcess) {
    if (!perfEventsAllowed()) GTEST_SKIP() << "perf events are not allowed here";
    std::vector<CounterEvent> events;
    std::string error;
    ASSERT_TRUE(resolveCounters({"task-clock"}, events, error)) << error;
    ProcessCounters counters(events);
    std::atomic<bool> go{false};
    std::thread worker([&go] {
        while (!go.load()) std::this_thread::yield();
        spinCpu(50'000'000u);
    });
    ASSERT_TRUE(counters.refreshThreads(error)) << error;
    EXPECT_GE(counters.threadCount(), 2u);
    const std::vector<uint64_t> before = counters.read();
    go = true;
    worker.join();
    const std::vector<uint64_t> after = counters.read();
    ASSERT_EQ(before.size(), 1u);
    // The kernel's task-clock and the thread's CPU clock are kept apart: within 10%.
    EXPECT_GE(after[0] - before[0], 45'000'000u) << "task-clock of the worker's 50 ms";
    // The ended thread is dropped at the next refresh.
    ASSERT_TRUE(counters.refreshThreads(error)) << error;
    EXPECT_EQ(counters.threadCount(), 1u);
}

TEST(PerfCounters, NoEventsMeansNothingToOpenOrRead) {
    ProcessCounters counters({});
    std::string error;
    EXPECT_TRUE(counters.refreshThreads(error));
    EXPECT_EQ(counters.threadCount(), 0u);
    EXPECT_TRUE(counters.read().empty());
}

}  // namespace
}  // namespace perfmarker::profile
