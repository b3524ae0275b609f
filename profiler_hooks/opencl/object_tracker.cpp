#include "object_tracker.h"

#include <atomic>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "agent_state.h"
#include "record/api_record.h"

namespace perfmarker::cltrace {
namespace {

using record::ObjectInfoPayload;
using record::ObjectType;

struct QueueState {
    cl_context context = nullptr;
    cl_device_id device = nullptr;
    cl_command_queue_properties asked = 0;
    uint32_t appRefs = 1;
};

// Guards every member below. Never held while calling into OpenCL except for the short
// queries in noteDevice (device name and type), which no runtime calls back from.
std::mutex g_mutex;
// Never destroyed: the runtime's callback threads may still report commands while the process
// runs its exit handlers.
std::unordered_map<cl_command_queue, QueueState>& g_queues =
    *new std::unordered_map<cl_command_queue, QueueState>();
std::unordered_set<cl_device_id>& g_devices = *new std::unordered_set<cl_device_id>();
uint32_t g_contextCount = 0;
uint32_t g_queueCount = 0;
uint32_t g_deviceCount = 0;
uint32_t g_kernelCount = 0;

std::atomic<uint64_t> g_nextEnqueueId{1};
std::atomic<int64_t> g_pendingCallbacks{0};

void appendRecord(record::RecordKind kind, const void* payload, size_t size,
                  std::string_view name = {}) {
    record::Recorder* recorder = g_recorder;
    if (recorder == nullptr) return;
    record::ThreadLog* log = recorder->threadLog();
    if (log == nullptr) return;
    recorder->append(log, kind, recorder->now(),
                     std::string_view(static_cast<const char*>(payload), size), name);
}

void appendObject(ObjectType type, uint32_t id, const void* handle, const void* parent,
                  const void* device, uint64_t properties, std::string_view name = {}) {
    ObjectInfoPayload p{};
    p.type = static_cast<uint32_t>(type);
    p.id = id;
    p.handle = reinterpret_cast<uintptr_t>(handle);
    p.parent = reinterpret_cast<uintptr_t>(parent);
    p.device = reinterpret_cast<uintptr_t>(device);
    p.properties = properties;
    appendRecord(record::RecordKind::ObjectInfo, &p, sizeof p, name);
}

std::string deviceName(cl_device_id device) {
    char name[256] = {};
    size_t size = 0;
    if (nextLayer().clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name - 1, name, &size) !=
        CL_SUCCESS) {
        return {};
    }
    return std::string(name, strnlen(name, sizeof name - 1));
}

// Records a device the first time a queue on it appears.
void noteDevice(cl_device_id device) {
    uint32_t id = 0;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        if (!g_devices.insert(device).second) return;
        id = g_deviceCount++;
    }
    cl_device_type type = 0;
    if (nextLayer().clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, nullptr) !=
        CL_SUCCESS) {
        type = 0;
    }
    appendObject(ObjectType::Device, id, device, nullptr, device, type, deviceName(device));
}

// The event's CL_COMPLETE callback: reads the command's times and gives the reference back.
// Runs on a runtime thread; calls only the next layer.
void CL_CALLBACK onCommandComplete(cl_event event, cl_int status, void* userData) {
    const cl_icd_dispatch& next = nextLayer();
    record::DeviceTimesPayload p{};
    p.enqueueId = reinterpret_cast<uintptr_t>(userData);
    p.status = status;
    const cl_profiling_info names[] = {CL_PROFILING_COMMAND_QUEUED, CL_PROFILING_COMMAND_SUBMIT,
                                       CL_PROFILING_COMMAND_START, CL_PROFILING_COMMAND_END};
    cl_ulong* times[] = {&p.queued, &p.submit, &p.start, &p.end};
    for (size_t i = 0; i < 4; ++i) {
        cl_ulong t = 0;
        if (next.clGetEventProfilingInfo(event, names[i], sizeof t, &t, nullptr) == CL_SUCCESS) {
            *times[i] = t;
        }
    }
    cl_command_type type = 0;
    if (next.clGetEventInfo(event, CL_EVENT_COMMAND_TYPE, sizeof type, &type, nullptr) ==
        CL_SUCCESS) {
        p.commandType = type;
    }
    appendRecord(record::RecordKind::DeviceTimes, &p, sizeof p);
    next.clReleaseEvent(event);
    g_pendingCallbacks.fetch_sub(1, std::memory_order_release);
}

}  // namespace

