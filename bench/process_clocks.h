// Clocks of the whole-process probes (process_cost, write_cost), in nanoseconds.
#pragma once

#include <dirent.h>
#include <sys/resource.h>
#include <time.h>

#include <cstdlib>
#include <fstream>
#include <string>

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

// The CPU time so far of this process's thread named `name` (its /proc/self/task/<tid>/comm),
// 0 when there is none. Another thread's CPU clock is reached by its tid, in the kernel's encoding
// of thread CPU clocks (the one pthread_getcpuclockid returns: scheduler clock, per thread).
inline double namedThreadCpuNs(const std::string& name) {
    DIR* tasks = opendir("/proc/self/task");
    if (tasks == nullptr) return 0;
    double ns = 0;
    while (const dirent* task = readdir(tasks)) {
        const long tid = std::strtol(task->d_name, nullptr, 10);
        if (tid <= 0) continue;
        std::ifstream comm(std::string("/proc/self/task/") + task->d_name + "/comm");
        std::string taskName;
        if (!std::getline(comm, taskName) || taskName != name) continue;
        const auto clock = static_cast<clockid_t>((~static_cast<unsigned>(tid) << 3) | 6u);
        ns = nowNs(clock);
        break;
    }
    closedir(tasks);
    return ns;
}

}  // namespace perfmarker::bench
