// Counters of the profile mode (docs/profile.md#counters): Linux perf events, named as `perf`
// names them (task-clock, cycles, ...) or as libpfm4 names a PMU's events (pmu::EVENT:umask),
// counted over every thread of the process between two reads.
#pragma once

#include <linux/perf_event.h>

#include <cstdint>
#include <string>
#include <vector>

namespace perfmarker::profile {

// A counter the user named, and the perf event that counts it.
struct CounterEvent {
    std::string name;  // as the user wrote it: the CSV column's name
    perf_event_attr attr{};
};

// The counters this machine offers, one name each: the generic events of the kernel's perf PMU
// in `perf`'s lower-case spelling (task-clock, context-switches, cycles, ...) and the events of
// the hardware PMUs libpfm4 finds (pmu::EVENT), each kept only when the kernel lets this process
// open it. Sorted, without duplicates.
std::vector<std::string> availableCounters();

// Resolves the names through libpfm4 and opens each once on this thread to see that the kernel
// allows it. On failure returns false and sets `error` to a message naming the first counter
// that is unknown or unavailable, with the reason (unknown name, not supported here, or not
// allowed: the perf_event_paranoid setting and what still works without counters).
bool resolveCounters(const std::vector<std::string>& names, std::vector<CounterEvent>& events,
                     std::string& error);

// The message for a perf_event_open refused with `err` (EACCES/EPERM) when
// /proc/sys/kernel/perf_event_paranoid reads `paranoid` (-100 when unreadable).
std::string notAllowedMessage(const std::string& counter, int err, int paranoid);

// Reads /proc/sys/kernel/perf_event_paranoid (-100 when it cannot be read).
int perfEventParanoid();

// Counts a set of events over every thread of this process. refreshThreads() opens the events
// for threads that appeared since the last call (closing those of threads that are gone);
// read() sums each event over every thread opened so far (an exited thread keeps its count).
// A dispatch's counts are read() after it minus read() before it, with refreshThreads() just
// before the first read. Not thread-safe: one owner at a time.
class ProcessCounters {
public:
    explicit ProcessCounters(std::vector<CounterEvent> events);
    ~ProcessCounters();
    ProcessCounters(const ProcessCounters&) = delete;
    ProcessCounters& operator=(const ProcessCounters&) = delete;

    // Returns false (and the reason) when an event cannot be opened for some thread; the
    // threads opened so far keep counting.
    bool refreshThreads(std::string& error);
    std::vector<uint64_t> read() const;
    size_t threadCount() const { return threads_.size(); }
    const std::vector<CounterEvent>& events() const { return events_; }

private:
    struct Thread {
        long tid = 0;
        std::vector<int> fds;  // one per event
        bool seen = false;
    };
    std::vector<CounterEvent> events_;
    std::vector<Thread> threads_;
};

}  // namespace perfmarker::profile
