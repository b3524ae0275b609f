// What the profile layer does around the calls it changes (docs/profile.md#how-a-dispatch-is-
// measured): queues are created with profiling on (hidden from the application's queries),
// and each kernel enqueue is waited for, one at a time for the whole process, with its device
// times, sizes, kernel resources and counters written as one CSV row.
#pragma once

#include <CL/cl_icd.h>
#include <CL/cl_layer.h>

#include <cstdint>

namespace perfmarker::clprofile {

// The next layer's table, saved by clInitLayer (profile_layer.cpp).
const cl_icd_dispatch& nextLayer();

// Reads the profile session from the environment (profile/format/profile_session.h) once, at
// clInitLayer. Without PERFMARKER_PROFILE_OUTPUT every call passes through unchanged.
void initProfiling();
bool profiling();

cl_command_queue createCommandQueue(cl_api_clCreateCommandQueue next, cl_context context,
                                    cl_device_id device, cl_command_queue_properties properties,
                                    cl_int* errcode_ret);
cl_command_queue createCommandQueueWithProperties(cl_api_clCreateCommandQueueWithProperties next,
                                                  cl_context context, cl_device_id device,
                                                  const cl_queue_properties* properties,
                                                  cl_int* errcode_ret);
cl_int getCommandQueueInfo(cl_api_clGetCommandQueueInfo next, cl_command_queue queue,
                           cl_command_queue_info param_name, size_t param_value_size,
                           void* param_value, size_t* param_value_size_ret);

// `callIndex`: the enqueue's index among the calling thread's OpenCL calls (0-based,
// clGetEventInfo calls not counted, as the trace's Call Index).
cl_int enqueueNDRangeKernel(uint64_t callIndex, cl_api_clEnqueueNDRangeKernel next,
                            cl_command_queue queue, cl_kernel kernel, cl_uint work_dim,
                            const size_t* global_work_offset, const size_t* global_work_size,
                            const size_t* local_work_size, cl_uint num_events_in_wait_list,
                            const cl_event* event_wait_list, cl_event* event);
cl_int enqueueTask(uint64_t callIndex, cl_api_clEnqueueTask next, cl_command_queue queue,
                   cl_kernel kernel, cl_uint num_events_in_wait_list,
                   const cl_event* event_wait_list, cl_event* event);

}  // namespace perfmarker::clprofile
