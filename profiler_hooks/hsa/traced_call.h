// What every generated wrapper does: pass straight through when not recording (two loads,
// one branch); else take the start and end ticks around the runtime's function and write one
// ApiCall record with the raw arguments and the values some of them point to.
#pragma once

#include <cstring>
#include <type_traits>

#include "agent_state.h"
#include "hsa_runtime.h"

namespace perfmarker::hsatrace {

// What one call hands to the record writer.
struct CallInfo {
    unsigned slot = 0;
    int apiTypeId = -1;
    uint64_t startTicks = 0;
    uint64_t enqueueId = 0;  // async copies: matched with their transfer times at merge
    bool succeeded = true;   // outputs are only read after a successful call
};

// Writes the record (captures per the slot's plan, see wrappers.cpp).
void recordApiCall(const CallInfo& info, uint64_t result, const uint64_t* args, unsigned count);

template <typename T>
uint64_t toRaw(T v) {
    if constexpr (std::is_pointer_v<T>) {
        return reinterpret_cast<uint64_t>(v);
    } else if constexpr (std::is_enum_v<T> || std::is_integral_v<T>) {
        return static_cast<uint64_t>(v);  // signed values keep their bits; the printer narrows
    } else {
        static_assert(sizeof(T) <= sizeof(uint64_t) && std::is_trivially_copyable_v<T>,
                      "by-value HSA arguments are handles");
        uint64_t raw = 0;
        std::memcpy(&raw, &v, sizeof v);
        return raw;
    }
}

template <typename R>
bool isSuccess(R r) {
    if constexpr (std::is_same_v<R, hsa_status_t>) {
        return r == HSA_STATUS_SUCCESS || r == HSA_STATUS_INFO_BREAK;
    } else {
        return true;
    }
}

// The generic recorded call (special cases build on it).
template <typename R, typename... A>
R recordedCall(CallInfo& info, R (*next)(A...), A... a) {
    const uint64_t raw[sizeof...(A) + 1] = {toRaw(a)...};
    info.startTicks = g_recorder->now();
    if constexpr (std::is_void_v<R>) {
        next(a...);
        recordApiCall(info, 0, raw, sizeof...(A));
    } else {
        const R r = next(a...);
        info.succeeded = isSuccess(r);
        recordApiCall(info, toRaw(r), raw, sizeof...(A));
        return r;
    }
}

}  // namespace perfmarker::hsatrace
