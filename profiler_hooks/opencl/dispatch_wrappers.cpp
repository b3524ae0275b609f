#include "dispatch_wrappers.h"

#include <algorithm>
#include <cstring>

#include "agent_state.h"
#include "object_tracker.h"
#include "traced_call.h"

namespace perfmarker::cltrace {
namespace {

cl_icd_dispatch g_target;  // the next layer's entries; null where it provided none
cl_icd_dispatch g_layer;   // the table the loader calls

// <name>Wrapper: passes the call on with the same arguments, recording it (traced_call.h).
#define PM_CL_API(slot, funcTypeId, isEnqueue, ReturnType, name, params, args) \
    ReturnType CL_API_CALL name##Wrapper params {                              \
        return Api<slot, funcTypeId, isEnqueue>::with(g_target.name) args;     \
    }
#include "api/cl_api_table.inc"

}  // namespace

const cl_icd_dispatch& nextLayer() { return g_target; }

const cl_icd_dispatch* buildLayerDispatch(const cl_icd_dispatch* target, cl_uint targetEntries,
                                          DispatchCounts* counts) {
    const cl_uint provided = std::min(targetEntries, kDispatchSlotCount);
    g_target = cl_icd_dispatch{};
    std::memcpy(&g_target, target, provided * sizeof(void*));
    g_layer = g_target;  // every slot passes through unless wrapped below

    DispatchCounts n;
#define PM_CL_API(slot, funcTypeId, isEnqueue, ReturnType, name, params, args) \
    if (g_target.name != nullptr && isSlotIntercepted(slot)) {                 \
        g_layer.name = &name##Wrapper;                                         \
        ++n.wrapped;                                                           \
    }
#include "api/cl_api_table.inc"

#define PM_CL_API_RESERVED(slot, funcTypeId, isEnqueue, field) \
    if (g_target.field != nullptr) ++n.passedThrough;
#include "api/cl_api_table.inc"

    if (counts != nullptr) *counts = n;
    return &g_layer;
}

}  // namespace perfmarker::cltrace
