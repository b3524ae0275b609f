#include "fake_runtime.h"

#include <hsa/hsa_ven_amd_loader.h>
#include <time.h>

#include <array>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

namespace perfmarker::test {
namespace {


std::atomic<uint64_t> g_calls[kTestSlotCount];

struct Signal {
    std::atomic<int64_t> value;
};

struct Handler {
    hsa_signal_t signal;
    hsa_signal_condition_t condition;
    hsa_signal_value_t compare;
    hsa_amd_signal_handler handler;
    void* arg;
};

struct Queue {
    hsa_queue_t q{};
    std::vector<hsa_kernel_dispatch_packet_t> ring;
    uint64_t writeIndex = 0;
    hsa_amd_queue_intercept_handler intercept = nullptr;
    void* interceptData = nullptr;
    std::deque<hsa_kernel_dispatch_packet_t> hardware;
};

// Guards everything below; handlers run without it.
std::mutex g_mutex;
std::condition_variable g_changed;
std::vector<Handler> g_handlers;
std::map<uint64_t, hsa_amd_profiling_dispatch_time_t> g_dispatchTimes;
std::map<uint64_t, hsa_amd_profiling_async_copy_time_t> g_copyTimes;
uint64_t g_copyStart = 0, g_copyEnd = 0;
bool g_stop = false;
int g_running = 0;  // handlers being run right now
std::thread g_handlerThread;
std::set<Signal*> g_signals;  // alive, freed by ~FakeRuntime if the application did not
std::set<Queue*> g_queues;
thread_local Queue* t_writerQueue = nullptr;
std::map<uint64_t, std::array<unsigned char, 64>> g_descriptors;  // the loader's host copies
bool g_loaderOffered = true;

uint64_t monotonic() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

Signal* sig(hsa_signal_t s) { return reinterpret_cast<Signal*>(s.handle); }

bool satisfied(const Handler& h) {
    const int64_t v = sig(h.signal)->value.load();
    switch (h.condition) {
        case HSA_SIGNAL_CONDITION_EQ: return v == h.compare;
        case HSA_SIGNAL_CONDITION_NE: return v != h.compare;
        case HSA_SIGNAL_CONDITION_LT: return v < h.compare;
        default: return v >= h.compare;
    }
}

void notifyChange() {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_changed.notify_all();
}

// The runtime's async-handler thread: runs every handler whose condition holds.
void handlerLoop() {
    std::unique_lock<std::mutex> lock(g_mutex);
    while (!g_stop) {
        bool ran = false;
        for (size_t i = 0; i < g_handlers.size(); ++i) {
            if (!satisfied(g_handlers[i])) continue;
            Handler h = g_handlers[i];
            g_handlers.erase(g_handlers.begin() + static_cast<long>(i));
            ++g_running;
            lock.unlock();
            const bool again = h.handler(sig(h.signal)->value.load(), h.arg);
            lock.lock();
            --g_running;
            if (again) g_handlers.push_back(h);
            ran = true;
            break;
        }
        if (!ran) g_changed.wait_for(lock, std::chrono::milliseconds(5));
    }
}

template <unsigned S, typename R, typename... A>
R stub(A...) {
    g_calls[S].fetch_add(1);
    if constexpr (!std::is_void_v<R>) return R{};
}

template <unsigned S, typename R, typename... A>
void setStub(R (*&field)(A...)) {
    field = &stub<S, R, A...>;
}

#define COUNT(name) g_calls[kTest_##name].fetch_add(1)

// ---- behaving slots ------------------------------------------------------------------------

hsa_status_t systemGetInfo(hsa_system_info_t attribute, void* value) {
    COUNT(hsa_system_get_info);
    if (attribute == HSA_SYSTEM_INFO_TIMESTAMP) {
        *static_cast<uint64_t*>(value) = hostToSystem(monotonic());
    } else if (attribute == HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY) {
        *static_cast<uint64_t*>(value) = kSystemFrequency;
    } else {
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t iterateAgents(hsa_status_t (*callback)(hsa_agent_t, void*), void* data) {
    COUNT(hsa_iterate_agents);
    for (uint64_t h : {kCpuAgent, kGpuAgent}) {
        const hsa_status_t st = callback(hsa_agent_t{h}, data);
        if (st != HSA_STATUS_SUCCESS) return st == HSA_STATUS_INFO_BREAK ? HSA_STATUS_SUCCESS : st;
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t agentGetInfo(hsa_agent_t agent, hsa_agent_info_t asked, void* value) {
    COUNT(hsa_agent_get_info);
    if (agent.handle != kCpuAgent && agent.handle != kGpuAgent) return HSA_STATUS_ERROR_INVALID_AGENT;
    const bool gpu = agent.handle == kGpuAgent;
    // The AMD attributes are values of another enum, outside this one's range: its bytes are
    // read as an int (a load as this enum is undefined behaviour, which Clang's UBSan reports).
    int attribute = 0;
    std::memcpy(&attribute, &asked, sizeof attribute);
    if (attribute == HSA_AGENT_INFO_NAME) {
        char* out = static_cast<char*>(value);
        std::memset(out, 0, 64);
        std::strncpy(out, gpu ? kGpuName : kCpuName, 63);
    } else if (attribute == HSA_AGENT_INFO_DEVICE) {
        *static_cast<hsa_device_type_t*>(value) = gpu ? HSA_DEVICE_TYPE_GPU : HSA_DEVICE_TYPE_CPU;
    } else if (gpu && attribute == HSA_AMD_AGENT_INFO_COMPUTE_UNIT_COUNT) {
        *static_cast<uint32_t*>(value) = kGpuComputeUnits;
    } else if (gpu && attribute == HSA_AMD_AGENT_INFO_NUM_SIMDS_PER_CU) {
        *static_cast<uint32_t*>(value) = kGpuSimdsPerCu;
    } else if (gpu && attribute == HSA_AGENT_INFO_WORKGROUP_MAX_SIZE) {
        *static_cast<uint32_t*>(value) = 1024;
    } else if (gpu && attribute == HSA_AGENT_INFO_GRID_MAX_SIZE) {
        *static_cast<uint32_t*>(value) = 0xFFFFFFFFu;
    } else {
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t signalCreate(hsa_signal_value_t initial, uint32_t, const hsa_agent_t*, hsa_signal_t* out) {
    COUNT(hsa_signal_create);
    if (out == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    auto* s = new Signal;
    s->value.store(initial);
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        g_signals.insert(s);
    }
    out->handle = reinterpret_cast<uint64_t>(s);
    return HSA_STATUS_SUCCESS;
}

hsa_status_t signalDestroy(hsa_signal_t s) {
    COUNT(hsa_signal_destroy);
    if (s.handle == 0) return HSA_STATUS_ERROR_INVALID_SIGNAL;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        g_signals.erase(sig(s));
    }
    delete sig(s);
    return HSA_STATUS_SUCCESS;
}

hsa_signal_value_t signalLoad(hsa_signal_t s) {
    COUNT(hsa_signal_load_relaxed);
    return sig(s)->value.load();
}

void signalStore(hsa_signal_t s, hsa_signal_value_t v) {
    COUNT(hsa_signal_store_relaxed);
    sig(s)->value.store(v);
    notifyChange();
}

void signalStoreRelease(hsa_signal_t s, hsa_signal_value_t v) {
    COUNT(hsa_signal_store_screlease);
    sig(s)->value.store(v);
    notifyChange();
}

void signalSubtractRelease(hsa_signal_t s, hsa_signal_value_t v) {
    COUNT(hsa_signal_subtract_screlease);
    sig(s)->value.fetch_sub(v);
    notifyChange();
}

hsa_signal_value_t signalWait(hsa_signal_t s, hsa_signal_condition_t condition,
                              hsa_signal_value_t compare, uint64_t timeout, hsa_wait_state_t) {
    COUNT(hsa_signal_wait_scacquire);
    const Handler probe{s, condition, compare, nullptr, nullptr};
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::nanoseconds(
                              timeout > 5000000000ull ? 5000000000ull : timeout);
    while (!satisfied(probe) && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(std::chrono::microseconds(100));
    }
    return sig(s)->value.load();
}

hsa_status_t asyncHandler(hsa_signal_t s, hsa_signal_condition_t c, hsa_signal_value_t v,
                          hsa_amd_signal_handler handler, void* arg) {
    COUNT(hsa_amd_signal_async_handler);
    if (s.handle == 0 || handler == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    std::lock_guard<std::mutex> lock(g_mutex);
    g_handlers.push_back(Handler{s, c, v, handler, arg});
    g_changed.notify_all();
    return HSA_STATUS_SUCCESS;
}

Queue* makeQueue(uint32_t size) {
    auto* q = new Queue;
    q->ring.resize(size);
    q->q.type = HSA_QUEUE_TYPE_MULTI;
    q->q.features = HSA_QUEUE_FEATURE_KERNEL_DISPATCH;
    q->q.base_address = q->ring.data();
    q->q.size = size;
    q->q.id = reinterpret_cast<uint64_t>(q) & 0xffff;
    signalCreate(1, 0, nullptr, &q->q.doorbell_signal);
    std::lock_guard<std::mutex> lock(g_mutex);
    g_queues.insert(q);
    return q;
}

hsa_status_t queueCreate(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t,
                         void (*)(hsa_status_t, hsa_queue_t*, void*), void*, uint32_t, uint32_t,
                         hsa_queue_t** queue) {
    COUNT(hsa_queue_create);
    if (agent.handle != kGpuAgent || queue == nullptr || size == 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *queue = &makeQueue(size)->q;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t interceptCreate(hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                             void (*cb)(hsa_status_t, hsa_queue_t*, void*), void* data,
                             uint32_t priv, uint32_t group, hsa_queue_t** queue) {
    COUNT(hsa_amd_queue_intercept_create);
    g_calls[kTest_hsa_queue_create].fetch_sub(1);  // counted below, not as an application call
    return queueCreate(agent, size, type, cb, data, priv, group, queue);
}

hsa_status_t interceptRegister(hsa_queue_t* queue, hsa_amd_queue_intercept_handler handler, void* data) {
    COUNT(hsa_amd_queue_intercept_register);
    auto* q = reinterpret_cast<Queue*>(queue);  // q is the first member
    q->intercept = handler;
    q->interceptData = data;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t queueDestroy(hsa_queue_t* queue) {
    COUNT(hsa_queue_destroy);
    if (queue == nullptr) return HSA_STATUS_ERROR_INVALID_QUEUE;
    auto* q = reinterpret_cast<Queue*>(queue);
    signalDestroy(q->q.doorbell_signal);
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        g_queues.erase(q);
    }
    delete q;
    return HSA_STATUS_SUCCESS;
}

void packetWriter(const void* packets, uint64_t count) {
    const auto* p = static_cast<const hsa_kernel_dispatch_packet_t*>(packets);
    std::lock_guard<std::mutex> lock(g_mutex);
    t_writerQueue->hardware.insert(t_writerQueue->hardware.end(), p, p + count);
}

hsa_status_t dispatchTime(hsa_agent_t, hsa_signal_t s, hsa_amd_profiling_dispatch_time_t* t) {
    COUNT(hsa_amd_profiling_get_dispatch_time);
    std::lock_guard<std::mutex> lock(g_mutex);
    const auto it = g_dispatchTimes.find(s.handle);
    if (it == g_dispatchTimes.end() || t == nullptr) return HSA_STATUS_ERROR_INVALID_SIGNAL;
    *t = it->second;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t copyTime(hsa_signal_t s, hsa_amd_profiling_async_copy_time_t* t) {
    COUNT(hsa_amd_profiling_get_async_copy_time);
    std::lock_guard<std::mutex> lock(g_mutex);
    const auto it = g_copyTimes.find(s.handle);
    if (it == g_copyTimes.end() || t == nullptr) return HSA_STATUS_ERROR_INVALID_SIGNAL;
    *t = it->second;
    return HSA_STATUS_SUCCESS;
}

// Copies "complete" at once: a zero size is the failing call.
hsa_status_t asyncCopy(void*, hsa_agent_t, const void*, hsa_agent_t, size_t size, uint32_t,
                       const hsa_signal_t*, hsa_signal_t completion) {
    COUNT(hsa_amd_memory_async_copy);
    if (size == 0) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    if (completion.handle != 0) {
        {
            std::lock_guard<std::mutex> lock(g_mutex);
            g_copyTimes[completion.handle] = {g_copyStart, g_copyEnd};
        }
        signalSubtractRelease(completion, 1);
        g_calls[kTest_hsa_signal_subtract_screlease].fetch_sub(1);
    }
    return HSA_STATUS_SUCCESS;
}

hsa_status_t getSymbolByName(hsa_executable_t, const char* name, const hsa_agent_t*,
                             hsa_executable_symbol_t* symbol) {
    COUNT(hsa_executable_get_symbol_by_name);
    if (name == nullptr || std::strcmp(name, kKernelSymbol) != 0) return HSA_STATUS_ERROR_INVALID_SYMBOL_NAME;
    symbol->handle = 77;
    return HSA_STATUS_SUCCESS;
}

hsa_status_t symbolGetInfo(hsa_executable_symbol_t symbol, hsa_executable_symbol_info_t attribute,
                           void* value) {
    COUNT(hsa_executable_symbol_get_info);
    if (symbol.handle != 77) return HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL;
    switch (attribute) {
        case HSA_EXECUTABLE_SYMBOL_INFO_TYPE:
            *static_cast<hsa_symbol_kind_t*>(value) = HSA_SYMBOL_KIND_KERNEL;
            return HSA_STATUS_SUCCESS;
        case HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT:
            *static_cast<uint64_t*>(value) = kKernelObject;
            return HSA_STATUS_SUCCESS;
        case HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH:
            *static_cast<uint32_t*>(value) = static_cast<uint32_t>(std::strlen(kKernelSymbol));
            return HSA_STATUS_SUCCESS;
        case HSA_EXECUTABLE_SYMBOL_INFO_NAME:
            std::memcpy(value, kKernelSymbol, std::strlen(kKernelSymbol));  // not terminated
            return HSA_STATUS_SUCCESS;
        default:
            return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
}

hsa_status_t queryHostAddress(const void* device, const void** host) {
    std::lock_guard<std::mutex> lock(g_mutex);
    const auto it = g_descriptors.find(reinterpret_cast<uint64_t>(device));
    if (it == g_descriptors.end() || host == nullptr) return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    *host = it->second.data();
    return HSA_STATUS_SUCCESS;
}

hsa_status_t majorExtensionTable(uint16_t extension, uint16_t major, size_t length, void* table) {
    COUNT(hsa_system_get_major_extension_table);
    if (extension != HSA_EXTENSION_AMD_LOADER || major != 1 || !g_loaderOffered ||
        length < sizeof(hsa_ven_amd_loader_1_00_pfn_t) || table == nullptr) {
        return HSA_STATUS_ERROR_INVALID_ARGUMENT;
    }
    hsa_ven_amd_loader_1_00_pfn_t loader{};
    loader.hsa_ven_amd_loader_query_host_address = &queryHostAddress;
    std::memcpy(table, &loader, sizeof loader);
    return HSA_STATUS_SUCCESS;
}

void* g_stubs[kTestSlotCount];

}  // namespace

uint64_t hostToSystem(uint64_t hostNs) { return hostNs / 2 + kSystemOffset; }

FakeRuntime::FakeRuntime() {
    m_root.version = {HSA_API_TABLE_MAJOR_VERSION, sizeof(HsaApiTable), HSA_API_TABLE_STEP_VERSION, 0};
    m_core.version = {HSA_CORE_API_TABLE_MAJOR_VERSION, sizeof(CoreApiTable),
                      HSA_CORE_API_TABLE_STEP_VERSION, 0};
    m_amd.version = {HSA_AMD_EXT_API_TABLE_MAJOR_VERSION, sizeof(AmdExtTable),
                     HSA_AMD_EXT_API_TABLE_STEP_VERSION, 0};
    m_root.core_ = &m_core;
    m_root.amd_ext_ = &m_amd;
    stubAll();
    m_core.hsa_system_get_info_fn = &systemGetInfo;
    m_core.hsa_iterate_agents_fn = &iterateAgents;
    m_core.hsa_agent_get_info_fn = &agentGetInfo;
    m_core.hsa_signal_create_fn = &signalCreate;
    m_core.hsa_signal_destroy_fn = &signalDestroy;
    m_core.hsa_signal_load_relaxed_fn = &signalLoad;
    m_core.hsa_signal_store_relaxed_fn = &signalStore;
    m_core.hsa_signal_store_screlease_fn = &signalStoreRelease;
    m_core.hsa_signal_subtract_screlease_fn = &signalSubtractRelease;
    m_core.hsa_signal_wait_scacquire_fn = &signalWait;
    m_core.hsa_queue_create_fn = &queueCreate;
    m_core.hsa_queue_destroy_fn = &queueDestroy;
    m_core.hsa_executable_get_symbol_by_name_fn = &getSymbolByName;
    m_core.hsa_executable_symbol_get_info_fn = &symbolGetInfo;
    m_core.hsa_system_get_major_extension_table_fn = &majorExtensionTable;
    m_amd.hsa_amd_signal_async_handler_fn = &asyncHandler;
    m_amd.hsa_amd_queue_intercept_create_fn = &interceptCreate;
    m_amd.hsa_amd_queue_intercept_register_fn = &interceptRegister;
    m_amd.hsa_amd_profiling_get_dispatch_time_fn = &dispatchTime;
    m_amd.hsa_amd_profiling_get_async_copy_time_fn = &copyTime;
    m_amd.hsa_amd_memory_async_copy_fn = &asyncCopy;
    g_stop = false;
    g_handlerThread = std::thread(&handlerLoop);
}

void FakeRuntime::stubAll() {
#define PM_TABLE_Core m_core
#define PM_TABLE_AmdExt m_amd
#define PM_HSA_API(slot, Table, id, name, ret, params)      \
    setStub<slot>(PM_TABLE_##Table.name##_fn);              \
    g_stubs[slot] = reinterpret_cast<void*>(PM_TABLE_##Table.name##_fn);
#include "api/hsa_api_table.inc"
#undef PM_TABLE_Core
#undef PM_TABLE_AmdExt
}

FakeRuntime::~FakeRuntime() {
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        g_stop = true;
        g_changed.notify_all();
    }
    g_handlerThread.join();
    for (Queue* q : g_queues) delete q;  // their doorbells are in g_signals
    for (Signal* s : g_signals) delete s;
    g_queues.clear();
    g_signals.clear();
    g_handlers.clear();
    g_descriptors.clear();
    g_loaderOffered = true;
}

uint64_t FakeRuntime::calls(unsigned slot) const { return g_calls[slot].load(); }

void* FakeRuntime::stubOf(unsigned slot) { return g_stubs[slot]; }

void FakeRuntime::submit(hsa_queue_t* queue, const hsa_kernel_dispatch_packet_t& packet) {
    auto* q = reinterpret_cast<Queue*>(queue);
    const uint64_t index = q->writeIndex++;
    q->ring[index % q->ring.size()] = packet;
    if (q->intercept == nullptr) {
        std::lock_guard<std::mutex> lock(g_mutex);
        q->hardware.push_back(packet);
        return;
    }
    t_writerQueue = q;
    q->intercept(&q->ring[index % q->ring.size()], 1, index, q->interceptData, &packetWriter);
    t_writerQueue = nullptr;
}

size_t FakeRuntime::execute(hsa_queue_t* queue, uint64_t startSystem, uint64_t endSystem) {
    auto* q = reinterpret_cast<Queue*>(queue);
    std::deque<hsa_kernel_dispatch_packet_t> run;
    {
        std::lock_guard<std::mutex> lock(g_mutex);
        run.swap(q->hardware);
        for (const auto& p : run) {
            if (p.completion_signal.handle != 0) {
                g_dispatchTimes[p.completion_signal.handle] = {startSystem, endSystem};
            }
        }
    }
    for (const auto& p : run) {
        if (p.completion_signal.handle != 0) sig(p.completion_signal)->value.fetch_sub(1);
    }
    notifyChange();
    return run.size();
}

void FakeRuntime::setCopyTimes(uint64_t startSystem, uint64_t endSystem) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_copyStart = startSystem, g_copyEnd = endSystem;
}

bool FakeRuntime::drainHandlers(int ms) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (std::chrono::steady_clock::now() < deadline) {
        {
            std::lock_guard<std::mutex> lock(g_mutex);
            bool due = g_running > 0;
            for (const Handler& h : g_handlers) due = due || satisfied(h);
            if (!due) return true;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return false;
}

void FakeRuntime::setKernelDescriptor(uint64_t kernelObject, const void* bytes) {
    std::lock_guard<std::mutex> lock(g_mutex);
    std::memcpy(g_descriptors[kernelObject].data(), bytes, 64);
}

void FakeRuntime::offerLoaderExtension(bool offered) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_loaderOffered = offered;
}

hsa_kernel_dispatch_packet_t dispatchPacket(hsa_signal_t completion) {
    hsa_kernel_dispatch_packet_t p{};
    p.header = static_cast<uint16_t>((HSA_PACKET_TYPE_KERNEL_DISPATCH << HSA_PACKET_HEADER_TYPE) |
                                     (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE) |
                                     (HSA_FENCE_SCOPE_SYSTEM << HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE));
    p.setup = 1;
    p.workgroup_size_x = 256;
    p.workgroup_size_y = p.workgroup_size_z = 1;
    p.grid_size_x = 1048576;
    p.grid_size_y = p.grid_size_z = 1;
    p.kernel_object = kKernelObject;
    p.completion_signal = completion;
    return p;
}

}  // namespace perfmarker::test
