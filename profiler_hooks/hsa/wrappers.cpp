// The generated wrappers (one per table slot) and what they record.
#include "wrappers.h"

#include <cstdio>
#include <fstream>
#include <tuple>

#include "api/hsa_api.h"
#include "device_timing.h"
#include "traced_call.h"

namespace perfmarker::hsatrace {
namespace {

// Which arguments a slot's record carries the pointee of (from the table's kinds; most
// slots have none, and then the record is the head and the raw arguments only).
struct Capture {
    uint16_t arg = 0;
    atp::HsaKind kind = atp::HsaKind::Raw;
    bool out = false;
};
struct Plan {
    uint8_t count = 0;
    Capture items[4];
};

std::array<Plan, kSlotCount> g_plans{};
std::array<bool, kSlotCount> g_unrecorded{};  // named by the API filter
HsaApiTable* g_table = nullptr;
TableCheck g_check;  // what installWrappers patched

// Input queues are not read: the record is written after the call, and hsa_queue_destroy has
// freed its queue by then. They print as pointers.
bool capturable(const atp::HsaParam& p) {
    if (p.out) return atp::hsaKindBytes(p.kind) > 0;
    return p.kind == atp::HsaKind::Str || p.kind == atp::HsaKind::QueueOut;
}

void buildPlans() {
    for (const atp::HsaApiSpec& api : atp::hsaApis()) {
        Plan& plan = g_plans[api.slot];
        for (size_t i = 0; i < api.params.size() && plan.count < 4; ++i) {
            if (capturable(api.params[i])) {
                plan.items[plan.count++] = {static_cast<uint16_t>(i), api.params[i].kind, api.params[i].out};
            }
        }
    }
}

constexpr size_t kMaxString = 256;
constexpr size_t kCaptureSpace = 4 * (sizeof(record::CapturedHead) + kMaxString + 8);

size_t putCapture(unsigned char* at, uint16_t arg, record::CaptureEncoding enc, const void* src,
                  size_t bytes) {
    const record::CapturedHead head{arg, static_cast<uint16_t>(enc), static_cast<uint32_t>(bytes)};
    std::memcpy(at, &head, sizeof head);
    std::memcpy(at + sizeof head, src, bytes);
    const size_t padded = record::padTo8(bytes);
    std::memset(at + sizeof head + bytes, 0, padded - bytes);
    return sizeof head + padded;
}

// Outputs are read only after a successful call; input strings always (the caller owns them).
size_t capture(const Plan& plan, const uint64_t* args, bool succeeded, unsigned char* out) {
    size_t used = 0;
    for (unsigned i = 0; i < plan.count; ++i) {
        const Capture& c = plan.items[i];
        const void* ptr = reinterpret_cast<const void*>(args[c.arg]);
        if (ptr == nullptr) continue;
        if (c.out) {
            if (!succeeded) continue;
            uint64_t v = 0;
            std::memcpy(&v, ptr, atp::hsaKindBytes(c.kind));
            used += putCapture(out + used, c.arg, record::CaptureEncoding::Scalar, &v, sizeof v);
        } else if (c.kind == atp::HsaKind::Str) {
            const size_t n = strnlen(static_cast<const char*>(ptr), kMaxString);
            used += putCapture(out + used, c.arg, record::CaptureEncoding::String, ptr, n);
        } else if (c.kind == atp::HsaKind::QueueOut && succeeded) {
            const hsa_queue_t* q = *static_cast<hsa_queue_t* const*>(ptr);
            if (q != nullptr) {
                used += putCapture(out + used, c.arg, record::CaptureEncoding::Bytes, q, sizeof *q);
            }
        }
    }
    return used;
}

template <typename R, typename... A>
R maybeRecorded(unsigned slot, int id, R (*next)(A...), A... a) {
    if (PERFMARKER_LIKELY(!isRecording()) || g_unrecorded[slot]) return next(a...);
    CallInfo info;
    info.slot = slot;
    info.apiTypeId = id;
    return recordedCall(info, next, a...);
}

template <unsigned Slot, int Id, typename Fn>
struct Traced;

template <unsigned Slot, int Id, typename R, typename... A>
struct Traced<Slot, Id, R (*)(A...)> {
    static R call(A... a) {
        const auto next = original<R (*)(A...)>(Slot);
        if constexpr (Slot == kSlot_hsa_init || Slot == kSlot_hsa_shut_down) {
            return next(a...);  // OnLoad / OnUnload write these entries (spec §4.1)
        } else if constexpr (Slot == kSlot_hsa_queue_create) {
            return createQueue(Slot, Id, next, a...);
        } else if constexpr (Slot == kSlot_hsa_amd_memory_async_copy) {
            return asyncCopy(Slot, Id, next, a...);
        } else if constexpr (Slot == kSlot_hsa_executable_get_symbol ||
                             Slot == kSlot_hsa_executable_get_symbol_by_name) {
            const R r = maybeRecorded(Slot, Id, next, a...);
            if (r == HSA_STATUS_SUCCESS) noteSymbolOutput(std::get<sizeof...(A) - 1>(std::tie(a...)));
            return r;
        } else if constexpr (Slot == kSlot_hsa_executable_symbol_get_info) {
            const R r = maybeRecorded(Slot, Id, next, a...);
            if (r == HSA_STATUS_SUCCESS &&
                std::get<1>(std::tie(a...)) == HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT) {
                noteSymbol(std::get<0>(std::tie(a...)));
            }
            return r;
        } else {
            return maybeRecorded(Slot, Id, next, a...);
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

void recordApiCall(const CallInfo& info, uint64_t result, const uint64_t* args, unsigned count) {
    const uint64_t end = g_recorder->now();
    record::ThreadLog* log = g_recorder->threadLog();
    if (log == nullptr) return;
    const Plan& plan = g_plans[info.slot];
    unsigned char captures[kCaptureSpace];
    const size_t captureBytes = plan.count == 0 ? 0 : capture(plan, args, info.succeeded, captures);
    const size_t bytes = sizeof(record::ApiCallHead) + size_t{count} * 8 + captureBytes;
    unsigned char* p = g_recorder->reserve(log, record::RecordKind::ApiCall, info.startTicks, bytes);
    if (p == nullptr) return;
    const record::ApiCallHead head{end, static_cast<uint32_t>(info.apiTypeId),
                                   static_cast<uint16_t>(info.slot), static_cast<uint16_t>(count),
                                   result, info.enqueueId};
    std::memcpy(p, &head, sizeof head);
    std::memcpy(p + sizeof head, args, size_t{count} * 8);
    if (captureBytes > 0) std::memcpy(p + sizeof head + size_t{count} * 8, captures, captureBytes);
    g_recorder->commitReserved(log, bytes);
}

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
    const bool hasAmd = table->version.minor_id >= offsetof(HsaApiTable, amd_ext_) + sizeof(void*) &&
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
    buildPlans();
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

void applyApiFilter(const std::string& path) {
    std::ifstream in(path);
    if (!in) {
        std::fprintf(stderr, "perfmarker: HSA trace agent: cannot read the API filter file %s\n",
                     path.c_str());
        return;
    }
    for (std::string line; std::getline(in, line);) {
        const size_t b = line.find_first_not_of(" \t\r");
        if (b == std::string::npos) continue;
        const std::string name = line.substr(b, line.find_last_not_of(" \t\r") - b + 1);
        if (const atp::HsaApiSpec* api = atp::hsaApiByName(name)) g_unrecorded[api->slot] = true;
    }
}

}  // namespace perfmarker::hsatrace
