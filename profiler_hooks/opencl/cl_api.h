// The OpenCL declarations the agent is built against, and facts derived from the API table.
//
// Every source of the agent includes the CL headers through this file. The target version and
// the deprecated-API switches come from the perfmarker_opencl_headers CMake target, so the
// agent, the stub ICD and the tests all see the same declarations.
#pragma once

#include <CL/cl_icd.h>
#include <CL/cl_layer.h>

namespace perfmarker::cltrace {

// Number of dispatch slots in cl_api_table.inc (wrapped or reserved): the size of the table the
// layer hands to the loader.
constexpr cl_uint kDispatchSlotCount = 0
#define PM_CL_API(...) +1
#define PM_CL_API_RESERVED(...) +1
#include "api/cl_api_table.inc"
    ;

// kSlot_<name>: the dispatch slot of each API, for the wrappers' special cases.
enum SlotId : unsigned {
#define PM_CL_API(slot, funcTypeId, isEnqueue, ReturnType, name, params, args) kSlot_##name = slot,
#include "api/cl_api_table.inc"
};

// The special-case APIs: the only list of them. Each has its own code around the call into the
// next layer (special_calls.h: forced profiling and its masking, queue reference counts, the
// object records of contexts and kernels), which runs even when the call is not recorded, and
// an API filter that names one leaves it intercepted, only not recorded (agent_state.cpp).
inline constexpr SlotId kSpecialCaseSlots[] = {
    kSlot_clCreateContext,          kSlot_clCreateContextFromType,
    kSlot_clCreateCommandQueue,     kSlot_clCreateCommandQueueWithProperties,
    kSlot_clCreateKernelsInProgram, kSlot_clCreateKernel,
    kSlot_clReleaseContext,         kSlot_clRetainCommandQueue,
    kSlot_clReleaseCommandQueue,    kSlot_clGetCommandQueueInfo,
    kSlot_clSetCommandQueueProperty, kSlot_clGetEventProfilingInfo,
    kSlot_clCloneKernel};

constexpr bool hasSpecialCase(unsigned slot) {
    for (SlotId s : kSpecialCaseSlots) {
        if (s == slot) return true;
    }
    return false;
}

static_assert(kDispatchSlotCount * sizeof(void*) == sizeof(cl_icd_dispatch),
              "cl_api_table.inc does not match CL/cl_icd.h: run scripts/gen_cl_api_table.py");

}  // namespace perfmarker::cltrace
