// A stand-in for the ROCm runtime, as far as the agent can see it: a real HsaApiTable (the
// ROCm headers' structures with their real version and size fields) whose slots point at test
// functions. Every slot has a counting stub; the ones the agent relies on behave like the
// runtime: agents, system clock, signals with async handlers (on a handler thread, like the
// runtime's), intercept queues whose packets the test executes with known times, async copies.
#pragma once

#include <hsa/hsa_api_trace.h>

#include <cstdint>
#include <string>
#include <vector>

namespace perfmarker::test {

// The fake's HSA system clock: (CLOCK_MONOTONIC ns) / 2 + kSystemOffset, at 500 MHz, so the
// agent has a real conversion to do.
inline constexpr uint64_t kSystemOffset = 123456789;
inline constexpr uint64_t kSystemFrequency = 500000000;
uint64_t hostToSystem(uint64_t hostNs);

inline constexpr uint64_t kCpuAgent = 1000;
inline constexpr uint64_t kGpuAgent = 2000;
inline hsa_agent_t gpu() { return hsa_agent_t{kGpuAgent}; }
inline constexpr char kCpuName[] = "AMD Ryzen 7 1800X Eight-Core Processor";
inline constexpr char kGpuName[] = "gfx900";
inline constexpr uint64_t kKernelObject = 0x7F8C3A2B1C00ull;
// The GPU's properties beyond its name (the profile mode's occupancy model reads them).
inline constexpr uint32_t kGpuComputeUnits = 64;
inline constexpr uint32_t kGpuSimdsPerCu = 4;
inline constexpr char kKernelSymbol[] = "_Z6reducePfS_i";

// Global slot numbers of hsa_api_table.inc (CoreApiTable first, then AmdExtTable).
enum TestSlot : unsigned {
#define PM_HSA_API(slot, Table, id, name, ret, params) kTest_##name = slot,
#include "api/hsa_api_table.inc"
    kTestSlotCount
};

class FakeRuntime {
public:
    FakeRuntime();   // fills every slot; starts the handler thread
    ~FakeRuntime();  // stops it
    FakeRuntime(const FakeRuntime&) = delete;
    FakeRuntime& operator=(const FakeRuntime&) = delete;

    HsaApiTable* table() { return &m_root; }
    CoreApiTable& core() { return m_core; }
    AmdExtTable& amd() { return m_amd; }

    // Points every slot at its counting stub (no behaviour at all).
    void stubAll();
    // Calls that reached the fake's function of `slot` (global slot numbering of the .inc).
    uint64_t calls(unsigned slot) const;
    // The stub of a slot (what an untouched slot holds).
    static void* stubOf(unsigned slot);

    // The application side of a queue: writes `packet` at the next write index and rings the
    // doorbell (the runtime then hands it to the queue's intercept handler, if any).
    void submit(hsa_queue_t* queue, const hsa_kernel_dispatch_packet_t& packet);
    // The device: runs every packet that reached the hardware queue, with these system-domain
    // times, and completes their completion signals. Returns how many ran.
    size_t execute(hsa_queue_t* queue, uint64_t startSystem, uint64_t endSystem);
    // Times the next async copies report (system domain).
    void setCopyTimes(uint64_t startSystem, uint64_t endSystem);
    // Waits until no registered async handler is due any more (at most `ms`).
    bool drainHandlers(int ms = 2000);
    // The AMD loader extension (hsa_system_get_major_extension_table): its host-address query
    // maps `kernelObject` to a host copy of these 64 descriptor bytes. Offered unless
    // offerLoaderExtension(false).
    void setKernelDescriptor(uint64_t kernelObject, const void* bytes);
    void offerLoaderExtension(bool offered);

private:
    HsaApiTable m_root{};
    CoreApiTable m_core{};
    AmdExtTable m_amd{};
};

// A kernel dispatch packet for kKernelObject with the given completion signal.
hsa_kernel_dispatch_packet_t dispatchPacket(hsa_signal_t completion);

}  // namespace perfmarker::test
