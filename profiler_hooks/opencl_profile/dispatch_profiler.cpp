#include "dispatch_profiler.h"

#include <limits.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "atp/format/atp_header.h"
#include "profile/counters/perf_counters.h"
#include "profile/format/profile_csv.h"
#include "profile/format/profile_file.h"
#include "profile/format/profile_session.h"

namespace perfmarker::clprofile {
namespace {

using profile::CounterColumn;
using profile::DispatchRow;
using profile::ProfileApi;

constexpr char kPrefix[] = "perfmarker profile: ";
// cl_amd_device_attribute_query: the board name of an AMD device (docs/profile.md#header).
constexpr cl_device_info kDeviceBoardNameAmd = 0x4038;

struct DeviceEntry {
    bool isGpu = false;
    unsigned number = 0;  // 1-based, in order of first dispatch, per device name
    profile::DeviceDescription description;
};

// The process's profile: one file, one lock that serialises the dispatches of every thread.
struct Session {
    std::mutex mutex;
    profile::ProfileFile file;
    std::vector<CounterColumn> columns;
    std::unique_ptr<profile::ProcessCounters> counters;
    std::map<cl_device_id, DeviceEntry> devices;
    std::map<std::string, unsigned> devicesPerName;
    std::map<std::pair<cl_kernel, std::string>, uint64_t> kernelIds;
    std::map<cl_command_queue, cl_command_queue_properties> askedProperties;
    uint64_t executionOrder = 0;
    bool failed = false;  // a write failed: reported once, no more rows
    bool countersFailed = false;
};

Session* g_session = nullptr;

void report(const std::string& message) {
    std::fprintf(stderr, "%s%s\n", kPrefix, message.c_str());
}

std::string deviceString(cl_device_id device, cl_device_info what) {
    size_t size = 0;
    if (nextLayer().clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS || size == 0) {
        return "";
    }
    std::string value(size, '\0');
    if (nextLayer().clGetDeviceInfo(device, what, size, value.data(), nullptr) != CL_SUCCESS) {
        return "";
    }
    value.resize(value.find('\0') == std::string::npos ? size : value.find('\0'));
    return value;
}

std::string platformString(cl_platform_id platform, cl_platform_info what) {
    size_t size = 0;
    if (nextLayer().clGetPlatformInfo(platform, what, 0, nullptr, &size) != CL_SUCCESS) return "";
    std::string value(size, '\0');
    if (nextLayer().clGetPlatformInfo(platform, what, size, value.data(), nullptr) != CL_SUCCESS) {
        return "";
    }
    value.resize(value.find('\0') == std::string::npos ? size : value.find('\0'));
    return value;
}

// The device's entry, described on its first dispatch (the runtime may be gone at exit).
DeviceEntry& deviceEntry(Session& s, cl_device_id device) {
    auto it = s.devices.find(device);
    if (it != s.devices.end()) return it->second;
    DeviceEntry entry;
    cl_device_type type = 0;
    nextLayer().clGetDeviceInfo(device, CL_DEVICE_TYPE, sizeof type, &type, nullptr);
    entry.isGpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    entry.description.name = deviceString(device, CL_DEVICE_NAME);
    entry.number = ++s.devicesPerName[entry.description.name];
    cl_platform_id platform = nullptr;
    nextLayer().clGetDeviceInfo(device, CL_DEVICE_PLATFORM, sizeof platform, &platform, nullptr);
    auto& properties = entry.description.properties;
    properties.emplace_back("Platform Vendor", platformString(platform, CL_PLATFORM_VENDOR));
    properties.emplace_back("Platform Name", platformString(platform, CL_PLATFORM_NAME));
    properties.emplace_back("Platform Version", platformString(platform, CL_PLATFORM_VERSION));
    properties.emplace_back("CLDriver Version", deviceString(device, CL_DRIVER_VERSION));
    properties.emplace_back("CLRuntime Version", deviceString(device, CL_DEVICE_VERSION));
    properties.emplace_back("NumberAppAddressBits", std::to_string(sizeof(void*) * 8));
    if (std::string board = deviceString(device, kDeviceBoardNameAmd); !board.empty()) {
        properties.emplace_back("Board Name", board);
    }
    return s.devices.emplace(device, std::move(entry)).first->second;
}

std::string kernelName(cl_kernel kernel) {
    size_t size = 0;
    if (nextLayer().clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, 0, nullptr, &size) !=
            CL_SUCCESS ||
        size == 0) {
        return "unknown_kernel";
    }
    std::string name(size, '\0');
    nextLayer().clGetKernelInfo(kernel, CL_KERNEL_FUNCTION_NAME, size, name.data(), nullptr);
    name.resize(name.find('\0') == std::string::npos ? size : name.find('\0'));
    return name;
}

std::optional<uint64_t> workGroupInfo(cl_kernel kernel, cl_device_id device,
                                      cl_kernel_work_group_info what) {
    cl_ulong value = 0;
    if (nextLayer().clGetKernelWorkGroupInfo(kernel, device, what, sizeof value, &value, nullptr) !=
        CL_SUCCESS) {
        return std::nullopt;
    }
    return value;
}

// The work-group size of the dispatch: the application's, else the kernel's required size
// (reqd_work_group_size), else all zero (`NULL`: OpenCL does not say what the runtime chose).
std::array<uint64_t, 3> groupSize(cl_kernel kernel, cl_device_id device, cl_uint dims,
                                  const size_t* local) {
    std::array<uint64_t, 3> size{};
    if (local != nullptr) {
        size = {1, 1, 1};
        for (cl_uint d = 0; d < dims && d < 3; ++d) size[d] = local[d];
        return size;
    }
    size_t required[3] = {0, 0, 0};
    if (nextLayer().clGetKernelWorkGroupInfo(kernel, device, CL_KERNEL_COMPILE_WORK_GROUP_SIZE,
                                             sizeof required, required, nullptr) == CL_SUCCESS &&
        required[0] != 0) {
        for (int d = 0; d < 3; ++d) size[d] = required[d];
    }
    return size;
}

std::optional<double> deviceTimeMs(cl_event event) {
    cl_ulong start = 0;
    cl_ulong end = 0;
    if (nextLayer().clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_START, sizeof start, &start,
                                            nullptr) != CL_SUCCESS ||
        nextLayer().clGetEventProfilingInfo(event, CL_PROFILING_COMMAND_END, sizeof end, &end,
                                            nullptr) != CL_SUCCESS ||
        end < start) {
        return std::nullopt;
    }
    return static_cast<double>(end - start) * 1e-6;
}

