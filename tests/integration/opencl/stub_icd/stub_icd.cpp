// A minimal OpenCL ICD for the layer tests. It serves one platform with one device and
// implements a handful of entry points: platform and device queries, context, queue, buffers,
// what a tracing layer needs of events and queues (callbacks, profiling times, queue queries),
// blocking reads and writes, events, clFinish and the releases. Every call it receives is
// appended, with its arguments exactly as received, to the file named by
// PERFMARKER_STUB_ICD_LOG, one line per call.
//
// Log conventions: handles of the stub's own objects print as names (platform, device,
// context#1, queue#1, mem#2, event#1), other pointers as %p hex or NULL, flags and enums as
// decimal, and the bytes written to a buffer as an FNV-1a hash. A test normalizes only the hex
// values, so the log shows whether each argument arrived unchanged.
//
// With PERFMARKER_STUB_ICD_CALLERS set, the stub also appends "<api> layer" or "<api> direct"
// per call to that file: whether libCLTraceAgent.so is on the call stack, which tells a test
// that a call really went through the layer's wrapper.
#include <CL/cl_icd.h>
#include <dlfcn.h>
#include <execinfo.h>

#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <type_traits>
#include <vector>

#define STUB_EXPORT extern "C" __attribute__((visibility("default")))

namespace {
cl_icd_dispatch g_dispatch;
}  // namespace

// Every object starts with the dispatch pointer, as the ICD extension requires.
struct _cl_platform_id {
    cl_icd_dispatch* dispatch = &g_dispatch;
};
struct _cl_device_id {
    cl_icd_dispatch* dispatch = &g_dispatch;
};
struct _cl_context {
    cl_icd_dispatch* dispatch = &g_dispatch;
    int refs = 1;
};
struct _cl_command_queue {
    cl_icd_dispatch* dispatch = &g_dispatch;
    int refs = 1;
    cl_command_queue_properties properties = 0;
};
struct _cl_mem {
    cl_icd_dispatch* dispatch = &g_dispatch;
    int refs = 1;
    std::vector<unsigned char> bytes;
};
struct _cl_event {
    cl_icd_dispatch* dispatch = &g_dispatch;
    int refs = 1;
    cl_command_queue queue = nullptr;
    cl_command_type type = 0;
    cl_ulong times[4] = {};  // queued, submit, start, end
};

namespace {

_cl_platform_id g_platform;
_cl_device_id g_device;

constexpr char kPlatformName[] = "perfmarker stub platform";
constexpr char kDeviceName[] = "perfmarker stub device";
constexpr char kExtensions[] = "cl_khr_icd";
constexpr char kIcdSuffix[] = "STUB";
constexpr char kVersion[] = "OpenCL 3.0 stub";

// Names of the live objects, for the log. The stub is only ever called from one thread.
std::map<const void*, std::string>& objectNames() {
    static std::map<const void*, std::string> names{{&g_platform, "platform"},
                                                    {&g_device, "device"}};
    return names;
}

template <typename T>
T* createObject(const char* kind) {
    static std::map<std::string, int> counts;
    T* object = new T;
    objectNames()[object] = std::string(kind) + "#" + std::to_string(++counts[kind]);
    return object;
}

template <typename T>
cl_int releaseObject(T* object) {
    if (objectNames().count(object) == 0) return CL_INVALID_VALUE;
    if (--object->refs == 0) {
        objectNames().erase(object);
        delete object;
    }
    return CL_SUCCESS;
}

std::string describe(const void* p) {
    if (p == nullptr) return "NULL";
    auto it = objectNames().find(p);
    if (it != objectNames().end()) return it->second;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%p", p);
    return buf;
}

bool viaLayer() {
    void* frames[64];
    const int n = backtrace(frames, 64);
    for (int i = 0; i < n; ++i) {
        Dl_info info;
        if (dladdr(frames[i], &info) == 0 || info.dli_fname == nullptr) continue;
        const char* base = std::strrchr(info.dli_fname, '/');
        if (std::strcmp(base != nullptr ? base + 1 : info.dli_fname, "libCLTraceAgent.so") == 0) {
            return true;
        }
    }
    return false;
}

void appendTo(const char* env, const std::string& line) {
    const char* path = std::getenv(env);
    if (path == nullptr) return;
    if (FILE* f = std::fopen(path, "a")) {
        std::fputs(line.c_str(), f);
        std::fputc('\n', f);
        std::fclose(f);
    }
}

// One log line: `api(name=value, ...) = result`.
class Call {
public:
    explicit Call(const char* api) : m_api(api), m_line(std::string(api) + "(") {}

