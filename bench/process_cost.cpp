// What tracing costs the whole process (docs/performance.md, "What the process pays"): a probe
// that records N marker pairs per thread through the public CLPerfMarker API in a fresh process
// (cold: the first pairs of the process, page faults and chunk clearing included; warm: the same
// pairs again after a first batch), finalizes, and reports per pair:
//   - recording-thread CPU (CLOCK_THREAD_CPUTIME_ID of the recording threads),
//   - whole-process CPU (getrusage RUSAGE_SELF after finalize: every thread, finalize included),
//   - the writer thread's CPU while the threads record (the thread named perfmarker-wr,
//     docs/session.md#modes),
//   - wall per pair per thread,
//   - the minor page faults and context switches of each recording thread while it records,
//   - bytes the process wrote (write(2) bytes from /proc/self/io, fragments included) against
//     the final .clperfmarker size,
//   - finalize alone: its CPU (every thread) and its wall time, what a program waits for at
//     its end (cold runs),
// side by side with two rdtsc read on as many threads.
//
//   bench/process_cost [--pairs N] [--threads 1,2] [--mode timeout|cached] [--dir D]
//
// The driver re-runs itself once per configuration (`--child ...`), so every row is a fresh
// process.
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "CLPerfMarker.h"
#include "process_clocks.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace {

namespace fs = std::filesystem;
using perfmarker::bench::namedThreadCpuNs;
using perfmarker::bench::nowNs;
using perfmarker::bench::processCpuNs;

// The name of the libraries' writer thread (docs/session.md#modes).
constexpr char kWriterName[] = "perfmarker-wr";

// Bytes passed to write(2) and friends by this process so far ("wchar" in /proc/self/io).
double bytesWritten() {
    std::ifstream in("/proc/self/io");
    std::string key;
    double value = 0;
    while (in >> key >> value) {
        if (key == "wchar:") return value;
    }
    return 0;
}

uint64_t ticks() {
#if defined(__x86_64__) || defined(__i386__)
    return __rdtsc();
#else
    return static_cast<uint64_t>(nowNs(CLOCK_MONOTONIC));
#endif
}

struct ThreadResult {
    double cpuNs = 0;
    double wallNs = 0;
    double faults = 0;    // minor page faults of the thread
    double switches = 0;  // context switches of the thread, voluntary or not
};

rusage threadUsage() {
    rusage u{};
    getrusage(RUSAGE_THREAD, &u);
    return u;
}

// `pairs` pairs on this thread; its CPU and wall time.
ThreadResult recordPairs(uint64_t pairs, bool markers) {
    const rusage usage0 = threadUsage();
    const double cpu0 = nowNs(CLOCK_THREAD_CPUTIME_ID);
    const double wall0 = nowNs(CLOCK_MONOTONIC);
    uint64_t sink = 0;
    for (uint64_t i = 0; i < pairs; ++i) {
        if (markers) {
            clBeginPerfMarkerAMD("frame", "render");
            clEndPerfMarkerAMD();
        } else {
            sink += ticks();
            sink += ticks();
        }
    }
    if (sink == 1) std::puts("");  // keep the floor's reads
    const double cpu = nowNs(CLOCK_THREAD_CPUTIME_ID) - cpu0;
    const double wall = nowNs(CLOCK_MONOTONIC) - wall0;
    const rusage usage = threadUsage();
    return {
        cpu, wall, static_cast<double>(usage.ru_minflt - usage0.ru_minflt),
        static_cast<double>(usage.ru_nvcsw + usage.ru_nivcsw - usage0.ru_nvcsw - usage0.ru_nivcsw)};
}

std::vector<ThreadResult> onThreads(int threads, uint64_t pairs, bool markers) {
    std::vector<ThreadResult> results(static_cast<size_t>(threads));
    std::vector<std::thread> pool;
    std::atomic<int> ready{0};
    for (int t = 0; t < threads; ++t) {
        pool.emplace_back([&, t] {
            ready.fetch_add(1);
            while (ready.load() < threads) {
            }
            results[static_cast<size_t>(t)] = recordPairs(pairs, markers);
        });
    }
    for (auto& thread : pool) thread.join();
    return results;
}

double mean(const std::vector<ThreadResult>& rs, double ThreadResult::*field) {
    double sum = 0;
    for (const ThreadResult& r : rs) sum += r.*field;
    return sum / static_cast<double>(rs.size());
}