// Everything the row needs, taken while the dispatch's lock is held.
struct Dispatch {
    uint64_t callIndex = 0;
    cl_command_queue queue = nullptr;
    cl_kernel kernel = nullptr;
    cl_uint dims = 1;
    const size_t* global = nullptr;
    const size_t* local = nullptr;
};

void writeRow(Session& s, const Dispatch& d, cl_event event, const std::vector<uint64_t>& before,
              const std::vector<uint64_t>& after) {
    cl_device_id device = nullptr;
    nextLayer().clGetCommandQueueInfo(d.queue, CL_QUEUE_DEVICE, sizeof device, &device, nullptr);
    const DeviceEntry& entry = deviceEntry(s, device);
    const std::string name = kernelName(d.kernel);
    const auto [id, added] =
        s.kernelIds.emplace(std::make_pair(d.kernel, name), s.kernelIds.size() + 1);
    (void)added;
    DispatchRow row;
    row.method =
        profile::methodName(name, id->second, entry.description.name, entry.number, entry.isGpu);
    row.executionOrder = ++s.executionOrder;
    row.threadId = static_cast<uint64_t>(gettid());
    row.callIndex = d.callIndex;
    row.globalSize = {1, 1, 1};
    for (cl_uint i = 0; i < d.dims && i < 3; ++i) row.globalSize[i] = d.global[i];
    row.groupSize = groupSize(d.kernel, device, d.dims, d.local);
    row.timeMs = deviceTimeMs(event);
    row.localMemBytes = workGroupInfo(d.kernel, device, CL_KERNEL_LOCAL_MEM_SIZE);
    row.privateMemBytes = workGroupInfo(d.kernel, device, CL_KERNEL_PRIVATE_MEM_SIZE);
    for (size_t i = 0; i < s.columns.size(); ++i) {
        row.counters.push_back(i < after.size() && i < before.size()
                                   ? static_cast<double>(after[i] - before[i])
                                   : 0.0);
    }
    std::string error;
    if (!s.file.appendRow(profile::formatDispatchRow(ProfileApi::OpenCL, ',', row, s.columns),
                          error)) {
        s.failed = true;
        report(error + "; no further rows are written");
    }
}

