// What every generated wrapper does: with no session, call the next layer (one load, one
// branch); with one, take the start and end ticks, run the API's special case if it has one
// (forced profiling, object bookkeeping, enqueue events) and write the ApiCall record.
#pragma once

#include <tuple>
#include <type_traits>

#include "agent_state.h"
#include "api_capture.h"
#include "cl_api.h"
#include "control.h"
#include "object_tracker.h"
#include "special_calls.h"

namespace perfmarker::cltrace {

template <typename Ret>
bool isSuccess(Ret r) {
    if constexpr (std::is_pointer_v<Ret>) {
        return r != nullptr;
    } else {
        return r == CL_SUCCESS;
    }
}

// Index of the `cl_event* event` output of an enqueue API (its only non-const cl_event*).
template <typename... A>
constexpr int eventIndex() {
    int index = -1;
    int i = 0;
    ((index = std::is_same_v<A, cl_event*> ? i : index, ++i), ...);
    return index;
}

// A recorded enqueue gets an event even when the application passed none (spec §3.2), a
// nonzero enqueue id, and a CL_COMPLETE callback that records its device times.
template <typename Ret, typename... A>
Ret tracedEnqueue(CallInfo& info, Ret (*next)(A...), A... a) {
    if (!info.recording) return callNext(info, next, a...);
    constexpr int kEvent = eventIndex<A...>();
    static_assert(kEvent >= 0, "an enqueue API without an event output");
    std::tuple<A...> args{a...};
    cl_event* const appEvent = std::get<kEvent>(args);
    cl_event own = nullptr;
    if (appEvent == nullptr) std::get<kEvent>(args) = &own;
    const Ret r = std::apply([&](A... x) { return callNext(info, next, x...); }, args);
    cl_event event = *std::get<kEvent>(args);
    if (isSuccess(r) && event != nullptr) {
        info.enqueueId = nextEnqueueId();
        trackCommand(event, appEvent != nullptr, info.enqueueId);
    }
    return r;
}

// The API's own behaviour around the call into the next layer.
template <unsigned Slot, bool IsEnqueue, typename Ret, typename... A>
Ret invokeApi(CallInfo& info, Ret (*next)(A...), A... a) {
    if constexpr (Slot == kSlot_clCreateCommandQueue) {
        return createCommandQueue(info, next, a...);
    } else if constexpr (Slot == kSlot_clCreateCommandQueueWithProperties) {
        return createCommandQueueWithProperties(info, next, a...);
    } else if constexpr (Slot == kSlot_clSetCommandQueueProperty) {
        return setCommandQueueProperty(info, next, a...);
    } else if constexpr (Slot == kSlot_clGetCommandQueueInfo) {
        return getCommandQueueInfo(info, next, a...);
    } else if constexpr (Slot == kSlot_clGetEventProfilingInfo) {
        return getEventProfilingInfo(info, next, a...);
    } else if constexpr (Slot == kSlot_clRetainCommandQueue) {
        return retainCommandQueue(info, next, a...);
    } else if constexpr (Slot == kSlot_clReleaseCommandQueue) {
        return releaseCommandQueue(info, next, a...);
    } else if constexpr (Slot == kSlot_clCreateContext || Slot == kSlot_clCreateContextFromType) {
        return createContext(info, next, a...);
    } else if constexpr (Slot == kSlot_clCreateKernel) {
        return createKernel(info, next, a...);
    } else if constexpr (Slot == kSlot_clCreateKernelsInProgram) {
        return createKernelsInProgram(info, next, a...);
    } else if constexpr (Slot == kSlot_clCloneKernel) {
        return cloneKernel(info, next, a...);
    } else if constexpr (IsEnqueue) {
        return tracedEnqueue(info, next, a...);
    } else {
        return callNext(info, next, a...);
    }
}

template <unsigned Slot, int FuncTypeId, bool IsEnqueue, typename Ret, typename... A>
Ret tracedCall(Ret (*next)(A...), A... a) {
    CallInfo info;
    info.slot = Slot;
    info.funcTypeId = FuncTypeId;
    info.recording = isSlotRecorded(Slot) && !isPaused();
    // The application's arguments, before a special case rewrites any of them.
    const uint64_t raw[sizeof...(A) + 1] = {toRaw(a)...};
    if (info.recording) info.startTicks = g_recorder->now();
    uint64_t result = 0;
    if constexpr (std::is_void_v<Ret>) {
        callNext(info, next, a...);
        info.succeeded = true;
    } else {
        const Ret r = invokeApi<Slot, IsEnqueue>(info, next, a...);
        info.succeeded = isSuccess(r);
        result = resultToRaw(r);
        if (info.recording) recordApiCall(info, result, raw, sizeof...(A));
        // Each clReleaseContext makes the data so far reach the fragments (spec §3.6).
        if constexpr (Slot == kSlot_clReleaseContext) g_recorder->flushNow();
        return r;
    }
    if (info.recording) recordApiCall(info, result, raw, sizeof...(A));
}

// The generated wrappers' entry: Api<slot, id, isEnqueue>::with(next)(args...).
template <unsigned Slot, int FuncTypeId, int IsEnqueue>
struct Api {
    template <typename Ret, typename... A>
    struct Bound {
        Ret (*next)(A...);
        Ret operator()(A... a) const {
            if (PERFMARKER_LIKELY(g_recorder == nullptr)) return next(a...);
            return tracedCall<Slot, FuncTypeId, IsEnqueue != 0>(next, a...);
        }
    };
    template <typename Ret, typename... A>
    static Bound<Ret, A...> with(Ret (*next)(A...)) {
        return Bound<Ret, A...>{next};
    }
};

}  // namespace perfmarker::cltrace
