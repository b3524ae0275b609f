// libCLProfileAgent.so: the profile mode's OpenCL ICD loader layer (docs/profile.md). Every
// callable slot of the dispatch table gets a wrapper that counts the thread's calls (for the
// CSV's CallIndex) and passes the call on; the kernel enqueues and the queue calls run the
// profile code of dispatch_profiler.h. The loader interface is the trace layer's
// (docs/opencl-trace.md): clGetLayerInfo and clInitLayer.
#include <cstring>

#include "cl_layer_info.h"
#include "dispatch_profiler.h"

namespace perfmarker::clprofile {
namespace {

constexpr char kLayerName[] = "perfmarker OpenCL profile layer";

constexpr cl_uint kSlotCount = 0
#define PM_CL_API(...) +1
#define PM_CL_API_RESERVED(...) +1
#include "api/cl_api_table.inc"
    ;
static_assert(kSlotCount * sizeof(void*) == sizeof(cl_icd_dispatch),
              "cl_api_table.inc does not match CL/cl_icd.h");

enum Slot : unsigned {
#define PM_CL_API(slot, funcTypeId, isEnqueue, ReturnType, name, params, args) kSlot_##name = slot,
#include "api/cl_api_table.inc"
};

cl_icd_dispatch g_target;
cl_icd_dispatch g_layer;

// The calling thread's OpenCL calls so far, clGetEventInfo left out (the trace's Call Index).
thread_local uint64_t t_calls = 0;

template <unsigned S>
struct Hook {
    template <typename Ret, typename... A>
    struct Bound {
        Ret (*next)(A...);
        Ret operator()(A... a) const {
            if (!profiling()) return next(a...);
            if constexpr (S == kSlot_clGetEventInfo) return next(a...);
            const uint64_t index = t_calls++;
            if constexpr (S == kSlot_clEnqueueNDRangeKernel) {
                return enqueueNDRangeKernel(index, next, a...);
            } else if constexpr (S == kSlot_clEnqueueTask) {
                return enqueueTask(index, next, a...);
            } else if constexpr (S == kSlot_clCreateCommandQueue) {
                return createCommandQueue(next, a...);
            } else if constexpr (S == kSlot_clCreateCommandQueueWithProperties) {
                return createCommandQueueWithProperties(next, a...);
            } else if constexpr (S == kSlot_clGetCommandQueueInfo) {
                return getCommandQueueInfo(next, a...);
            } else {
                (void)index;
                return next(a...);
            }
        }
    };
    template <typename Ret, typename... A>
    static Bound<Ret, A...> with(Ret (*next)(A...)) {
        return Bound<Ret, A...>{next};
    }
};

#define PM_CL_API(slot, funcTypeId, isEnqueue, ReturnType, name, params, args) \
    ReturnType CL_API_CALL name##Profiled params { return Hook<slot>::with(g_target.name) args; }
#include "api/cl_api_table.inc"

const cl_icd_dispatch* buildTable(const cl_icd_dispatch* target, cl_uint entries) {
    const cl_uint provided = entries < kSlotCount ? entries : kSlotCount;
    g_target = cl_icd_dispatch{};
    std::memcpy(&g_target, target, provided * sizeof(void*));
    g_layer = g_target;
#define PM_CL_API(slot, funcTypeId, isEnqueue, ReturnType, name, params, args) \
    if (g_target.name != nullptr) g_layer.name = &name##Profiled;
#include "api/cl_api_table.inc"
    return &g_layer;
}

}  // namespace

const cl_icd_dispatch& nextLayer() { return g_target; }

}  // namespace perfmarker::clprofile

using namespace perfmarker::clprofile;

extern "C" {

__attribute__((visibility("default"))) cl_int CL_API_CALL
clGetLayerInfo(cl_layer_info param_name, size_t param_value_size, void* param_value,
               size_t* param_value_size_ret) {
    return perfmarker::hooks::layerInfo(kLayerName, param_name, param_value_size, param_value,
                                        param_value_size_ret);
}

__attribute__((visibility("default"))) cl_int CL_API_CALL
clInitLayer(cl_uint num_entries, const cl_icd_dispatch* target_dispatch, cl_uint* num_entries_ret,
            const cl_icd_dispatch** layer_dispatch_ret) {
    if (target_dispatch == nullptr || num_entries == 0 || num_entries_ret == nullptr ||
        layer_dispatch_ret == nullptr) {
        return CL_INVALID_VALUE;
    }
    *layer_dispatch_ret = buildTable(target_dispatch, num_entries);
    initProfiling();
    *num_entries_ret = kSlotCount;
    return CL_SUCCESS;
}

}  // extern "C"
