// The tools-library interface of the ROCm runtime (OnLoad / OnUnload, docs/hsa-trace.md); the
// runtime control entry points are the shared ones (agent_exports.h).
#include <chrono>
#include <cstdio>
#include <thread>

#include "agent_exports.h"
#include "agent_state.h"
#include "api/hsa_api.h"
#include "device_timing.h"
#include "profile_mode.h"
#include "wrappers.h"

namespace perfmarker::hsatrace {
namespace {

constexpr char kPrefix[] = "perfmarker: HSA trace agent";

void reportFailedTools(uint64_t count, const char* const* names) {
    for (uint64_t i = 0; i < count && names != nullptr; ++i) {
        std::fprintf(stderr, "%s: the runtime could not load the tool %s (tracing anyway)\n",
                     kPrefix, names[i] != nullptr ? names[i] : "(unnamed)");
    }
}

// Dispatches still running at unload: give them a moment, then report what is left.
void waitForDeviceWork() {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (pendingDeviceWork() > 0 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    if (const uint64_t left = pendingDeviceWork(); left > 0) {
        std::fprintf(stderr, "%s: %llu kernel dispatches or copies had not completed at unload: "
                             "they are not in the trace\n",
                     kPrefix, static_cast<unsigned long long>(left));
    }
}

}  // namespace

bool onLoad(void* table, uint64_t failedToolCount, const char* const* failedToolNames) {
    auto* hsaTable = static_cast<HsaApiTable*>(table);
    const TableCheck check = checkTable(hsaTable);
    if (!check.usable) {
        std::fprintf(stderr, "%s: %s; not tracing\n", kPrefix, check.message.c_str());
        return false;
    }
    if (profileRequested()) return startProfileMode(hsaTable, check);  // no trace then
    if (!startSession()) return true;  // no session: stay loaded, change nothing
    reportFailedTools(failedToolCount, failedToolNames);
    if (!check.message.empty()) std::fprintf(stderr, "%s: %s\n", kPrefix, check.message.c_str());
    applyApiFilter(hooks::sessionApiFilter());
    installWrappers(hsaTable, check);
    if (g_original[kSlot_hsa_amd_queue_intercept_create] == nullptr) {
        std::fprintf(stderr, "%s: the runtime offers no queue interception: kernel dispatches "
                             "are not timed\n", kPrefix);
    }
    g_active.store(true, std::memory_order_relaxed);
    recordCalibration();
    recordAgents();
    recordBareCall(kSlot_hsa_init, atp::hsaApiBySlot(kSlot_hsa_init)->apiTypeId);
    return true;
}

void onUnload() {
    stopProfileMode();
    if (!g_active.load(std::memory_order_relaxed)) return;
    recordBareCall(kSlot_hsa_shut_down, atp::hsaApiBySlot(kSlot_hsa_shut_down)->apiTypeId);
    waitForDeviceWork();
    recordCalibration();
    restoreOriginals();
    hooks::flushAgent();
}

}  // namespace perfmarker::hsatrace

extern "C" {

PERFMARKER_AGENT_EXPORT bool OnLoad(void* table, uint64_t runtimeVersion,
                                    uint64_t failedToolCount, const char* const* failedToolNames) {
    (void)runtimeVersion;  // the table's own version fields are what we check
    return perfmarker::hsatrace::onLoad(table, failedToolCount, failedToolNames);
}

PERFMARKER_AGENT_EXPORT void OnUnload() { perfmarker::hsatrace::onUnload(); }

}  // extern "C"
