// The HSA agent's profile mode (docs/profile.md#hsa). Rows are written on the application thread
// that submits the packets, under one mutex, so a file's row order is the execution order.
#include "profile_mode.h"

#include <hsa/hsa_ven_amd_loader.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "atp/merge/session_merge.h"
#include "profile/format/kernel_descriptor.h"
#include "profile/format/occupancy_file.h"
#include "profile/format/occupancy_model.h"
#include "profile/format/profile_csv.h"
#include "profile/format/profile_file.h"
#include "profile/format/profile_session.h"
#include "wrappers.h"

namespace perfmarker::hsatrace {

std::atomic<bool> g_profileOn{false};

namespace {

constexpr char kPrefix[] = "perfmarker: HSA agent (profile)";
constexpr char kListSeparator = ',';

struct AgentInfo {
    std::string name;
    bool isGpu = false;
    unsigned number = 1;  // among the agents of the same name, 1-based
    std::optional<profile::GfxIp> gfxIp;
    profile::AgentProperties properties;
};

// What the profile keeps; everything is guarded by `mutex` (taken once per submitted batch of
// packets and once per kernel symbol, never on the path of other API calls).
struct ProfileState {
    std::mutex mutex;
    bool finished = false;
    profile::ProfileFile csv;
    profile::OccupancyFileWriter occupancy;
    atp::ProcessStart start;
    std::map<uint64_t, AgentInfo> agents;  // by handle
    std::unordered_map<uint64_t, std::string> kernelNames;
    std::unordered_map<uint64_t, uint64_t> kernelIds;  // 1, 2, ... in order of first dispatch
    std::unordered_map<uint64_t, std::optional<profile::KernelDescriptor>> descriptors;
    bool loaderQueried = false;
    hsa_ven_amd_loader_1_00_pfn_t loader{};
    uint64_t executionOrder = 0;
};

// Lives as long as the process: dispatches and the exit may race with library teardown.
ProfileState& g_state = *new ProfileState();

uint64_t threadId() { return static_cast<uint64_t>(syscall(SYS_gettid)); }

// An unnamed kernel is its kernel object, as the trace prints handles (docs/profile.md#hsa).
std::string hexName(uint64_t kernelObject) {
    char text[24];
    std::snprintf(text, sizeof text, "0x%" PRIX64, kernelObject);
    return text;
}

template <typename T>
T agentAttribute(hsa_agent_t agent, int attribute, T fallback) {
    T value{};
    const auto getInfo = PM_HSA_CALL(hsa_agent_get_info);
    if (getInfo(agent, static_cast<hsa_agent_info_t>(attribute), &value) != HSA_STATUS_SUCCESS) {
        return fallback;
    }
    return value;
}

AgentInfo describeAgent(hsa_agent_t agent) {
    AgentInfo info;
    char name[64] = {};
    if (PM_HSA_CALL(hsa_agent_get_info)(agent, HSA_AGENT_INFO_NAME, name) == HSA_STATUS_SUCCESS) {
        name[sizeof name - 1] = '\0';
        info.name = name;
    }
    info.isGpu = agentAttribute<hsa_device_type_t>(agent, HSA_AGENT_INFO_DEVICE,
                                                   HSA_DEVICE_TYPE_CPU) == HSA_DEVICE_TYPE_GPU;
    info.gfxIp = info.isGpu ? profile::parseGfxIp(info.name) : std::nullopt;
    profile::AgentProperties& p = info.properties;
    p.name = info.name;
    if (info.gfxIp) p.gfxIp = *info.gfxIp;
    p.computeUnits = agentAttribute<uint32_t>(agent, HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT, 0);
    p.simdsPerCu = agentAttribute<uint32_t>(agent, HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU, 0);
    p.maxWorkgroupSize = agentAttribute<uint32_t>(agent, HSA_AGENT_INFO_WORKGROUP_MAX_SIZE, 1024);
    p.maxGridSize = agentAttribute<uint32_t>(agent, HSA_AGENT_INFO_GRID_MAX_SIZE, 0xFFFFFFFFu);
    return info;
}

void noteAgents() {
    const auto iterate = PM_HSA_CALL(hsa_iterate_agents);
    if (iterate == nullptr || PM_HSA_CALL(hsa_agent_get_info) == nullptr) return;
    iterate(
        [](hsa_agent_t agent, void*) {
            AgentInfo info = describeAgent(agent);
            for (const auto& [handle, other] : g_state.agents) {
                if (other.name == info.name) ++info.number;
            }
            g_state.agents.emplace(agent.handle, std::move(info));
            return HSA_STATUS_SUCCESS;
        },
        nullptr);
}

// Reads `bytes` at `address` without trusting it: a bad address is an error, not a crash.
bool readChecked(const void* address, unsigned char* out, size_t bytes) {
    iovec local{out, bytes};
    iovec remote{const_cast<void*>(address), bytes};
    const ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    if (n == static_cast<ssize_t>(bytes)) return true;
    if (n < 0 && errno != ENOSYS && errno != EPERM) return false;
    // Without process_vm_readv: a pipe's write fails with EFAULT on a bad address.
    int fds[2];
    if (pipe(fds) != 0) return false;
    const bool ok = write(fds[1], address, bytes) == static_cast<ssize_t>(bytes) &&
                    read(fds[0], out, bytes) == static_cast<ssize_t>(bytes);
    close(fds[0]);
    close(fds[1]);
    return ok;
}

// The kernel descriptor at a kernel object: through the loader extension's host address when
// the runtime offers it, else at the kernel object itself (docs/profile.md#hsa).
std::optional<profile::KernelDescriptor> readDescriptor(uint64_t kernelObject) {
    ProfileState& s = g_state;
    if (!s.loaderQueried) {
        s.loaderQueried = true;
        const auto table = PM_HSA_CALL(hsa_system_get_major_extension_table);
        if (table == nullptr ||
            table(HSA_EXTENSION_AMD_LOADER, 1, sizeof s.loader, &s.loader) != HSA_STATUS_SUCCESS) {
            s.loader = {};
        }
    }
    const auto* address = reinterpret_cast<const void*>(kernelObject);
    if (s.loader.hsa_ven_amd_loader_query_host_address != nullptr) {
        const void* host = nullptr;
        if (s.loader.hsa_ven_amd_loader_query_host_address(address, &host) == HSA_STATUS_SUCCESS &&
            host != nullptr) {
            address = host;
        }
    }
    unsigned char bytes[profile::kKernelDescriptorSize];
    if (kernelObject == 0 || !readChecked(address, bytes, sizeof bytes)) return std::nullopt;
    return profile::readKernelDescriptor(bytes);
}

std::optional<profile::KernelResources> resourcesOf(uint64_t kernelObject, const AgentInfo& agent) {
    auto it = g_state.descriptors.find(kernelObject);
    if (it == g_state.descriptors.end()) {
        it = g_state.descriptors.emplace(kernelObject, readDescriptor(kernelObject)).first;
    }
    if (!it->second || !agent.gfxIp) return std::nullopt;
    return profile::decodeKernelResources(*it->second, *agent.gfxIp);
}

const AgentInfo& agentOf(hsa_agent_t agent) {
    auto it = g_state.agents.find(agent.handle);
    if (it == g_state.agents.end())
        it = g_state.agents.emplace(agent.handle, describeAgent(agent)).first;
    return it->second;
}

bool isKernelDispatch(const hsa_kernel_dispatch_packet_t& p) {
    const unsigned type =
        (p.header >> HSA_PACKET_HEADER_TYPE) & ((1u << HSA_PACKET_HEADER_WIDTH_TYPE) - 1);
    return type == HSA_PACKET_TYPE_KERNEL_DISPATCH;
}

void writeOccupancy(const AgentInfo& agent, const std::string& kernel,
                    const hsa_kernel_dispatch_packet_t& p, const profile::KernelResources& r,
                    uint64_t tid) {
    profile::DispatchUse use;
    use.threadId = tid;
    use.kernelName = kernel;
    use.waveSize = r.waveSize;
    use.vgprs = r.vgprBudget;
    use.sgprs = r.sgprs;
    use.ldsBytes = p.group_segment_size;
    use.workgroupSize =
        uint32_t{p.workgroup_size_x} * uint32_t{p.workgroup_size_y} * uint32_t{p.workgroup_size_z};
    use.globalSize = uint64_t{p.grid_size_x} * p.grid_size_y * p.grid_size_z;
    const std::optional<profile::OccupancyRow> row =
        profile::computeOccupancy(agent.properties, use);
    if (row && g_state.occupancy.isOpen()) g_state.occupancy.append(*row);
}

// One dispatch; the caller holds the mutex.
void writeDispatch(const AgentInfo& agent, const hsa_kernel_dispatch_packet_t& p, uint64_t tid) {
    ProfileState& s = g_state;
    const uint64_t kernelId =
        s.kernelIds.emplace(p.kernel_object, s.kernelIds.size() + 1).first->second;
    const auto named = s.kernelNames.find(p.kernel_object);
    const std::string kernel =
        named != s.kernelNames.end() ? named->second : hexName(p.kernel_object);
    profile::DispatchRow row;
    row.method = profile::methodName(kernel, kernelId, agent.name, agent.number, agent.isGpu);
    row.executionOrder = ++s.executionOrder;
    row.threadId = tid;
    row.globalSize = {p.grid_size_x, p.grid_size_y, p.grid_size_z};
    row.groupSize = {p.workgroup_size_x, p.workgroup_size_y, p.workgroup_size_z};
    row.localMemBytes = p.group_segment_size;
    row.privateMemBytes = p.private_segment_size;
    const std::optional<profile::KernelResources> r = resourcesOf(p.kernel_object, agent);
    if (r) row.vgprs = r->vgprs, row.sgprs = r->sgprs;
    std::string error;
    if (!s.csv.appendRow(
            profile::formatDispatchRow(profile::ProfileApi::Hsa, kListSeparator, row, {}), error)) {
        std::fprintf(stderr, "%s: %s\n", kPrefix, error.c_str());
    }
    if (r && agent.isGpu) writeOccupancy(agent, kernel, p, *r, tid);
}

bool openFiles() {
    const char* output = std::getenv(profile::kProfileOutputVariable);
    const std::string csvPath = profile::expandPidToken(output, static_cast<long>(getpid()));
    std::string error;
    if (!g_state.csv.open(csvPath, error)) {
        std::fprintf(stderr, "%s: %s; not profiling\n", kPrefix, error.c_str());
        return false;
    }
    atp::AtpHeader process;
    atp::describeThisProcess(g_state.start, process);
    profile::OccupancyHeader header;
    header.application = process.application;
    header.applicationArgs = process.applicationArgs;
    header.listSeparator = kListSeparator;
    if (!g_state.occupancy.open(profile::occupancyPathFor(csvPath), header, error)) {
        std::fprintf(stderr, "%s: %s; no occupancy file\n", kPrefix, error.c_str());
    }
    return true;
}

__attribute__((destructor)) void finishAtExit() { finishProfileMode(); }

}  // namespace

bool profileRequested() {
    const char* output = std::getenv(profile::kProfileOutputVariable);
    return output != nullptr && output[0] != '\0';
}

bool startProfileMode(HsaApiTable* table, const TableCheck& check) {
    std::lock_guard<std::mutex> lock(g_state.mutex);
    g_state.start = atp::ProcessStart::now();
    if (!openFiles()) return true;
    installWrappers(table, check);
    if (g_original[kSlot_hsa_amd_queue_intercept_create] == nullptr) {
        std::fprintf(stderr,
                     "%s: the runtime offers no queue interception: no kernel dispatch "
                     "is profiled\n",
                     kPrefix);
    }
    const char* counters = std::getenv(profile::kProfileCountersVariable);
    if (counters != nullptr && counters[0] != '\0') {
        std::fprintf(stderr, "%s: counters are not collected for HSA dispatches\n", kPrefix);
    }
    noteAgents();
    g_profileOn.store(true, std::memory_order_relaxed);
    return true;
}

void profileDispatches(hsa_agent_t agent, const void* packets, uint64_t count) {
    const auto* p = static_cast<const hsa_kernel_dispatch_packet_t*>(packets);
    const uint64_t tid = threadId();
    std::lock_guard<std::mutex> lock(g_state.mutex);
    if (g_state.finished) return;
    const AgentInfo& info = agentOf(agent);
    for (uint64_t i = 0; i < count; ++i) {
        hsa_kernel_dispatch_packet_t packet;
        std::memcpy(&packet, p + i, sizeof packet);  // the ring may be unaligned for us
        if (isKernelDispatch(packet)) writeDispatch(info, packet, tid);
    }
}

void noteProfileKernelName(uint64_t kernelObject, std::string_view name) {
    if (name.empty()) return;
    std::lock_guard<std::mutex> lock(g_state.mutex);
    g_state.kernelNames.emplace(kernelObject, std::string(name));
}

void stopProfileMode() {
    if (!profileModeOn()) return;
    restoreOriginals();
    finishProfileMode();
}

void finishProfileMode() {
    if (!g_profileOn.exchange(false)) return;
    std::lock_guard<std::mutex> lock(g_state.mutex);
    g_state.finished = true;
    atp::AtpHeader process;
    atp::describeThisProcess(g_state.start, process);
    profile::ProfileHeader header;
    header.api = profile::ProfileApi::Hsa;
    header.application = process.application;
    header.applicationArgs = process.applicationArgs;
    header.workingDirectory = process.workingDirectory;
    header.listSeparator = kListSeparator;
    std::string error;
    if (!g_state.csv.finish(profile::formatProfileHeader(header, {}), error)) {
        std::fprintf(stderr, "%s: %s\n", kPrefix, error.c_str());
    }
    if (g_state.occupancy.isOpen() && !g_state.occupancy.finish(error)) {
        std::fprintf(stderr, "%s: %s\n", kPrefix, error.c_str());
    }
}

}  // namespace perfmarker::hsatrace
