// The agent's process-wide state: its session and recorder, whether it traces now, and the
// records it writes besides API calls (objects, device times, clock calibrations).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "agent_lifecycle.h"
#include "record/api_record.h"

namespace perfmarker::hsatrace {

// The session's recorder (null without a session) and the paused flag (amdtCodeXLStopProfiling
// / Resume, start-disabled, delay and duration): the shared life cycle's (agent_lifecycle.h).
using hooks::g_paused;
using hooks::g_recorder;

// True between a successful OnLoad and OnUnload (the wrappers are in the table).
extern std::atomic<bool> g_active;

inline bool isRecording() {
    return g_active.load(std::memory_order_relaxed) && !g_paused.load(std::memory_order_relaxed);
}

// Starts the shared life cycle; false when there is no (valid) session.
bool startSession();

// Records of this thread, outside the API wrappers. Each returns false when nothing could be
// written (no memory, or after the recorder stopped).
bool recordObject(record::HsaObjectType type, uint32_t id, uint64_t handle, uint64_t parent,
                  uint64_t properties, std::string_view name);
bool recordDevice(const void* payload, size_t bytes);
// One HSA system clock reading bracketed by the trace clock (the smallest of a few windows).
void recordCalibration();
// An ApiCall record with no arguments (the fabricated hsa_init / hsa_shut_down entries).
void recordBareCall(unsigned slot, int apiTypeId);

}  // namespace perfmarker::hsatrace