    Call& ptr(const char* name, const void* p) { return field(name, describe(p)); }
    Call& num(const char* name, uint64_t value) { return field(name, std::to_string(value)); }

    // Finishes the line with the result and writes it (and the caller kind) out.
    template <typename R>
    R done(R result) {
        if constexpr (std::is_pointer_v<R>) {
            m_line += ") = " + describe(result);
        } else {
            m_line += ") = " + std::to_string(result);
        }
        appendTo("PERFMARKER_STUB_ICD_LOG", m_line + m_extra);
        appendTo("PERFMARKER_STUB_ICD_CALLERS", m_api + (viaLayer() ? " layer" : " direct"));
        return result;
    }
    // Output values appended after the result: ` [name=value]`.
    Call& out(const char* name, const std::string& value) {
        m_extra += std::string(" [") + name + "=" + value + "]";
        return *this;
    }

private:
    Call& field(const char* name, const std::string& value) {
        if (m_line.back() != '(') m_line += ", ";
        m_line += std::string(name) + "=" + value;
        return *this;
    }

    std::string m_api;
    std::string m_line;
    std::string m_extra;
};

uint64_t fnv1a(const unsigned char* p, size_t n) {
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

std::string hex(uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "h%016" PRIx64, v);
    return buf;
}

cl_int setErr(cl_int* errcode_ret, cl_int code) {
    if (errcode_ret != nullptr) *errcode_ret = code;
    return code;
}

// clGet*Info rules for one value.
cl_int info(const void* value, size_t size, size_t param_value_size, void* param_value,
            size_t* param_value_size_ret) {
    if (param_value != nullptr) {
        if (param_value_size < size) return CL_INVALID_VALUE;
        std::memcpy(param_value, value, size);
    }
    if (param_value_size_ret != nullptr) *param_value_size_ret = size;
    return CL_SUCCESS;
}

cl_int CL_API_CALL getPlatformIDs(const char* api, cl_uint num_entries, cl_platform_id* platforms,
                                  cl_uint* num_platforms) {
    Call call(api);
    call.num("num_entries", num_entries)
        .ptr("platforms", platforms)
        .ptr("num_platforms", num_platforms);
    if ((platforms == nullptr && num_platforms == nullptr) ||
        (platforms != nullptr && num_entries == 0)) {
        return call.done(CL_INVALID_VALUE);
    }
    if (platforms != nullptr) platforms[0] = &g_platform;
    if (num_platforms != nullptr) *num_platforms = 1;
    return call.done(CL_SUCCESS);
}

cl_int CL_API_CALL stubGetPlatformIDs(cl_uint num_entries, cl_platform_id* platforms,
                                      cl_uint* num_platforms) {
    return getPlatformIDs("clGetPlatformIDs", num_entries, platforms, num_platforms);
}

cl_int CL_API_CALL stubGetPlatformInfo(cl_platform_id platform, cl_platform_info param_name,
                                       size_t param_value_size, void* param_value,
                                       size_t* param_value_size_ret) {
    Call call("clGetPlatformInfo");
    call.ptr("platform", platform)
        .num("param_name", param_name)
        .num("param_value_size", param_value_size)
        .ptr("param_value", param_value)
        .ptr("param_value_size_ret", param_value_size_ret);
    if (platform != &g_platform) return call.done(CL_INVALID_PLATFORM);
    const char* value = nullptr;
    switch (param_name) {
        case CL_PLATFORM_NAME:
            value = kPlatformName;
            break;
        case CL_PLATFORM_VENDOR:
            value = kPlatformName;
            break;
        case CL_PLATFORM_VERSION:
            value = kVersion;
            break;
        case CL_PLATFORM_PROFILE:
            value = "FULL_PROFILE";
            break;
        case CL_PLATFORM_EXTENSIONS:
            value = kExtensions;
            break;
        case CL_PLATFORM_ICD_SUFFIX_KHR:
            value = kIcdSuffix;
            break;
        default:
            return call.done(CL_INVALID_VALUE);
    }
    return call.done(
        info(value, std::strlen(value) + 1, param_value_size, param_value, param_value_size_ret));
}

cl_int CL_API_CALL stubGetDeviceIDs(cl_platform_id platform, cl_device_type device_type,
                                    cl_uint num_entries, cl_device_id* devices,
                                    cl_uint* num_devices) {
    Call call("clGetDeviceIDs");
    call.ptr("platform", platform)
        .num("device_type", device_type)
        .num("num_entries", num_entries)
        .ptr("devices", devices)
        .ptr("num_devices", num_devices);
    if (platform != &g_platform) return call.done(CL_INVALID_PLATFORM);
    if ((devices == nullptr && num_devices == nullptr) ||
        (devices != nullptr && num_entries == 0)) {
        return call.done(CL_INVALID_VALUE);
    }
    if ((device_type & (CL_DEVICE_TYPE_CPU | CL_DEVICE_TYPE_DEFAULT)) == 0) {
        return call.done(CL_DEVICE_NOT_FOUND);
    }
    if (devices != nullptr) devices[0] = &g_device;
    if (num_devices != nullptr) *num_devices = 1;
    return call.done(CL_SUCCESS);
}

cl_int CL_API_CALL stubGetDeviceInfo(cl_device_id device, cl_device_info param_name,
                                     size_t param_value_size, void* param_value,
                                     size_t* param_value_size_ret) {
    Call call("clGetDeviceInfo");
    call.ptr("device", device)
        .num("param_name", param_name)
        .num("param_value_size", param_value_size)
        .ptr("param_value", param_value)
        .ptr("param_value_size_ret", param_value_size_ret);
    if (device != &g_device) return call.done(CL_INVALID_DEVICE);
    if (param_name == CL_DEVICE_NAME) {
        return call.done(info(kDeviceName, sizeof kDeviceName, param_value_size, param_value,
                              param_value_size_ret));
    }
    if (param_name == CL_DEVICE_TYPE) {
        const cl_device_type type = CL_DEVICE_TYPE_CPU;
        return call.done(
            info(&type, sizeof type, param_value_size, param_value, param_value_size_ret));
    }
    return call.done(CL_INVALID_VALUE);
}

cl_context CL_API_CALL stubCreateContext(const cl_context_properties* properties,
                                         cl_uint num_devices, const cl_device_id* devices,
                                         void(CL_CALLBACK* pfn_notify)(const char*, const void*,
                                                                       size_t, void*),
                                         void* user_data, cl_int* errcode_ret) {
    Call call("clCreateContext");
    call.ptr("properties", properties);
    for (int i = 0; properties != nullptr && properties[i] != 0; i += 2) {
        call.num("property", static_cast<uint64_t>(properties[i]))
            .ptr("value", reinterpret_cast<const void*>(properties[i + 1]));
    }
    call.num("num_devices", num_devices).ptr("devices", devices);
    if (devices != nullptr && num_devices > 0) call.ptr("devices[0]", devices[0]);
    call.ptr("pfn_notify", reinterpret_cast<const void*>(pfn_notify))
        .ptr("user_data", user_data)
        .ptr("errcode_ret", errcode_ret);
    if (devices == nullptr || num_devices != 1 || devices[0] != &g_device) {
        setErr(errcode_ret, CL_INVALID_DEVICE);
        return call.done(static_cast<cl_context>(nullptr));
    }
    setErr(errcode_ret, CL_SUCCESS);
    return call.done(createObject<_cl_context>("context"));
}

cl_command_queue CL_API_CALL stubCreateCommandQueue(cl_context context, cl_device_id device,
                                                    cl_command_queue_properties properties,
                                                    cl_int* errcode_ret) {
    Call call("clCreateCommandQueue");
    call.ptr("context", context)
        .ptr("device", device)
        .num("properties", properties)
        .ptr("errcode_ret", errcode_ret);
    if (objectNames().count(context) == 0) {
        setErr(errcode_ret, CL_INVALID_CONTEXT);
        return call.done(static_cast<cl_command_queue>(nullptr));
    }
    setErr(errcode_ret, CL_SUCCESS);
    _cl_command_queue* queue = createObject<_cl_command_queue>("queue");
    queue->properties = properties;
    return call.done(queue);
}

cl_mem CL_API_CALL stubCreateBuffer(cl_context context, cl_mem_flags flags, size_t size,
                                    void* host_ptr, cl_int* errcode_ret) {
    Call call("clCreateBuffer");
    call.ptr("context", context)
        .num("flags", flags)
        .num("size", size)
        .ptr("host_ptr", host_ptr)
        .ptr("errcode_ret", errcode_ret);
    if (size == 0) {
        setErr(errcode_ret, CL_INVALID_BUFFER_SIZE);
        return call.done(static_cast<cl_mem>(nullptr));
    }
    _cl_mem* mem = createObject<_cl_mem>("mem");
    mem->bytes.assign(size, 0);
    setErr(errcode_ret, CL_SUCCESS);
    return call.done(mem);
}

// Completes an enqueue: a new, already complete event for `event` (when asked) and the log
// line. Device times are a fixed pattern on a counter: queued < submit < start < end.
cl_int finishEnqueue(Call& call, cl_command_queue queue, cl_command_type type, cl_event* event) {
    static cl_ulong clock = 1000000;
    if (event != nullptr) {
        *event = createObject<_cl_event>("event");
        (*event)->queue = queue;
        (*event)->type = type;
        for (cl_ulong& t : (*event)->times) t = clock += 100;
        call.out("event", objectNames()[*event]);
    }
    return call.done(CL_SUCCESS);
}

Call& logEnqueueArgs(Call& call, cl_command_queue queue, cl_mem buffer, cl_bool blocking,
                     size_t offset, size_t cb, const void* ptr, cl_uint num_events,
                     const cl_event* wait_list, cl_event* event) {
    call.ptr("command_queue", queue)
        .ptr("buffer", buffer)
        .num("blocking", blocking)
        .num("offset", offset)
        .num("cb", cb)
        .ptr("ptr", ptr)
        .num("num_events", num_events)
        .ptr("event_wait_list", wait_list);
    for (cl_uint i = 0; wait_list != nullptr && i < num_events; ++i) {
        call.ptr("wait", wait_list[i]);
    }
    return call.ptr("event", event);
}

cl_int CL_API_CALL stubEnqueueWriteBuffer(cl_command_queue command_queue, cl_mem buffer,
                                          cl_bool blocking_write, size_t offset, size_t cb,
                                          const void* ptr, cl_uint num_events_in_wait_list,
                                          const cl_event* event_wait_list, cl_event* event) {
    Call call("clEnqueueWriteBuffer");
    logEnqueueArgs(call, command_queue, buffer, blocking_write, offset, cb, ptr,
                   num_events_in_wait_list, event_wait_list, event);
    if (objectNames().count(buffer) == 0) return call.done(CL_INVALID_MEM_OBJECT);
    if (ptr == nullptr || offset + cb > buffer->bytes.size()) return call.done(CL_INVALID_VALUE);
    std::memcpy(buffer->bytes.data() + offset, ptr, cb);
    call.out("data", hex(fnv1a(buffer->bytes.data() + offset, cb)));
    return finishEnqueue(call, command_queue, CL_COMMAND_WRITE_BUFFER, event);
}

cl_int CL_API_CALL stubEnqueueReadBuffer(cl_command_queue command_queue, cl_mem buffer,
                                         cl_bool blocking_read, size_t offset, size_t cb, void* ptr,
                                         cl_uint num_events_in_wait_list,
                                         const cl_event* event_wait_list, cl_event* event) {
    Call call("clEnqueueReadBuffer");
    logEnqueueArgs(call, command_queue, buffer, blocking_read, offset, cb, ptr,
                   num_events_in_wait_list, event_wait_list, event);
    if (objectNames().count(buffer) == 0) return call.done(CL_INVALID_MEM_OBJECT);
    if (ptr == nullptr || offset + cb > buffer->bytes.size()) return call.done(CL_INVALID_VALUE);
    std::memcpy(ptr, buffer->bytes.data() + offset, cb);
    return finishEnqueue(call, command_queue, CL_COMMAND_READ_BUFFER, event);
}

cl_int CL_API_CALL stubFinish(cl_command_queue command_queue) {
    Call call("clFinish");
    call.ptr("command_queue", command_queue);
    return call.done(objectNames().count(command_queue) ? CL_SUCCESS : CL_INVALID_COMMAND_QUEUE);
}

template <typename T>
cl_int logRelease(const char* api, const char* arg, T* object) {
    Call call(api);
    call.ptr(arg, object);
    return call.done(releaseObject(object));
}

cl_int CL_API_CALL stubReleaseContext(cl_context c) {
    return logRelease("clReleaseContext", "context", c);
}
cl_int CL_API_CALL stubReleaseCommandQueue(cl_command_queue q) {
    return logRelease("clReleaseCommandQueue", "command_queue", q);
}
cl_int CL_API_CALL stubReleaseMemObject(cl_mem m) {
    return logRelease("clReleaseMemObject", "memobj", m);
}
cl_int CL_API_CALL stubReleaseEvent(cl_event e) { return logRelease("clReleaseEvent", "event", e); }

// What a tracing layer needs of events and queues: reference counts, the completion callback
// (run at once: the stub's commands are complete when enqueued), command type and queue, the
// profiling times (only on a queue created with CL_QUEUE_PROFILING_ENABLE) and queue queries.
cl_int CL_API_CALL stubRetainEvent(cl_event e) {
    Call call("clRetainEvent");
    call.ptr("event", e);
    if (objectNames().count(e) == 0) return call.done(CL_INVALID_EVENT);
    ++e->refs;
    return call.done(CL_SUCCESS);
}

cl_int CL_API_CALL stubRetainCommandQueue(cl_command_queue q) {
    Call call("clRetainCommandQueue");
    call.ptr("command_queue", q);
    if (objectNames().count(q) == 0) return call.done(CL_INVALID_COMMAND_QUEUE);
    ++q->refs;
    return call.done(CL_SUCCESS);
}

cl_int CL_API_CALL stubSetEventCallback(cl_event e, cl_int type,
                                        void(CL_CALLBACK* notify)(cl_event, cl_int, void*),
                                        void* user_data) {
    Call call("clSetEventCallback");
    call.ptr("event", e).num("command_exec_callback_type", static_cast<uint64_t>(type));
    if (objectNames().count(e) == 0) return call.done(CL_INVALID_EVENT);
    const cl_int r = call.done(CL_SUCCESS);
    notify(e, CL_COMPLETE, user_data);
    return r;
}

cl_int CL_API_CALL stubGetEventInfo(cl_event e, cl_event_info param_name, size_t param_value_size,
                                    void* param_value, size_t* param_value_size_ret) {
    Call call("clGetEventInfo");
    call.ptr("event", e).num("param_name", param_name).num("param_value_size", param_value_size);
    if (objectNames().count(e) == 0) return call.done(CL_INVALID_EVENT);
    if (param_name == CL_EVENT_COMMAND_QUEUE) {
        return call.done(
            info(&e->queue, sizeof e->queue, param_value_size, param_value, param_value_size_ret));
    }
    if (param_name == CL_EVENT_COMMAND_TYPE) {
        return call.done(
            info(&e->type, sizeof e->type, param_value_size, param_value, param_value_size_ret));
    }
    return call.done(CL_INVALID_VALUE);
}

cl_int CL_API_CALL stubGetEventProfilingInfo(cl_event e, cl_profiling_info param_name,
                                             size_t param_value_size, void* param_value,
                                             size_t* param_value_size_ret) {
    Call call("clGetEventProfilingInfo");
    call.ptr("event", e).num("param_name", param_name).num("param_value_size", param_value_size);
    if (objectNames().count(e) == 0) return call.done(CL_INVALID_EVENT);
    if (e->queue == nullptr || (e->queue->properties & CL_QUEUE_PROFILING_ENABLE) == 0) {
        return call.done(CL_PROFILING_INFO_NOT_AVAILABLE);
    }
    if (param_name < CL_PROFILING_COMMAND_QUEUED || param_name > CL_PROFILING_COMMAND_END) {
        return call.done(CL_INVALID_VALUE);
    }
    const cl_ulong t = e->times[param_name - CL_PROFILING_COMMAND_QUEUED];
    return call.done(info(&t, sizeof t, param_value_size, param_value, param_value_size_ret));
}

cl_int CL_API_CALL stubGetCommandQueueInfo(cl_command_queue q, cl_command_queue_info param_name,
                                           size_t param_value_size, void* param_value,
                                           size_t* param_value_size_ret) {
    Call call("clGetCommandQueueInfo");
    call.ptr("command_queue", q).num("param_name", param_name);
    if (objectNames().count(q) == 0) return call.done(CL_INVALID_COMMAND_QUEUE);
    if (param_name == CL_QUEUE_PROPERTIES) {
        return call.done(info(&q->properties, sizeof q->properties, param_value_size, param_value,
                              param_value_size_ret));
    }
    if (param_name == CL_QUEUE_REFERENCE_COUNT) {
        const cl_uint refs = static_cast<cl_uint>(q->refs);
        return call.done(
            info(&refs, sizeof refs, param_value_size, param_value, param_value_size_ret));
    }
    return call.done(CL_INVALID_VALUE);
}

cl_int CL_API_CALL stubIcdGetPlatformIDs(cl_uint num_entries, cl_platform_id* platforms,
                                         cl_uint* num_platforms) {
    return getPlatformIDs("clIcdGetPlatformIDsKHR", num_entries, platforms, num_platforms);
}

void* CL_API_CALL stubGetExtensionFunctionAddress(const char* name) {
    if (name != nullptr && std::strcmp(name, "clIcdGetPlatformIDsKHR") == 0) {
        return reinterpret_cast<void*>(&stubIcdGetPlatformIDs);
    }
    return nullptr;
}

// Filled before any loader can see the library (static initialization at dlopen).
const bool g_dispatchReady = [] {
    g_dispatch.clGetPlatformIDs = &stubGetPlatformIDs;
    g_dispatch.clGetPlatformInfo = &stubGetPlatformInfo;
    g_dispatch.clGetDeviceIDs = &stubGetDeviceIDs;
    g_dispatch.clGetDeviceInfo = &stubGetDeviceInfo;
    g_dispatch.clCreateContext = &stubCreateContext;
    g_dispatch.clReleaseContext = &stubReleaseContext;
    g_dispatch.clCreateCommandQueue = &stubCreateCommandQueue;
    g_dispatch.clReleaseCommandQueue = &stubReleaseCommandQueue;
    g_dispatch.clCreateBuffer = &stubCreateBuffer;
    g_dispatch.clReleaseMemObject = &stubReleaseMemObject;
    g_dispatch.clEnqueueWriteBuffer = &stubEnqueueWriteBuffer;
    g_dispatch.clEnqueueReadBuffer = &stubEnqueueReadBuffer;
    g_dispatch.clReleaseEvent = &stubReleaseEvent;
    g_dispatch.clRetainEvent = &stubRetainEvent;
    g_dispatch.clRetainCommandQueue = &stubRetainCommandQueue;
    g_dispatch.clSetEventCallback = &stubSetEventCallback;
    g_dispatch.clGetEventInfo = &stubGetEventInfo;
    g_dispatch.clGetEventProfilingInfo = &stubGetEventProfilingInfo;
    g_dispatch.clGetCommandQueueInfo = &stubGetCommandQueueInfo;
    g_dispatch.clFinish = &stubFinish;
    g_dispatch.clGetExtensionFunctionAddress = &stubGetExtensionFunctionAddress;
    return true;
}();

}  // namespace

// The symbols an ICD loader looks up by name. They forward to the internal functions, so that
// the dispatch table never binds to the loader's own exported clGetPlatformInfo & co.
STUB_EXPORT cl_int CL_API_CALL clIcdGetPlatformIDsKHR(cl_uint num_entries,
                                                      cl_platform_id* platforms,
                                                      cl_uint* num_platforms) {
    return stubIcdGetPlatformIDs(num_entries, platforms, num_platforms);
}

STUB_EXPORT void* CL_API_CALL clGetExtensionFunctionAddress(const char* func_name) {
    return stubGetExtensionFunctionAddress(func_name);
}

STUB_EXPORT cl_int CL_API_CALL clGetPlatformInfo(cl_platform_id platform,
                                                 cl_platform_info param_name,
                                                 size_t param_value_size, void* param_value,
                                                 size_t* param_value_size_ret) {
    return stubGetPlatformInfo(platform, param_name, param_value_size, param_value,
                               param_value_size_ret);
}
