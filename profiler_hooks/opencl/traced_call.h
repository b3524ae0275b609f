// What every generated wrapper does: with no session, call the next layer (one load, one
// branch); paused or filtered, call it too (two more loads and branches), through the API's
// special case if it has one; recording, take the start and end ticks around the special case
// or the call (forced profiling, object bookkeeping, enqueue events) and write the ApiCall
// record with the capture compiled for this entry point (api_capture.h).
#pragma once

#include <tuple>
#include <type_traits>

#include "agent_state.h"
#include "api_capture.h"
#include "cl_api.h"
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

// A recorded enqueue gets an event even when the application passed none (docs/opencl-trace.md,
// "Enqueue events"), a nonzero enqueue id, and a CL_COMPLETE callback that records its device
// times.
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

// The code of a special-case API (cl_api.h kSpecialCaseSlots) around the call into the next
// layer. Every slot of that table has a branch here, and no other slot does.
template <unsigned Slot, typename Ret, typename... A>
Ret specialCall(CallInfo& info, Ret (*next)(A...), A... a) {
    static_assert(hasSpecialCase(Slot), "kSpecialCaseSlots must list this slot");
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
    } else {
        // Its special case is the flush after the call (untracedCall, tracedCall).
        static_assert(Slot == kSlot_clReleaseContext, "a special-case slot without its code");
        return callNext(info, next, a...);
    }
}

// The API's own behaviour around the call into the next layer.
template <unsigned Slot, bool IsEnqueue, typename Ret, typename... A>
Ret invokeApi(CallInfo& info, Ret (*next)(A...), A... a) {
    if constexpr (hasSpecialCase(Slot)) {
        static_assert(!IsEnqueue, "a special-case API is not an enqueue");
        return specialCall<Slot>(info, next, a...);
    } else if constexpr (IsEnqueue) {
        return tracedEnqueue(info, next, a...);
    } else {
        return callNext(info, next, a...);
    }
}

// Every parameter the plan captures is a pointer of the prototype.
template <unsigned Slot, typename... A>
constexpr bool capturesOnlyPointers() {
    constexpr bool isPointer[] = {std::is_pointer_v<A>..., false};
    constexpr unsigned first = capture::firstRule(Slot);
    for (unsigned i = first; i < first + capture::ruleCount(Slot); ++i) {
        if (capture::kRules[i].arg >= sizeof...(A) || !isPointer[capture::kRules[i].arg]) {
            return false;
        }
    }
    return true;
}

// A call that is not recorded (paused, or a must-intercept API the filter names) but has a
// special case to run.
template <unsigned Slot, bool IsEnqueue, typename Ret, typename... A>
__attribute__((noinline)) Ret untracedCall(Ret (*next)(A...), A... a) {
    CallInfo info;
    if constexpr (std::is_void_v<Ret>) {
        invokeApi<Slot, IsEnqueue>(info, next, a...);
    } else {
        const Ret r = invokeApi<Slot, IsEnqueue>(info, next, a...);
        // Each clReleaseContext makes the data so far reach the fragments (docs/opencl-trace.md).
        if constexpr (Slot == kSlot_clReleaseContext) g_recorder->flushNow();
        return r;
    }
}

// A recorded call. The start ticks are read after the arguments are saved and the end ticks
// right after the next layer returns (callNext); the record is written after both.
template <unsigned Slot, int FuncTypeId, bool IsEnqueue, typename Ret, typename... A>
__attribute__((noinline)) Ret tracedCall(hooks::CallSite site, Ret (*next)(A...), A... a) {
    static_assert(capturesOnlyPointers<Slot, A...>(),
                  "the capture plan does not match the prototype");
    CallInfo info;
    info.recording = true;
    info.site = site;
    // The application's arguments, before a special case rewrites any of them.
    const uint64_t raw[sizeof...(A) + 1] = {toRaw(a)...};
    info.startTicks = g_recorder->now();
    if constexpr (std::is_void_v<Ret>) {
        invokeApi<Slot, IsEnqueue>(info, next, a...);
        info.succeeded = true;
        recordApiCall<Slot, FuncTypeId, sizeof...(A)>(info, 0, raw);
    } else {
        const Ret r = invokeApi<Slot, IsEnqueue>(info, next, a...);
        info.succeeded = isSuccess(r);
        recordApiCall<Slot, FuncTypeId, sizeof...(A)>(info, resultToRaw(r), raw);
        if constexpr (Slot == kSlot_clReleaseContext) g_recorder->flushNow();
        return r;
    }
}

// The generated wrappers' entry: Api<slot, id, isEnqueue>::with(next)(args...).
template <unsigned Slot, int FuncTypeId, int IsEnqueue>
struct Api {
    template <typename Ret, typename... A>
    struct Bound {
        Ret (*next)(A...);
        // Inlined into the generated wrapper, so that the return address and the frame are
        // the wrapper's (docs/call-sites.md#which-frame).
        __attribute__((always_inline)) Ret operator()(A... a) const {
            if (PERFMARKER_LIKELY(g_recorder == nullptr)) return next(a...);
            if (PERFMARKER_UNLIKELY(isPaused() || !isSlotRecorded(Slot))) {
                if constexpr (hasSpecialCase(Slot)) {
                    return untracedCall<Slot, IsEnqueue != 0>(next, a...);
                } else {
                    return next(a...);
                }
            }
            const hooks::CallSite site =
                PERFMARKER_UNLIKELY(hooks::g_recordCallSites)
                    ? hooks::callSiteOf(__builtin_return_address(0), __builtin_frame_address(0))
                    : hooks::CallSite{};
            return tracedCall<Slot, FuncTypeId, IsEnqueue != 0>(site, next, a...);
        }
    };
    template <typename Ret, typename... A>
    static Bound<Ret, A...> with(Ret (*next)(A...)) {
        return Bound<Ret, A...>{next};
    }
};

}  // namespace perfmarker::cltrace
