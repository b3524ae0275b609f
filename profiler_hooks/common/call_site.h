// The call site of a traced call (docs/call-sites.md#which-frame), taken in the agent's wrapper
// with no unwinding: the wrapper's return address (the ICD loader and the HSA runtime reach the
// wrapper by a tail jump, so it points into the application), and the return address of the
// application function that made the call, read from that function's frame when its frame
// pointer lies on this thread's stack. The merge uses the second when the first is inside a
// C++ wrapper header (cl::...).
#pragma once

#include <cstdint>

#include "record/recorder.h"  // PERFMARKER_UNLIKELY

namespace perfmarker::hooks {

// Plain data (no initializers) so that it can live in initial-exec TLS; value-initialize it
// (`CallSite{}`) for "no call site".
struct CallSite {
    uint64_t returnAddress;
    uint64_t callerReturnAddress;  // 0: the application's frame could not be trusted
};

// The upper end of the calling thread's stack, 1 when it cannot be known; computeStackTop() is
// the slow first look of each thread. Initial-exec TLS, as the recorder's thread cache: one load.
extern __thread uintptr_t t_stackTop __attribute__((tls_model("initial-exec")));
uintptr_t computeStackTop();

inline uintptr_t threadStackTop() {
    uintptr_t top = t_stackTop;
    if (PERFMARKER_UNLIKELY(top == 0)) top = t_stackTop = computeStackTop();
    return top;
}

// Where a wrapper leaves the call site for the record writer when the call takes a path of its
// own before the record is written (the HSA agent's special cases); taken (and cleared) by
// takeCallSite().
extern __thread CallSite t_callSite __attribute__((tls_model("initial-exec")));

inline CallSite takeCallSite() {
    const CallSite site = t_callSite;
    t_callSite = CallSite{};
    return site;
}

// `wrapperFrame` is __builtin_frame_address(0) of the wrapper: its saved frame pointer is the
// application's, and the word above that frame is the application function's return address.
inline CallSite callSiteOf(void* returnAddress, void* wrapperFrame) {
    CallSite site{reinterpret_cast<uintptr_t>(returnAddress), 0};
    const auto frame = reinterpret_cast<uintptr_t>(wrapperFrame);
    const uintptr_t appFrame = frame != 0 ? *reinterpret_cast<const uintptr_t*>(frame) : 0;
    if (appFrame > frame && appFrame % 8 == 0 && appFrame + 16 <= threadStackTop()) {
        site.callerReturnAddress = reinterpret_cast<const uintptr_t*>(appFrame)[1];
    }
    return site;
}

}  // namespace perfmarker::hooks