// One configuration in this (fresh) process; prints one result line.
int child(int threads, uint64_t pairs, bool warm, const std::string& base) {
    const std::vector<ThreadResult> floor = onThreads(threads, pairs, false);
    if (clInitializePerfMarkerAMD() != AP_SUCCESS) {
        std::fprintf(stderr, "process_cost: no session (PERFMARKER_OUTPUT)\n");
        return 1;
    }
    if (warm) onThreads(threads, pairs, true);  // fault in, fill the pool, then measure
    const double cpu0 = processCpuNs();
    const double bytes0 = bytesWritten();
    const double writer0 = namedThreadCpuNs(kWriterName);
    const std::vector<ThreadResult> rec = onThreads(threads, pairs, true);
    const double writerCpu = namedThreadCpuNs(kWriterName) - writer0;
    const double finalizeCpu0 = processCpuNs();
    const double finalizeWall0 = nowNs(CLOCK_MONOTONIC);
    if (clFinalizePerfMarkerAMD() != AP_SUCCESS) return 1;
    const double finalizeWall = nowNs(CLOCK_MONOTONIC) - finalizeWall0;
    const double processCpu = processCpuNs() - cpu0;
    const double finalizeCpu = processCpu + cpu0 - finalizeCpu0;
    const double bytes = bytesWritten() - bytes0;
    const double measured = static_cast<double>(pairs) * threads;
    const double outputBytes = static_cast<double>(fs::file_size(base + ".clperfmarker"));
    const double floorNs = mean(floor, &ThreadResult::wallNs) / static_cast<double>(pairs);
    const double threadCpu = mean(rec, &ThreadResult::cpuNs) / static_cast<double>(pairs);
    const double wall = mean(rec, &ThreadResult::wallNs) / static_cast<double>(pairs);
    const double writer = writerCpu / measured;
    const double faults = mean(rec, &ThreadResult::faults);
    const double switches = mean(rec, &ThreadResult::switches);
    // The process CPU and the bytes are the whole run's only when cold: warm, finalize also
    // writes the warm-up pairs, so those columns are left out.
    if (warm) {
        std::printf(
            "%-4s %7d %10.1f %8.2fx %10s %9s %8.1f %10.1f %8.2fx %8.1f %8s %7s %8.0f %8.0f %8s "
            "%8s\n",
            "warm", threads, threadCpu, threadCpu / floorNs, "-", "", writer, wall, wall / floorNs,
            floorNs, "-", "-", faults, switches, "-", "-");
    } else {
        std::printf(
            "%-4s %7d %10.1f %8.2fx %10.1f %8.2fx %8.1f %10.1f %8.2fx %8.1f %8.1f %6.2fx %8.0f "
            "%8.0f %8.1f %8.1f\n",
            "cold", threads, threadCpu, threadCpu / floorNs, processCpu / measured,
            processCpu / measured / floorNs, writer, wall, wall / floorNs, floorNs,
            bytes / measured, bytes / outputBytes, faults, switches, finalizeCpu / measured,
            finalizeWall / measured);
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    uint64_t pairs = 3'000'000;
    std::string threadList = "1,2";
    std::string mode = "timeout";
    std::string dir;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--child" && i + 4 < argc) {
            return child(std::atoi(argv[i + 1]), std::strtoull(argv[i + 2], nullptr, 10),
                         std::strcmp(argv[i + 3], "warm") == 0, argv[i + 4]);
        }
        if (i + 1 >= argc) break;
        if (arg == "--pairs") pairs = std::strtoull(argv[++i], nullptr, 10);
        if (arg == "--threads") threadList = argv[++i];
        if (arg == "--mode") mode = argv[++i];
        if (arg == "--dir") dir = argv[++i];
    }
    std::string made;
    if (dir.empty()) {
        char tmpl[] = "/tmp/perfmarker-cost-XXXXXX";
        if (mkdtemp(tmpl) == nullptr) return 1;
        dir = made = tmpl;
    }
    std::printf(
        "pairs per thread %llu, %s mode; ns per pair; x = over two rdtsc on as many "
        "threads\n",
        static_cast<unsigned long long>(pairs), mode.c_str());
    std::printf("%-4s %7s %10s %9s %10s %9s %8s %10s %9s %8s %8s %7s %8s %8s %8s %8s\n", "run",
                "threads", "rec CPU", "", "proc CPU", "", "writer", "wall", "", "rdtsc2", "B/pair",
                "B/out", "faults", "switches", "fin CPU", "fin wall");
    std::fflush(stdout);
    std::stringstream list(threadList);
    for (std::string item; std::getline(list, item, ',');) {
        for (const char* warmth : {"cold", "warm"}) {
            const std::string base = dir + "/run-" + item + "-" + warmth;
            const pid_t pid = fork();
            if (pid == 0) {
                setenv("PERFMARKER_OUTPUT", base.c_str(), 1);
                setenv("PERFMARKER_MODE", mode.c_str(), 1);
                execl("/proc/self/exe", argv[0], "--child", item.c_str(),
                      std::to_string(pairs).c_str(), warmth, base.c_str(), nullptr);
                _exit(127);
            }
            int status = 0;
            waitpid(pid, &status, 0);
            if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
                std::fprintf(stderr, "process_cost: run %s/%s failed\n", item.c_str(), warmth);
                return 1;
            }
            std::error_code ignored;
            fs::remove(base + ".clperfmarker", ignored);
        }
    }
    if (!made.empty()) fs::remove_all(made);
    return 0;
}
