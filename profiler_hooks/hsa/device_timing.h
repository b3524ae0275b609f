// Device times: kernel dispatches (through queue interception) and async copies (through a
// replacement completion signal), plus the kernel-name and agent bookkeeping they need.
#pragma once

#include <cstdint>

#include "hsa_runtime.h"

namespace perfmarker::hsatrace {

// hsa_queue_create: the queue is created as an intercept queue when the runtime offers it, its
// packets pass through onPackets (below) and profiling is enabled on it. Intercepted even when
// recording is paused, so that later dispatches can be timed.
hsa_status_t createQueue(unsigned slot, int apiTypeId, decltype(&hsa_queue_create) next,
                         hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                         void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                         uint32_t privateSegmentSize, uint32_t groupSegmentSize,
                         hsa_queue_t** queue);

// hsa_amd_memory_async_copy with its transfer times (docs/hsa-trace.md).
hsa_status_t asyncCopy(unsigned slot, int apiTypeId, decltype(&hsa_amd_memory_async_copy) next,
                       void* dst, hsa_agent_t dstAgent, const void* src, hsa_agent_t srcAgent,
                       size_t size, uint32_t numDepSignals, const hsa_signal_t* depSignals,
                       hsa_signal_t completionSignal);

// Kernel names: the symbol's name and kernel object, recorded once per kernel object.
void noteSymbol(hsa_executable_symbol_t symbol);
void noteSymbolOutput(hsa_executable_symbol_t* symbol);

// Records every agent (name, device type, GPU index) through the runtime's own functions.
void recordAgents();

// Dispatches and copies whose completion signal has not fired yet.
uint64_t pendingDeviceWork();

}  // namespace perfmarker::hsatrace
