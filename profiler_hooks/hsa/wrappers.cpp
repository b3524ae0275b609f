// The generated wrappers (one per table slot) and what they record.
#include "wrappers.h"

#include <cstdio>
#include <tuple>

#include "api/hsa_api.h"
#include "device_timing.h"
#include "traced_call.h"

namespace perfmarker::hsatrace {
namespace {

std::array<bool, kSlotCount> g_unrecorded{};  // named by the API filter
HsaApiTable* g_table = nullptr;
TableCheck g_check;  // what installWrappers patched

// A recorded call, out of line so that the wrapper's pass-through path needs no stack frame.
template <unsigned Slot, int Id, typename R, typename... A>
__attribute__((noinline)) R tracedCall(R (*next)(A...), A... a) {
    CallInfo info;
    info.slot = Slot;
    info.apiTypeId = Id;
    return recordedCall<Slot>(info, next, a...);
}

template <unsigned Slot, int Id, typename R, typename... A>
R maybeRecorded(R (*next)(A...), A... a) {
    if (PERFMARKER_LIKELY(!isRecording()) || g_unrecorded[Slot]) return next(a...);
    return tracedCall<Slot, Id>(next, a...);
}

template <unsigned Slot, int Id, typename Fn>
struct Traced;

template <unsigned Slot, int Id, typename R, typename... A>
struct Traced<Slot, Id, R (*)(A...)> {
    static R call(A... a) {
        const auto next = original<R (*)(A...)>(Slot);
        // The call site (docs/call-sites.md#which-frame), for the record written below.
        if (PERFMARKER_UNLIKELY(hooks::g_recordCallSites) && isRecording()) {
            hooks::t_callSite =
                hooks::callSiteOf(__builtin_return_address(0), __builtin_frame_address(0));
        }
        if constexpr (Slot == kSlot_hsa_init || Slot == kSlot_hsa_shut_down) {
            return next(a...);  // OnLoad / OnUnload write these (docs/hsa-trace.md)
        } else if constexpr (Slot == kSlot_hsa_queue_create) {
            return createQueue(Slot, Id, next, a...);
        } else if constexpr (Slot == kSlot_hsa_amd_memory_async_copy) {
            return asyncCopy(Slot, Id, next, a...);
        } else if constexpr (Slot == kSlot_hsa_executable_get_symbol ||
                             Slot == kSlot_hsa_executable_get_symbol_by_name) {
            const R r = maybeRecorded<Slot, Id>(next, a...);
            if (r == HSA_STATUS_SUCCESS) {
                noteSymbolOutput(std::get<sizeof...(A) - 1>(std::tie(a...)));
            }
            return r;
        } else if constexpr (Slot == kSlot_hsa_executable_symbol_get_info) {
            const R r = maybeRecorded<Slot, Id>(next, a...);
            if (r == HSA_STATUS_SUCCESS &&
                std::get<1>(std::tie(a...)) == HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT) {
                noteSymbol(std::get<0>(std::tie(a...)));
            }
            return r;
        } else {
            return maybeRecorded<Slot, Id>(next, a...);
        }
    }
};

#define PM_TABLE_Core CoreApiTable
#define PM_TABLE_AmdExt AmdExtTable
// Filled at static initialization (a function address cast is not a constant expression).
void* const kWrappers[kSlotCount] = {
#define PM_HSA_API(slot, Table, id, name, ret, params) \
    reinterpret_cast<void*>(&Traced<slot, id, decltype(PM_TABLE_##Table::name##_fn)>::call),
#include "api/hsa_api_table.inc"
};

void** coreSlots(HsaApiTable* t) {
    return reinterpret_cast<void**>(reinterpret_cast<char*>(t->core_) + sizeof(ApiTableVersion));
}
void** amdSlots(HsaApiTable* t) {
    return reinterpret_cast<void**>(reinterpret_cast<char*>(t->amd_ext_) + sizeof(ApiTableVersion));
}

unsigned slotsIn(uint32_t bytes, unsigned ours) {
    if (bytes <= sizeof(ApiTableVersion)) return 0;
    const unsigned n = (bytes - sizeof(ApiTableVersion)) / sizeof(void*);
    return n < ours ? n : ours;
}

}  // namespace

TableCheck checkTable(const HsaApiTable* table) {
    TableCheck c;
    if (table == nullptr) {
        c.message = "the runtime passed no API table";
        return c;
    }
    if (table->version.major_id != HSA_API_TABLE_MAJOR_VERSION) {
        c.message = "the runtime's API table has major version " +
                    std::to_string(table->version.major_id) + ", this agent knows version " +
                    std::to_string(HSA_API_TABLE_MAJOR_VERSION);
        return c;
    }
    if (table->version.minor_id < offsetof(HsaApiTable, amd_ext_) || table->core_ == nullptr) {
        c.message = "the runtime's API table (" + std::to_string(table->version.minor_id) +
                    " bytes) has no core table";
        return c;
    }
    if (table->core_->version.major_id != HSA_CORE_API_TABLE_MAJOR_VERSION) {
        c.message = "the runtime's core table has major version " +
                    std::to_string(table->core_->version.major_id) + ", this agent knows version " +
                    std::to_string(HSA_CORE_API_TABLE_MAJOR_VERSION);
        return c;
    }
    c.usable = true;
    c.coreSlots = slotsIn(table->core_->version.minor_id, kCoreSlotCount);
    const bool hasAmd =
        table->version.minor_id >= offsetof(HsaApiTable, amd_ext_) + sizeof(void*) &&
        table->amd_ext_ != nullptr &&
        table->amd_ext_->version.major_id == HSA_AMD_EXT_API_TABLE_MAJOR_VERSION;
    c.amdExtSlots = hasAmd ? slotsIn(table->amd_ext_->version.minor_id, kAmdExtSlotCount) : 0;
    if (c.coreSlots < kCoreSlotCount) {
        c.message += "the runtime's core table has " + std::to_string(c.coreSlots) + " of " +
                     std::to_string(kCoreSlotCount) + " entries; ";
    }
    if (c.amdExtSlots < kAmdExtSlotCount) {
        c.message += "the runtime's AMD extension table has " + std::to_string(c.amdExtSlots) +
                     " of " + std::to_string(kAmdExtSlotCount) + " entries; ";
    }
    if (!c.message.empty()) c.message += "the missing entries are not traced";
    return c;
}

void installWrappers(HsaApiTable* table, const TableCheck& check) {
    g_table = table;
    g_check = check;
    void** core = coreSlots(table);
    for (unsigned i = 0; i < check.coreSlots; ++i) g_original[i] = core[i];
    void** amd = check.amdExtSlots > 0 ? amdSlots(table) : nullptr;
    for (unsigned i = 0; i < check.amdExtSlots; ++i) g_original[kCoreSlotCount + i] = amd[i];
    // A slot the runtime left empty stays empty: a wrapper would have nothing to call.
    for (unsigned i = 0; i < check.coreSlots; ++i) {
        if (core[i] != nullptr) core[i] = kWrappers[i];
    }
    for (unsigned i = 0; i < check.amdExtSlots; ++i) {
        if (amd[i] != nullptr) amd[i] = kWrappers[kCoreSlotCount + i];
    }
}

void restoreOriginals() {
    if (g_table == nullptr) return;
    void** core = coreSlots(g_table);
    for (unsigned i = 0; i < g_check.coreSlots; ++i) {
        if (core[i] == kWrappers[i]) core[i] = g_original[i];
    }
    void** amd = g_check.amdExtSlots > 0 ? amdSlots(g_table) : nullptr;
    for (unsigned i = 0; i < g_check.amdExtSlots; ++i) {
        if (amd[i] == kWrappers[kCoreSlotCount + i]) amd[i] = g_original[kCoreSlotCount + i];
    }
    g_table = nullptr;
}

void* wrapperOf(unsigned slot) { return slot < kSlotCount ? kWrappers[slot] : nullptr; }

void applyApiFilter(const std::set<std::string>& names) {
    for (const std::string& name : names) {
        if (const atp::HsaApiSpec* api = atp::hsaApiByName(name)) g_unrecorded[api->slot] = true;
    }
}

}  // namespace perfmarker::hsatrace
