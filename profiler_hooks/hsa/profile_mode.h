// The HSA agent's profile mode (docs/profile.md#hsa): with PERFMARKER_PROFILE_OUTPUT set, the
// agent writes no trace; it writes one CSV row per kernel dispatch packet (sizes and segment
// sizes from the packet, registers from the kernel descriptor) and, for dispatches to GPU agents
// of a known generation, one `.occupancy` row.
#pragma once

#include <atomic>
#include <cstdint>
#include <string_view>

#include "hsa_runtime.h"

namespace perfmarker::hsatrace {

struct TableCheck;

// True between a successful startProfileMode and the end of the profile.
extern std::atomic<bool> g_profileOn;

inline bool profileModeOn() { return g_profileOn.load(std::memory_order_relaxed); }

// PERFMARKER_PROFILE_OUTPUT is set (and not empty): OnLoad starts the profile mode, not a trace.
bool profileRequested();

// OnLoad in profile mode: installs the wrappers (for the queues and the kernel names), creates
// both files (`___PID___` expanded) and notes the agents. Problems go to stderr; the agent then
// stays loaded and changes nothing. Always true (OnLoad's answer).
bool startProfileMode(HsaApiTable* table, const TableCheck& check);

// The packets an application thread submitted to a queue of `agent` (from the queue's intercept
// handler, before they reach the hardware): one row per kernel dispatch packet.
void profileDispatches(hsa_agent_t agent, const void* packets, uint64_t count);

// The name of a kernel object (from its executable symbol), for the Method column.
void noteProfileKernelName(uint64_t kernelObject, std::string_view name);

// OnUnload: puts the runtime's functions back and finishes the files.
void stopProfileMode();

// Writes the header and the rows into both files (OnUnload, else the library's destructor).
// Runs once; later dispatches are not written.
void finishProfileMode();

}  // namespace perfmarker::hsatrace
