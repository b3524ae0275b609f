// The APIs the agent does more for than pass through and record (hand-written; everything else
// is generated; cl_api.h kSpecialCaseSlots lists them): forced profiling and its masking
// (docs/opencl-trace.md), queue reference counting and the finish before the last release, and
// the ObjectInfo records of contexts and kernels. Each calls the next layer through callNext,
// which takes the API's end time right after.
#pragma once

#include "agent_state.h"
#include "api_capture.h"
#include "cl_api.h"

namespace perfmarker::cltrace {

template <typename Ret, typename... A>
Ret callNext(CallInfo& info, Ret (*next)(A...), A... a) {
    if constexpr (std::is_void_v<Ret>) {
        next(a...);
        if (info.recording) info.endTicks = g_recorder->now();
    } else {
        Ret r = next(a...);
        if (info.recording) info.endTicks = g_recorder->now();
        return r;
    }
}

cl_command_queue createCommandQueue(CallInfo& info, cl_api_clCreateCommandQueue next,
                                    cl_context context, cl_device_id device,
                                    cl_command_queue_properties properties, cl_int* errcode_ret);
cl_command_queue createCommandQueueWithProperties(CallInfo& info,
                                                  cl_api_clCreateCommandQueueWithProperties next,
                                                  cl_context context, cl_device_id device,
                                                  const cl_queue_properties* properties,
                                                  cl_int* errcode_ret);
cl_int setCommandQueueProperty(CallInfo& info, cl_api_clSetCommandQueueProperty next,
                               cl_command_queue queue, cl_command_queue_properties properties,
                               cl_bool enable, cl_command_queue_properties* old_properties);
cl_int getCommandQueueInfo(CallInfo& info, cl_api_clGetCommandQueueInfo next,
                           cl_command_queue queue, cl_command_queue_info param_name,
                           size_t param_value_size, void* param_value,
                           size_t* param_value_size_ret);
cl_int getEventProfilingInfo(CallInfo& info, cl_api_clGetEventProfilingInfo next, cl_event event,
                             cl_profiling_info param_name, size_t param_value_size,
                             void* param_value, size_t* param_value_size_ret);
cl_int retainCommandQueue(CallInfo& info, cl_api_clRetainCommandQueue next, cl_command_queue queue);
cl_int releaseCommandQueue(CallInfo& info, cl_api_clReleaseCommandQueue next,
                           cl_command_queue queue);
cl_context createContext(CallInfo& info, cl_api_clCreateContext next,
                         const cl_context_properties* properties, cl_uint num_devices,
                         const cl_device_id* devices,
                         void(CL_CALLBACK* pfn_notify)(const char*, const void*, size_t, void*),
                         void* user_data, cl_int* errcode_ret);
cl_context createContext(CallInfo& info, cl_api_clCreateContextFromType next,
                         const cl_context_properties* properties, cl_device_type device_type,
                         void(CL_CALLBACK* pfn_notify)(const char*, const void*, size_t, void*),
                         void* user_data, cl_int* errcode_ret);
cl_kernel createKernel(CallInfo& info, cl_api_clCreateKernel next, cl_program program,
                       const char* kernel_name, cl_int* errcode_ret);
cl_int createKernelsInProgram(CallInfo& info, cl_api_clCreateKernelsInProgram next,
                              cl_program program, cl_uint num_kernels, cl_kernel* kernels,
                              cl_uint* num_kernels_ret);
cl_kernel cloneKernel(CallInfo& info, cl_api_clCloneKernel next, cl_kernel source_kernel,
                      cl_int* errcode_ret);

}  // namespace perfmarker::cltrace
