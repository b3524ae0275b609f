#include "special_calls.h"

#include <algorithm>

#include "object_tracker.h"

namespace perfmarker::cltrace {
namespace {

// Room for the application's queue properties plus the one the agent may add.
constexpr size_t kMaxQueueProperties = 62;

// The application's properties with CL_QUEUE_PROFILING_ENABLE forced on, into `out` (0-ended).
// Returns false when the list is too long to copy: it is then passed unchanged.
bool withProfiling(const cl_queue_properties* in, cl_queue_properties* out,
                   cl_command_queue_properties& asked) {
    asked = 0;
    size_t n = 0;
    bool found = false;
    for (; in != nullptr && in[n] != 0; n += 2) {
        if (n + 2 > kMaxQueueProperties) return false;
        out[n] = in[n];
        out[n + 1] = in[n + 1];
        if (in[n] == CL_QUEUE_PROPERTIES) {
            found = true;
            asked = in[n + 1];
            out[n + 1] |= CL_QUEUE_PROFILING_ENABLE;
        }
    }
    if (!found) {
        out[n++] = CL_QUEUE_PROPERTIES;
        out[n++] = CL_QUEUE_PROFILING_ENABLE;
    }
    out[n] = 0;
    return true;
}

// Hides CL_QUEUE_PROFILING_ENABLE where the application did not ask for it.
cl_command_queue_properties asSeen(cl_command_queue_properties actual,
                                   cl_command_queue_properties asked) {
    return (actual & ~cl_command_queue_properties{CL_QUEUE_PROFILING_ENABLE}) |
           (asked & CL_QUEUE_PROFILING_ENABLE);
}

}  // namespace

cl_command_queue createCommandQueue(CallInfo& info, cl_api_clCreateCommandQueue next,
                                    cl_context context, cl_device_id device,
                                    cl_command_queue_properties properties, cl_int* errcode_ret) {
    cl_command_queue queue =
        callNext(info, next, context, device, properties | CL_QUEUE_PROFILING_ENABLE, errcode_ret);
    if (queue == nullptr && (properties & CL_QUEUE_PROFILING_ENABLE) == 0) {
        // A runtime that refuses profiling on this queue: create it as asked, untimed.
        queue = callNext(info, next, context, device, properties, errcode_ret);
    }
    if (queue != nullptr) onQueueCreated(queue, context, device, properties);
    return queue;
}

cl_command_queue createCommandQueueWithProperties(CallInfo& info,
                                                  cl_api_clCreateCommandQueueWithProperties next,
                                                  cl_context context, cl_device_id device,
                                                  const cl_queue_properties* properties,
                                                  cl_int* errcode_ret) {
    cl_queue_properties forced[kMaxQueueProperties + 3];
    cl_command_queue_properties asked = 0;
    const bool copied = withProfiling(properties, forced, asked);
    cl_command_queue queue =
        callNext(info, next, context, device, copied ? forced : properties, errcode_ret);
    if (queue != nullptr) onQueueCreated(queue, context, device, asked);
    return queue;
}

// Profiling stays on; what the application enables or disables is remembered as asked.
cl_int setCommandQueueProperty(CallInfo& info, cl_api_clSetCommandQueueProperty next,
                               cl_command_queue queue, cl_command_queue_properties properties,
                               cl_bool enable, cl_command_queue_properties* old_properties) {
    cl_command_queue_properties asked = 0;
    const bool known = askedQueueProperties(queue, asked);
    const cl_command_queue_properties passed =
        known && !enable ? properties & ~cl_command_queue_properties{CL_QUEUE_PROFILING_ENABLE}
                         : properties;
    const cl_int r = callNext(info, next, queue, passed, enable, old_properties);
    if (r == CL_SUCCESS && known) {
        if (old_properties != nullptr) *old_properties = asSeen(*old_properties, asked);
        setAskedQueueProperties(queue, enable ? asked | properties : asked & ~properties);
    }
    return r;
}

cl_int getCommandQueueInfo(CallInfo& info, cl_api_clGetCommandQueueInfo next,
                           cl_command_queue queue, cl_command_queue_info param_name,
                           size_t param_value_size, void* param_value,
                           size_t* param_value_size_ret) {
    const cl_int r = callNext(info, next, queue, param_name, param_value_size, param_value,
                              param_value_size_ret);
    cl_command_queue_properties asked = 0;
    if (r == CL_SUCCESS && param_name == CL_QUEUE_PROPERTIES && param_value != nullptr &&
        param_value_size >= sizeof asked && askedQueueProperties(queue, asked)) {
        auto* value = static_cast<cl_command_queue_properties*>(param_value);
        *value = asSeen(*value, asked);
    }
    return r;
}

cl_int getEventProfilingInfo(CallInfo& info, cl_api_clGetEventProfilingInfo next, cl_event event,
                             cl_profiling_info param_name, size_t param_value_size,
                             void* param_value, size_t* param_value_size_ret) {
    if (profilingHiddenFor(event)) {
        if (info.recording) info.endTicks = g_recorder->now();
        return CL_PROFILING_INFO_NOT_AVAILABLE;
    }
    return callNext(info, next, event, param_name, param_value_size, param_value,
                    param_value_size_ret);
}

cl_int retainCommandQueue(CallInfo& info, cl_api_clRetainCommandQueue next,
                          cl_command_queue queue) {
    const cl_int r = callNext(info, next, queue);
    if (r == CL_SUCCESS) onQueueRetained(queue);
    return r;
}

cl_int releaseCommandQueue(CallInfo& info, cl_api_clReleaseCommandQueue next,
                           cl_command_queue queue) {
    beforeQueueRelease(queue);
    const cl_int r = callNext(info, next, queue);
    afterQueueRelease(queue, r);
    return r;
}

cl_context createContext(CallInfo& info, cl_api_clCreateContext next,
                         const cl_context_properties* properties, cl_uint num_devices,
                         const cl_device_id* devices,
                         void(CL_CALLBACK* pfn_notify)(const char*, const void*, size_t, void*),
                         void* user_data, cl_int* errcode_ret) {
    cl_context context =
        callNext(info, next, properties, num_devices, devices, pfn_notify, user_data, errcode_ret);
    if (context != nullptr) onContextCreated(context);
    return context;
}

cl_context createContext(CallInfo& info, cl_api_clCreateContextFromType next,
                         const cl_context_properties* properties, cl_device_type device_type,
                         void(CL_CALLBACK* pfn_notify)(const char*, const void*, size_t, void*),
                         void* user_data, cl_int* errcode_ret) {
    cl_context context =
        callNext(info, next, properties, device_type, pfn_notify, user_data, errcode_ret);
    if (context != nullptr) onContextCreated(context);
    return context;
}

cl_kernel createKernel(CallInfo& info, cl_api_clCreateKernel next, cl_program program,
                       const char* kernel_name, cl_int* errcode_ret) {
    cl_kernel kernel = callNext(info, next, program, kernel_name, errcode_ret);
    if (kernel != nullptr) onKernelCreated(kernel, program, kernel_name);
    return kernel;
}

cl_int createKernelsInProgram(CallInfo& info, cl_api_clCreateKernelsInProgram next,
                              cl_program program, cl_uint num_kernels, cl_kernel* kernels,
                              cl_uint* num_kernels_ret) {
    cl_uint created = 0;
    const cl_int r = callNext(info, next, program, num_kernels, kernels,
                              num_kernels_ret != nullptr ? num_kernels_ret : &created);
    if (r != CL_SUCCESS || kernels == nullptr) return r;
    const cl_uint n =
        std::min(num_kernels, num_kernels_ret != nullptr ? *num_kernels_ret : created);
    for (cl_uint i = 0; i < n; ++i) onKernelCreated(kernels[i], program, nullptr);
    return r;
}

cl_kernel cloneKernel(CallInfo& info, cl_api_clCloneKernel next, cl_kernel source_kernel,
                      cl_int* errcode_ret) {
    cl_kernel kernel = callNext(info, next, source_kernel, errcode_ret);
    if (kernel == nullptr) return kernel;
    cl_program program = nullptr;
    nextLayer().clGetKernelInfo(source_kernel, CL_KERNEL_PROGRAM, sizeof program, &program,
                                nullptr);
    onKernelCreated(kernel, program, nullptr);
    return kernel;
}

}  // namespace perfmarker::cltrace