void onContextCreated(cl_context context) {
    uint32_t id = 0;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        id = g_contextCount++;
    }
    appendObject(ObjectType::Context, id, context, nullptr, nullptr, 0);
}

void onQueueCreated(cl_command_queue queue, cl_context context, cl_device_id device,
                    cl_command_queue_properties asked) {
    uint32_t id = 0;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        g_queues[queue] = QueueState{context, device, asked, 1};
        id = g_queueCount++;
    }
    noteDevice(device);
    appendObject(ObjectType::Queue, id, queue, context, device, asked);
}

void onKernelCreated(cl_kernel kernel, cl_program program, const char* name) {
    std::string owned;
    if (name == nullptr) {
        char buf[1024] = {};
        if (nextLayer().clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, sizeof buf - 1, buf,
                                        nullptr) == CL_SUCCESS) {
            owned.assign(buf, strnlen(buf, sizeof buf - 1));
        }
        name = owned.c_str();
    }
    uint32_t id = 0;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        id = g_kernelCount++;
    }
    appendObject(ObjectType::Kernel, id, kernel, program, nullptr, 0, name);
}

bool askedQueueProperties(cl_command_queue queue, cl_command_queue_properties& asked) {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_queues.find(queue);
    if (it == g_queues.end()) return false;
    asked = it->second.asked;
    return true;
}

void setAskedQueueProperties(cl_command_queue queue, cl_command_queue_properties asked) {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_queues.find(queue);
    if (it != g_queues.end()) it->second.asked = asked;
}

void onQueueRetained(cl_command_queue queue) {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_queues.find(queue);
    if (it != g_queues.end()) ++it->second.appRefs;
}

// The reference count is the application's own (creation + retains - releases): the runtime's
// CL_QUEUE_REFERENCE_COUNT also counts the references events hold on their queue.
void beforeQueueRelease(cl_command_queue queue) {
    bool last = false;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        auto it = g_queues.find(queue);
        last = it != g_queues.end() && it->second.appRefs == 1;
    }
    if (last) nextLayer().clFinish(queue);
}

void afterQueueRelease(cl_command_queue queue, cl_int result) {
    if (result != CL_SUCCESS) return;
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = g_queues.find(queue);
    if (it != g_queues.end() && --it->second.appRefs == 0) g_queues.erase(it);
}

bool profilingHiddenFor(cl_event event) {
    cl_command_queue queue = nullptr;
    if (nextLayer().clGetEventInfo(event, CL_EVENT_COMMAND_QUEUE, sizeof queue, &queue, nullptr) !=
            CL_SUCCESS ||
        queue == nullptr) {
        return false;  // user events, invalid events: the runtime answers
    }
    cl_command_queue_properties asked = 0;
    return askedQueueProperties(queue, asked) && (asked & CL_QUEUE_PROFILING_ENABLE) == 0;
}

void trackCommand(cl_event event, bool appOwned, uint64_t enqueueId) {
    const cl_icd_dispatch& next = nextLayer();
    if (appOwned && next.clRetainEvent(event) != CL_SUCCESS) return;
    g_pendingCallbacks.fetch_add(1, std::memory_order_relaxed);
    if (next.clSetEventCallback(event, CL_COMPLETE, &onCommandComplete,
                                reinterpret_cast<void*>(static_cast<uintptr_t>(enqueueId))) !=
        CL_SUCCESS) {
        g_pendingCallbacks.fetch_sub(1, std::memory_order_relaxed);
        next.clReleaseEvent(event);
    }
}

uint64_t nextEnqueueId() { return g_nextEnqueueId.fetch_add(1, std::memory_order_relaxed); }

void finishLiveQueues() {
    std::vector<cl_command_queue> live;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        for (const auto& [queue, state] : g_queues) live.push_back(queue);
    }
    for (cl_command_queue queue : live) nextLayer().clFinish(queue);
}

void waitForDeviceTimes(std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (g_pendingCallbacks.load(std::memory_order_acquire) > 0 &&
           std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

}  // namespace perfmarker::cltrace
