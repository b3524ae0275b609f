// The layer interface of the OpenCL ICD loaders (cl_loader_layers, CL/cl_layer.h). The loader
// (ocl-icd >= 2.3, Khronos OpenCL-ICD-Loader) loads every library named in OPENCL_LAYERS, checks
// clGetLayerInfo(CL_LAYER_API_VERSION) and calls clInitLayer with the table of the next layer
// down; what we return becomes the table the loader's entry points call.
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "agent_exports.h"
#include "agent_state.h"
#include "api_capture.h"
#include "cl_api.h"
#include "cl_layer_info.h"
#include "dispatch_wrappers.h"

namespace perfmarker::cltrace {
namespace {

constexpr char kLayerName[] = "perfmarker OpenCL trace layer";

// PERFMARKER_LAYER_SELFTEST=1: one line on stderr when the loader initializes the layer, so
// tests (and users) can tell the layer was really loaded and not silently skipped.
void reportInit(cl_uint targetEntries, const DispatchCounts& counts) {
    const char* selftest = std::getenv("PERFMARKER_LAYER_SELFTEST");
    if (selftest == nullptr || std::strcmp(selftest, "1") != 0) return;
    std::fprintf(stderr,
                 "%s: initialized: target table %u entries, layer table %u entries, "
                 "%u wrapped, %u passed through\n",
                 kLayerName, targetEntries, kDispatchSlotCount, counts.wrapped,
                 counts.passedThrough);
}

}  // namespace
}  // namespace perfmarker::cltrace

using namespace perfmarker::cltrace;

extern "C" {

PERFMARKER_AGENT_EXPORT cl_int CL_API_CALL clGetLayerInfo(cl_layer_info param_name,
                                                          size_t param_value_size,
                                                          void* param_value,
                                                          size_t* param_value_size_ret) {
    return perfmarker::hooks::layerInfo(kLayerName, param_name, param_value_size, param_value,
                                        param_value_size_ret);
}

// Table negotiation: the loader offers `num_entries` slots of its table; we read no more than
// that and answer with the size of ours. The loader takes min(ours, its own) slots from our
// table, treats null slots as "use the next layer's", and the slots beyond ours from the next
// layer directly.
PERFMARKER_AGENT_EXPORT cl_int CL_API_CALL clInitLayer(cl_uint num_entries,
                                                       const cl_icd_dispatch* target_dispatch,
                                                       cl_uint* num_entries_ret,
                                                       const cl_icd_dispatch** layer_dispatch_ret) {
    if (target_dispatch == nullptr || num_entries == 0 || num_entries_ret == nullptr ||
        layer_dispatch_ret == nullptr) {
        return CL_INVALID_VALUE;
    }
    initAgent();  // the session, its recorder and the API filter, before the table is built
    DispatchCounts counts;
    *layer_dispatch_ret = buildLayerDispatch(target_dispatch, num_entries, &counts);
    *num_entries_ret = kDispatchSlotCount;
    reportInit(num_entries, counts);
    return CL_SUCCESS;
}

}  // extern "C"
