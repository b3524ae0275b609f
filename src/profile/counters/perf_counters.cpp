#include "profile/counters/perf_counters.h"

#include <dirent.h>
#include <perfmon/pfmlib_perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>

namespace perfmarker::profile {
namespace {

bool initLibpfm() {
    static std::once_flag once;
    static bool ok = false;
    std::call_once(once, [] { ok = pfm_initialize() == PFM_SUCCESS; });
    return ok;
}

int openEvent(perf_event_attr& attr, long tid) {
    return static_cast<int>(
        syscall(SYS_perf_event_open, &attr, static_cast<pid_t>(tid), -1, -1, PERF_FLAG_FD_CLOEXEC));
}

// Opens the event for `tid`, counting user space only when the kernel refuses kernel counting
// (perf_event_paranoid >= 2 without CAP_PERFMON).
int openCounting(perf_event_attr& attr, long tid) {
    attr.size = sizeof attr;
    attr.disabled = 0;
    attr.inherit = 0;
    int fd = openEvent(attr, tid);
    if (fd < 0 && (errno == EACCES || errno == EPERM) && !attr.exclude_kernel) {
        attr.exclude_kernel = 1;
        attr.exclude_hv = 1;
        fd = openEvent(attr, tid);
    }
    return fd;
}

bool encode(const std::string& name, perf_event_attr& attr) {
    attr = perf_event_attr{};
    pfm_perf_encode_arg_t arg{};
    arg.attr = &attr;
    arg.size = sizeof arg;
    return pfm_get_os_event_encoding(name.c_str(), PFM_PLM3, PFM_OS_PERF_EVENT, &arg) ==
           PFM_SUCCESS;
}

// Opens the event on this thread once: 0 when it can be counted, else the errno.
int tryOpen(perf_event_attr attr) {
    const int fd = openCounting(attr, 0);
    if (fd < 0) return errno;
    close(fd);
    return 0;
}

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

}  // namespace

int perfEventParanoid() {
    FILE* f = std::fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    if (f == nullptr) return -100;
    int value = -100;
    if (std::fscanf(f, "%d", &value) != 1) value = -100;
    std::fclose(f);
    return value;
}

std::string notAllowedMessage(const std::string& counter, int err, int paranoid) {
    std::string message =
        "counter '" + counter + "' is not allowed here (" + std::strerror(err) + "): ";
    if (paranoid == -100) {
        message += "/proc/sys/kernel/perf_event_paranoid cannot be read";
    } else {
        message += "/proc/sys/kernel/perf_event_paranoid is " + std::to_string(paranoid);
        if (paranoid > 2) message += " (3 and above forbid perf events to unprivileged users)";
    }
    message +=
        "; lower it (sysctl kernel.perf_event_paranoid=2, or 1 for kernel-side counts), run with "
        "CAP_PERFMON, or allow perf_event_open in the container's seccomp profile. The profile "
        "without --counters (sizes, times, registers, occupancy) still works.";
    return message;
}

std::vector<std::string> availableCounters() {
    std::set<std::string> names;
    if (!initLibpfm()) return {};
    for (int p = PFM_PMU_NONE; p < PFM_PMU_MAX; ++p) {
        const auto pmu = static_cast<pfm_pmu_t>(p);
        pfm_pmu_info_t pmuInfo{};
        pmuInfo.size = sizeof pmuInfo;
        if (pfm_get_pmu_info(pmu, &pmuInfo) != PFM_SUCCESS || !pmuInfo.is_present) continue;
        const std::string pmuName = pmuInfo.name;
        if (pmuName == "perf_raw") continue;  // raw codes, not names
        const bool generic = pmuName == "perf";
        for (int idx = pmuInfo.first_event; idx != -1; idx = pfm_get_event_next(idx)) {
            pfm_event_info_t info{};
            info.size = sizeof info;
            if (pfm_get_event_info(idx, PFM_OS_PERF_EVENT, &info) != PFM_SUCCESS) continue;
            std::string name = info.name;
            // The generic PMU lists each event three ways (PERF_COUNT_HW_CPU_CYCLES, CYCLES,
            // CPU-CYCLES); perf's own spelling is the lower-case alias.
            if (generic) {
                if (name.rfind("PERF_COUNT_", 0) == 0) continue;
                name = lower(name);
            } else {
                name = pmuName + "::" + name;
            }
            perf_event_attr attr;
            if (encode(name, attr) && tryOpen(attr) == 0) names.insert(name);
        }
    }
    return {names.begin(), names.end()};
}

bool resolveCounters(const std::vector<std::string>& names, std::vector<CounterEvent>& events,
                     std::string& error) {
    events.clear();
    if (!initLibpfm()) {
        error = "cannot initialize libpfm4, so no counter names can be resolved";
        return false;
    }
    std::set<std::string> seen;
    for (const std::string& name : names) {
        if (name.empty()) {
            error = "empty counter name in --counters";
            return false;
        }
        if (!seen.insert(name).second) {
            error = "counter '" + name + "' is named twice";
            return false;
        }
        CounterEvent event;
        event.name = name;
        if (!encode(name, event.attr)) {
            error = "unknown counter '" + name + "'";
            return false;
        }
        if (const int err = tryOpen(event.attr); err != 0) {
            if (err == EACCES || err == EPERM) {
                error = notAllowedMessage(name, err, perfEventParanoid());
            } else {
                error = "counter '" + name + "' is not available on this machine (" +
                        std::strerror(err) + ")";
            }
            return false;
        }
        events.push_back(event);
    }
    return true;
}

ProcessCounters::ProcessCounters(std::vector<CounterEvent> events) : events_(std::move(events)) {}

ProcessCounters::~ProcessCounters() {
    for (Thread& thread : threads_) {
        for (int fd : thread.fds) close(fd);
    }
}

bool ProcessCounters::refreshThreads(std::string& error) {
    if (events_.empty()) return true;
    DIR* dir = opendir("/proc/self/task");
    if (dir == nullptr) {
        error = std::string("cannot list the process's threads in /proc/self/task: ") +
                std::strerror(errno);
        return false;
    }
    for (Thread& thread : threads_) thread.seen = false;
    bool ok = true;
    while (const dirent* entry = readdir(dir)) {
        char* end = nullptr;
        const long tid = std::strtol(entry->d_name, &end, 10);
        if (end == entry->d_name || *end != '\0' || tid <= 0) continue;
        auto it = std::find_if(threads_.begin(), threads_.end(),
                               [tid](const Thread& t) { return t.tid == tid; });
        if (it != threads_.end()) {
            it->seen = true;
            continue;
        }
        Thread thread;
        thread.tid = tid;
        thread.seen = true;
        for (const CounterEvent& event : events_) {
            perf_event_attr attr = event.attr;
            const int fd = openCounting(attr, tid);
            if (fd < 0) {
                if (errno == ESRCH) break;  // the thread ended meanwhile
                error = "cannot count '" + event.name + "' on thread " + std::to_string(tid) +
                        ": " + std::strerror(errno);
                ok = false;
                break;
            }
            thread.fds.push_back(fd);
        }
        if (thread.fds.size() == events_.size()) {
            threads_.push_back(std::move(thread));
        } else {
            for (int fd : thread.fds) close(fd);
        }
    }
    closedir(dir);
    // A thread that is gone keeps its final count in read() until its descriptors close; keep
    // them open until the next refresh so that the dispatch it took part in is counted whole.
    for (auto it = threads_.begin(); it != threads_.end();) {
        if (!it->seen) {
            for (int fd : it->fds) close(fd);
            it = threads_.erase(it);
        } else {
            ++it;
        }
    }
    return ok;
}

std::vector<uint64_t> ProcessCounters::read() const {
    std::vector<uint64_t> totals(events_.size(), 0);
    for (const Thread& thread : threads_) {
        for (size_t i = 0; i < thread.fds.size(); ++i) {
            uint64_t value = 0;
            if (::read(thread.fds[i], &value, sizeof value) == sizeof value) totals[i] += value;
        }
    }
    return totals;
}

}  // namespace perfmarker::profile
