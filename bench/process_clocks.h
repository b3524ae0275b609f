// Clocks of the whole-process probes (process_cost, write_cost), in nanoseconds.
#pragma once

#include <sys/resource.h>
#include <time.h>

namespace perfmarker::bench {

// `clock` now (CLOCK_MONOTONIC for wall time, CLOCK_THREAD_CPUTIME_ID for this thread's CPU).
inline double nowNs(clockid_t clock) {
    timespec t{};
    clock_gettime(clock, &t);
    return static_cast<double>(t.tv_sec) * 1e9 + static_cast<double>(t.tv_nsec);
}

// The CPU time of every thread of this process so far, user and system.
inline double processCpuNs() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return (static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1e9) +
           static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e3;
}

}  // namespace perfmarker::bench
