#include "agent_state.h"

#include "atp/merge/merger.h"
#include "hsa_runtime.h"
#include "record/clock.h"

namespace perfmarker::hsatrace {

std::atomic<bool> g_active{false};
std::array<void*, kSlotCount> g_original{};

namespace {

// The flush stops the wrappers' recording before the recorder stops.
void deactivate() { g_active.store(false, std::memory_order_relaxed); }

}  // namespace

bool startSession() {
    hooks::AgentIdentity agent;
    agent.name = "HSA trace agent";
    agent.fragmentTag = atp::kHsaFragmentTag;
    agent.beforeFlush = &deactivate;
    return hooks::startAgent(agent);
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

}  // namespace perfmarker::hsatrace
