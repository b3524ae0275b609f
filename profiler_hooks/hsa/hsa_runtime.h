// The runtime as the agent sees it: the ROCm table declarations, the slot numbering of
// hsa_api_table.inc, and the saved original entry points (the only way the agent calls into
// the runtime, so that its own calls are never traced).
#pragma once

#include <hsa/hsa_api_trace.h>  // needs AMD_INTERNAL_BUILD (set by the target)

#include <array>
#include <cstddef>

namespace perfmarker::hsatrace {

enum HsaSlot : unsigned {
#define PM_HSA_API(slot, Table, id, name, ret, params) kSlot_##name = slot,
#include "api/hsa_api_table.inc"
    kSlotCount
};

inline constexpr unsigned kCoreSlotCount = kSlot_hsa_executable_iterate_program_symbols + 1;
inline constexpr unsigned kAmdExtSlotCount = kSlotCount - kCoreSlotCount;

// The table has a version header, then one function pointer per slot, in .inc order: the
// .inc covers every slot of both tables exactly when these hold.
static_assert(offsetof(CoreApiTable, hsa_init_fn) == sizeof(ApiTableVersion), "core layout");
static_assert(sizeof(CoreApiTable) == sizeof(ApiTableVersion) + kCoreSlotCount * sizeof(void*),
              "hsa_api_table.inc must list every CoreApiTable slot: regenerate it");
static_assert(sizeof(AmdExtTable) == sizeof(ApiTableVersion) + kAmdExtSlotCount * sizeof(void*),
              "hsa_api_table.inc must list every AmdExtTable slot: regenerate it");
static_assert(sizeof(hsa_queue_t) == 40 && offsetof(hsa_queue_t, id) == 32,
              "hsa_queue_t layout as api/hsa_api.h prints it");
static_assert(sizeof(hsa_kernel_dispatch_packet_t) == 64, "AQL packets are 64 bytes");

// The runtime's entry points, saved at OnLoad (null where the runtime's table is shorter).
// Written before the table is patched, then only read.
extern std::array<void*, kSlotCount> g_original;

template <typename Fn>
Fn original(unsigned slot) {
    return reinterpret_cast<Fn>(g_original[slot]);
}

#define PM_HSA_CALL(name) \
    ::perfmarker::hsatrace::original<decltype(&::name)>(::perfmarker::hsatrace::kSlot_##name)

}  // namespace perfmarker::hsatrace
