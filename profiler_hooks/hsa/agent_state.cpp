#include "agent_state.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>

#include "api/hsa_api.h"
#include "atp/merge/agent_registry.h"
#include "atp/merge/session_merge.h"
#include "hsa_runtime.h"
#include "record/clock.h"
#include "record/session.h"

namespace perfmarker::hsatrace {

record::Recorder* g_recorder = nullptr;
std::atomic<bool> g_active{false};
std::atomic<bool> g_paused{false};
std::array<void*, kSlotCount> g_original{};

namespace {

// Never destroyed: the merge runs from an ELF destructor, after C++ static destructors.
record::SessionConfig& g_config = *new record::SessionConfig();
long g_initPid = 0;
std::once_flag g_flushOnce;

// The timer thread only sleeps and flips the flag; detached, it holds no resources.
void startControls(const record::SessionConfig& c) {
    if (c.startDisabled) {
        g_paused.store(true, std::memory_order_relaxed);
        return;
    }
    if (c.delayMs == 0 && c.durationMs == 0) return;
    if (c.delayMs > 0) g_paused.store(true, std::memory_order_relaxed);
    std::thread([delay = c.delayMs, duration = c.durationMs] {
        if (delay > 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(delay));
            g_paused.store(false, std::memory_order_relaxed);
        }
        if (duration > 0) {
            std::this_thread::sleep_for(std::chrono::milliseconds(duration));
            g_paused.store(true, std::memory_order_relaxed);
        }
    }).detach();
}

void exitHandler() { flushRecords(); }

}  // namespace

const record::SessionConfig& sessionConfig() { return g_config; }

bool startSession() {
    if (g_recorder != nullptr) return true;
    const record::SessionResult session = record::readSession();
    if (session.status == record::SessionStatus::Absent) return false;
    if (session.status == record::SessionStatus::Invalid) {
        std::fprintf(stderr, "perfmarker: HSA trace agent: invalid session, not tracing: %s\n",
                     session.error.c_str());
        return false;
    }
    g_config = session.config;
    g_initPid = static_cast<long>(getpid());
    startControls(g_config);
    record::RecorderOptions o;
    o.mode = g_config.mode;
    o.intervalMs = g_config.intervalMs;
    o.fragmentDir = atp::sessionTempDir(g_config, g_initPid);
    o.fragmentTag = "hsa";
    o.maxMemoryBytes = size_t{g_config.maxMemoryMb} << 20;
    g_recorder = new record::Recorder(o);  // lives until exit
    std::string liveError;
    const std::string tempDir = atp::sessionTempDir(g_config, g_initPid);
    if (!atp::registerLiveAgent(tempDir, g_initPid, atp::kHsaFragmentTag, liveError)) {
        std::fprintf(stderr, "perfmarker: HSA trace agent: %s\n", liveError.c_str());
    }
    std::atexit(&exitHandler);
    return true;
}

bool recordObject(record::HsaObjectType type, uint32_t id, uint64_t handle, uint64_t parent,
                  uint64_t properties, std::string_view name) {
    if (g_recorder == nullptr) return false;
    record::ThreadLog* log = g_recorder->threadLog();
    if (log == nullptr) return false;
    record::ObjectInfoPayload o{static_cast<uint32_t>(type), id, handle, parent, 0, properties};
    return g_recorder->append(log, record::RecordKind::ObjectInfo, g_recorder->now(),
                              {reinterpret_cast<const char*>(&o), sizeof o}, name);
}

bool recordDevice(const void* payload, size_t bytes) {
    if (g_recorder == nullptr) return false;
    record::ThreadLog* log = g_recorder->threadLog();
    if (log == nullptr) return false;
    return g_recorder->append(log, record::RecordKind::DeviceTimes, g_recorder->now(),
                              {static_cast<const char*>(payload), bytes});
}

void recordCalibration() {
    const auto getInfo = PM_HSA_CALL(hsa_system_get_info);
    if (getInfo == nullptr) return;
    record::HsaCalibrationPayload best{};
    best.type = static_cast<uint32_t>(record::HsaDeviceRecord::Calibration);
    uint64_t bestWindow = ~uint64_t{0};
    for (int i = 0; i < 5; ++i) {
        uint64_t system = 0;
        const uint64_t before = record::monotonicNs();
        const hsa_status_t st = getInfo(HSA_SYSTEM_INFO_TIMESTAMP, &system);
        const uint64_t after = record::monotonicNs();
        if (st != HSA_STATUS_SUCCESS) return;
        if (after - before < bestWindow) {
            bestWindow = after - before;
            best.systemTime = system, best.hostBefore = before, best.hostAfter = after;
        }
    }
    if (getInfo(HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY, &best.frequency) != HSA_STATUS_SUCCESS) return;
    recordDevice(&best, sizeof best);
}

void recordBareCall(unsigned slot, int apiTypeId) {
    if (g_recorder == nullptr) return;
    record::ThreadLog* log = g_recorder->threadLog();
    if (log == nullptr) return;
    const uint64_t now = g_recorder->now();
    record::ApiCallHead head{now, static_cast<uint32_t>(apiTypeId), static_cast<uint16_t>(slot), 0,
                             HSA_STATUS_SUCCESS, 0};
    g_recorder->append(log, record::RecordKind::ApiCall, now,
                       {reinterpret_cast<const char*>(&head), sizeof head});
}

void flushRecords() {
    if (g_recorder == nullptr) return;
    std::call_once(g_flushOnce, [] {
        g_active.store(false, std::memory_order_relaxed);
        std::string error;
        if (!g_recorder->stop(error)) {
            std::fprintf(stderr, "perfmarker: HSA trace agent: %s\n", error.c_str());
        }
        error.clear();
        if (!g_recorder->spillToFragments(error)) {
            std::fprintf(stderr, "perfmarker: HSA trace agent: %s\n", error.c_str());
        }
    });
}

void finishProcessTrace() {
    if (g_recorder == nullptr || static_cast<long>(getpid()) != g_initPid) return;
    flushRecords();
    // With both agents in the process, only the last to finish merges (atp/merge/agent_registry.h).
    atp::mergeAtAgentExit(g_config, g_initPid, atp::kHsaFragmentTag, "HSA trace agent");
}

}  // namespace perfmarker::hsatrace

// Runs after every atexit handler (an ELF destructor of a library loaded after the program), so
// the marker libraries have flushed too; covers applications that never call hsa_shut_down.
__attribute__((destructor)) static void perfmarkerHsaTraceUnload() {
    perfmarker::hsatrace::finishProcessTrace();
}