template <typename Enqueue>
cl_int profiledEnqueue(const Dispatch& d, cl_event* event, Enqueue&& enqueue) {
    Session& s = *g_session;
    std::lock_guard<std::mutex> lock(s.mutex);
    std::vector<uint64_t> before;
    if (s.counters && !s.countersFailed) {
        std::string error;
        if (!s.counters->refreshThreads(error)) {
            s.countersFailed = true;
            report(error + "; the counter columns of later rows cover the threads opened so far");
        }
        before = s.counters->read();
    }
    cl_event own = nullptr;
    cl_event* used = event != nullptr ? event : &own;
    const cl_int result = enqueue(used);
    if (result != CL_SUCCESS || *used == nullptr) return result;
    nextLayer().clWaitForEvents(1, used);
    const std::vector<uint64_t> after = s.counters ? s.counters->read() : std::vector<uint64_t>();
    if (!s.failed) writeRow(s, d, *used, before, after);
    if (own != nullptr) nextLayer().clReleaseEvent(own);
    return result;
}

std::string readFile(const char* path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

profile::ProfileHeader describeProcess(Session& s) {
    profile::ProfileHeader header;
    header.api = ProfileApi::OpenCL;
    char buffer[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", buffer, sizeof buffer - 1);
    if (n > 0) header.application.assign(buffer, static_cast<size_t>(n));
    const std::string cmdline = readFile("/proc/self/cmdline");
    size_t at = cmdline.find('\0');  // skip argv[0]
    while (at != std::string::npos && at + 1 < cmdline.size()) {
        const size_t end = cmdline.find('\0', at + 1);
        header.applicationArgs.push_back(cmdline.substr(at + 1, end - at - 1));
        at = end;
    }
    if (getcwd(buffer, sizeof buffer) != nullptr) header.workingDirectory = buffer;
    for (const auto& [device, entry] : s.devices) header.devices.push_back(entry.description);
    return header;
}

// At exit (the library's destructor): the header, then the rows, into the target.
__attribute__((destructor)) void finishProfile() {
    Session* s = g_session;
    if (s == nullptr) return;
    std::lock_guard<std::mutex> lock(s->mutex);
    std::string error;
    if (s->file.isOpen() &&
        !s->file.finish(profile::formatProfileHeader(describeProcess(*s), s->columns), error)) {
        report(error);
    }
}

}  // namespace

bool profiling() { return g_session != nullptr; }

void initProfiling() {
    const char* output = std::getenv(profile::kProfileOutputVariable);
    if (output == nullptr || *output == '\0' || g_session != nullptr) return;
    auto session = std::make_unique<Session>();
    const char* list = std::getenv(profile::kProfileCountersVariable);
    const std::vector<std::string> names = profile::splitCounterList(list ? list : "");
    if (!names.empty()) {
        std::vector<profile::CounterEvent> events;
        std::string error;
        if (!profile::resolveCounters(names, events, error)) {
            report(error + "; profiling without counters");
        } else {
            for (const auto& event : events) session->columns.push_back({event.name});
            session->counters = std::make_unique<profile::ProcessCounters>(std::move(events));
        }
    }
    std::string error;
    const std::string path = profile::expandPidToken(output, static_cast<long>(getpid()));
    if (!session->file.open(path, error)) {
        report(error + "; the kernel profile is not written");
        return;
    }
    g_session = session.release();  // lives until exit: the destructor finishes the file
}

cl_command_queue createCommandQueue(cl_api_clCreateCommandQueue next, cl_context context,
                                    cl_device_id device, cl_command_queue_properties properties,
                                    cl_int* errcode_ret) {
    cl_command_queue queue =
        next(context, device, properties | CL_QUEUE_PROFILING_ENABLE, errcode_ret);
    if (queue == nullptr) return next(context, device, properties, errcode_ret);
    std::lock_guard<std::mutex> lock(g_session->mutex);
    g_session->askedProperties[queue] = properties;
    return queue;
}

cl_command_queue createCommandQueueWithProperties(cl_api_clCreateCommandQueueWithProperties next,
                                                  cl_context context, cl_device_id device,
                                                  const cl_queue_properties* properties,
                                                  cl_int* errcode_ret) {
    std::vector<cl_queue_properties> forced;
    cl_command_queue_properties asked = 0;
    bool found = false;
    for (size_t i = 0; properties != nullptr && properties[i] != 0; i += 2) {
        forced.push_back(properties[i]);
        forced.push_back(properties[i + 1]);
        if (properties[i] == CL_QUEUE_PROPERTIES) {
            found = true;
            asked = properties[i + 1];
            forced.back() |= CL_QUEUE_PROFILING_ENABLE;
        }
    }
    if (!found) {
        forced.push_back(CL_QUEUE_PROPERTIES);
        forced.push_back(CL_QUEUE_PROFILING_ENABLE);
    }
    forced.push_back(0);
    cl_command_queue queue = next(context, device, forced.data(), errcode_ret);
    if (queue == nullptr) return next(context, device, properties, errcode_ret);
    std::lock_guard<std::mutex> lock(g_session->mutex);
    g_session->askedProperties[queue] = asked;
    return queue;
}

// CL_QUEUE_PROPERTIES shows profiling only where the application asked for it.
cl_int getCommandQueueInfo(cl_api_clGetCommandQueueInfo next, cl_command_queue queue,
                           cl_command_queue_info param_name, size_t param_value_size,
                           void* param_value, size_t* param_value_size_ret) {
    const cl_int r = next(queue, param_name, param_value_size, param_value, param_value_size_ret);
    if (r != CL_SUCCESS || param_name != CL_QUEUE_PROPERTIES || param_value == nullptr ||
        param_value_size < sizeof(cl_command_queue_properties)) {
        return r;
    }
    std::lock_guard<std::mutex> lock(g_session->mutex);
    auto it = g_session->askedProperties.find(queue);
    if (it != g_session->askedProperties.end()) {
        auto* value = static_cast<cl_command_queue_properties*>(param_value);
        *value = (*value & ~cl_command_queue_properties{CL_QUEUE_PROFILING_ENABLE}) |
                 (it->second & CL_QUEUE_PROFILING_ENABLE);
    }
    return r;
}

cl_int enqueueNDRangeKernel(uint64_t callIndex, cl_api_clEnqueueNDRangeKernel next,
                            cl_command_queue queue, cl_kernel kernel, cl_uint work_dim,
                            const size_t* global_work_offset, const size_t* global_work_size,
                            const size_t* local_work_size, cl_uint num_events_in_wait_list,
                            const cl_event* event_wait_list, cl_event* event) {
    if (global_work_size == nullptr) {  // invalid: the runtime says so, nothing to measure
        return next(queue, kernel, work_dim, global_work_offset, global_work_size, local_work_size,
                    num_events_in_wait_list, event_wait_list, event);
    }
    const Dispatch d{callIndex, queue, kernel, work_dim, global_work_size, local_work_size};
    return profiledEnqueue(d, event, [&](cl_event* used) {
        return next(queue, kernel, work_dim, global_work_offset, global_work_size, local_work_size,
                    num_events_in_wait_list, event_wait_list, used);
    });
}

cl_int enqueueTask(uint64_t callIndex, cl_api_clEnqueueTask next, cl_command_queue queue,
                   cl_kernel kernel, cl_uint num_events_in_wait_list,
                   const cl_event* event_wait_list, cl_event* event) {
    static const size_t kOne[1] = {1};
    const Dispatch d{callIndex, queue, kernel, 1, kOne, kOne};
    return profiledEnqueue(d, event, [&](cl_event* used) {
        return next(queue, kernel, num_events_in_wait_list, event_wait_list, used);
    });
}

}  // namespace perfmarker::clprofile
