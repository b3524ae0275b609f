// The agent's process-wide state: its session and recorder, whether it traces now, and the
// records it writes besides API calls (objects, device times, clock calibrations).
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>

#include "record/api_record.h"
#include "record/recorder.h"
#include "record/session.h"

namespace perfmarker::hsatrace {

// Null without a (valid) session. Created by startSession, lives until the process exits.
extern record::Recorder* g_recorder;

// True between a successful OnLoad and OnUnload (the wrappers are in the table).
extern std::atomic<bool> g_active;
// amdtCodeXLStopProfiling / Resume, start-disabled, delay and duration (spec §7.4). Relaxed:
// it publishes no data; a call racing with a pause may be recorded or not.
extern std::atomic<bool> g_paused;

inline bool isRecording() {
    return g_active.load(std::memory_order_relaxed) && !g_paused.load(std::memory_order_relaxed);
}

// The session read by startSession (defaults before).
const record::SessionConfig& sessionConfig();

// Reads the session; false (and a message when the session is invalid) when there is none.
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

// Stops the recorder and puts every record into the fragments (OnUnload, or exit when the
// application never shut the runtime down). Idempotent.
void flushRecords();

// After every atexit handler: flush if needed, then merge this process's fragments into the
// .atp (the same merge the launcher runs).
void finishProcessTrace();

}  // namespace perfmarker::hsatrace
