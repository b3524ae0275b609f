// What every generated wrapper does: pass straight through when not recording (two loads,
// one branch); else take the start and end ticks around the runtime's function and write one
// ApiCall record with the raw arguments and the values some of them point to.
#pragma once

#include <cstring>
#include <type_traits>

#include "agent_state.h"
#include "api_capture.h"
#include "hsa_runtime.h"

namespace perfmarker::hsatrace {

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

// The generic recorded call of slot `Slot` (special cases build on it).
template <unsigned Slot, typename R, typename... A>
R recordedCall(CallInfo& info, R (*next)(A...), A... a) {
    static_assert(capture::ruleCount(Slot) == 0 ||
                      capture::kRules[capture::firstRule(Slot) + capture::ruleCount(Slot) - 1].arg <
                          sizeof...(A),
                  "the capture plan does not match the prototype");
    const uint64_t raw[sizeof...(A) + 1] = {toRaw(a)...};
    info.site = hooks::takeCallSite();
    info.startTicks = g_recorder->now();
    if constexpr (std::is_void_v<R>) {
        next(a...);
        recordApiCall<Slot>(info, 0, raw, sizeof...(A));
    } else {
        const R r = next(a...);
        info.succeeded = isSuccess(r);
        recordApiCall<Slot>(info, toRaw(r), raw, sizeof...(A));
        return r;
    }
}

}  // namespace perfmarker::hsatrace
