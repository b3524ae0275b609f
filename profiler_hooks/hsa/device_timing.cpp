// Kernel dispatch and async copy times. Both replace the application's completion signal with
// one of ours, wait for it with an async handler (the runtime's handler thread), read the
// times the runtime kept for our signal, then pass the completion on to the application's
// signal. Times stay in the HSA system clock domain; the merge converts them.
#include "device_timing.h"

#include <atomic>
#include <cstdio>
#include <mutex>
#include <unordered_set>
#include <vector>

#include "agent_state.h"
#include "profile_mode.h"
#include "record/api_record.h"
#include "traced_call.h"

namespace perfmarker::hsatrace {
namespace {

struct QueueInfo {
    hsa_queue_t* queue;
    hsa_agent_t agent;
    uint32_t index;
};

struct PendingDispatch {
    const QueueInfo* queue;
    hsa_signal_t ours;
    hsa_signal_t app;
    uint64_t packetId;
    unsigned char packet[64];
};

struct PendingCopy {
    hsa_signal_t ours;
    hsa_signal_t app;
    uint64_t enqueueId;
    bool failed;
};

std::atomic<uint64_t> g_pending{0};

// Everything handed to the runtime as a handler argument, until its handler ran: owned here,
// so that work that never completes is still accounted for (and not a leak). Guarded by
// g_inFlightMutex; touched once per dispatch / copy, never per API call.
std::mutex g_inFlightMutex;
std::unordered_set<void*>& g_inFlight = *new std::unordered_set<void*>();
std::vector<QueueInfo*>& g_queues = *new std::vector<QueueInfo*>();  // guarded by the same mutex

void track(void* p) {
    std::lock_guard<std::mutex> lock(g_inFlightMutex);
    g_inFlight.insert(p);
    g_pending.fetch_add(1, std::memory_order_relaxed);
}

void untrack(void* p) {
    std::lock_guard<std::mutex> lock(g_inFlightMutex);
    g_inFlight.erase(p);
    g_pending.fetch_sub(1, std::memory_order_relaxed);
}
std::atomic<uint32_t> g_queueCount{0};
std::atomic<uint64_t> g_copyIds{0};

// Reused signals: destroying a signal from its own handler is not allowed, and creating one per
// dispatch would cost a system call each. The mutex guards the free list only.
std::mutex g_poolMutex;
std::vector<hsa_signal_t> g_pool;

// Kernel objects already named (guarded by g_symbolMutex).
std::mutex g_symbolMutex;
std::unordered_set<uint64_t> g_namedKernels;

bool acquireSignal(hsa_signal_value_t value, hsa_signal_t& out) {
    {
        std::lock_guard<std::mutex> lock(g_poolMutex);
        if (!g_pool.empty()) {
            out = g_pool.back();
            g_pool.pop_back();
            PM_HSA_CALL(hsa_signal_store_relaxed)(out, value);
            return true;
        }
    }
    const auto create = PM_HSA_CALL(hsa_signal_create);
    return create != nullptr && create(value, 0, nullptr, &out) == HSA_STATUS_SUCCESS;
}

void releaseSignal(hsa_signal_t s) {
    std::lock_guard<std::mutex> lock(g_poolMutex);
    g_pool.push_back(s);
}

bool dispatchDone(hsa_signal_value_t, void* arg) {
    auto* p = static_cast<PendingDispatch*>(arg);
    record::HsaDispatchPayload d{};
    d.type = static_cast<uint32_t>(record::HsaDeviceRecord::Dispatch);
    d.queueIndex = p->queue->index;
    hsa_amd_profiling_dispatch_time_t t{};
    if (PM_HSA_CALL(hsa_amd_profiling_get_dispatch_time)(p->queue->agent, p->ours, &t) ==
        HSA_STATUS_SUCCESS) {
        d.start = t.start, d.end = t.end;
    }
    d.agent = p->queue->agent.handle;
    d.queue = reinterpret_cast<uint64_t>(p->queue->queue);
    d.packetId = p->packetId;
    std::memcpy(d.packet, p->packet, sizeof d.packet);
    recordDevice(&d, sizeof d);
    // The packet processor decrements a completion signal by one.
    if (p->app.handle != 0) PM_HSA_CALL(hsa_signal_subtract_screlease)(p->app, 1);
    releaseSignal(p->ours);
    untrack(p);
    delete p;
    return false;  // one-shot
}

bool isKernelDispatch(const hsa_kernel_dispatch_packet_t& p) {
    const unsigned type = (p.header >> HSA_PACKET_HEADER_TYPE) & ((1u << HSA_PACKET_HEADER_WIDTH_TYPE) - 1);
    return type == HSA_PACKET_TYPE_KERNEL_DISPATCH;
}

// Swaps the completion signal of one kernel dispatch for a fresh one of ours.
void instrument(const QueueInfo* q, hsa_kernel_dispatch_packet_t& packet, uint64_t packetId) {
    auto* p = new PendingDispatch{q, {}, packet.completion_signal, packetId, {}};
    std::memcpy(p->packet, &packet, sizeof p->packet);
    if (!acquireSignal(1, p->ours)) {
        delete p;
        return;
    }
    track(p);
    if (PM_HSA_CALL(hsa_amd_signal_async_handler)(p->ours, HSA_SIGNAL_CONDITION_LT, 1,
                                                  &dispatchDone, p) != HSA_STATUS_SUCCESS) {
        releaseSignal(p->ours);
        untrack(p);
        delete p;
        return;
    }
    packet.completion_signal = p->ours;
}

// The runtime calls this with the packets the application submitted; `writer` puts them on the
// hardware queue and may only be called from here.
void onPackets(const void* packets, uint64_t count, uint64_t firstIndex, void* data,
               hsa_amd_queue_intercept_packet_writer writer) {
    if (profileModeOn()) {  // rows only, the packets unchanged (docs/profile.md#hsa)
        profileDispatches(static_cast<const QueueInfo*>(data)->agent, packets, count);
        writer(packets, count);
        return;
    }
    if (!isRecording()) {  // paused: no packet records (docs/session.md)
        writer(packets, count);
        return;
    }
    const auto* q = static_cast<const QueueInfo*>(data);
    std::vector<hsa_kernel_dispatch_packet_t> copy(count);
    std::memcpy(copy.data(), packets, count * sizeof(hsa_kernel_dispatch_packet_t));
    for (uint64_t i = 0; i < count; ++i) {
        if (isKernelDispatch(copy[i])) instrument(q, copy[i], firstIndex + i);
    }
    writer(copy.data(), count);
}

void enableProfiling(hsa_queue_t* queue, hsa_agent_t agent) {
    auto* info = new QueueInfo{queue, agent, g_queueCount.fetch_add(1)};  // lives with the process
    {
        std::lock_guard<std::mutex> lock(g_inFlightMutex);
        g_queues.push_back(info);
    }
    if (PM_HSA_CALL(hsa_amd_queue_intercept_register)(queue, &onPackets, info) != HSA_STATUS_SUCCESS) {
        std::fprintf(stderr, "perfmarker: HSA trace agent: cannot intercept queue %u: its kernel "
                             "dispatches are not timed\n", info->index);
        return;
    }
    PM_HSA_CALL(hsa_amd_profiling_set_profiler_enabled)(queue, 1);
    PM_HSA_CALL(hsa_amd_profiling_async_copy_enable)(true);
}

bool copyDone(hsa_signal_value_t value, void* arg) {
    auto* p = static_cast<PendingCopy*>(arg);
    record::HsaCopyPayload c{};
    c.type = static_cast<uint32_t>(record::HsaDeviceRecord::Copy);
    c.enqueueId = p->enqueueId;
    c.status = p->failed ? -1 : 0;
    hsa_amd_profiling_async_copy_time_t t{};
    if (!p->failed) {
        if (PM_HSA_CALL(hsa_amd_profiling_get_async_copy_time)(p->ours, &t) == HSA_STATUS_SUCCESS) {
            c.start = t.start, c.end = t.end;
        } else {
            c.status = -1;
        }
        if (p->app.handle != 0) PM_HSA_CALL(hsa_signal_store_screlease)(p->app, value);
    }
    recordDevice(&c, sizeof c);
    releaseSignal(p->ours);
    untrack(p);
    delete p;
    return false;
}

bool haveQueueInterception() {
    return g_original[kSlot_hsa_amd_queue_intercept_create] != nullptr &&
           g_original[kSlot_hsa_amd_queue_intercept_register] != nullptr &&
           g_original[kSlot_hsa_amd_profiling_set_profiler_enabled] != nullptr &&
           g_original[kSlot_hsa_amd_profiling_get_dispatch_time] != nullptr &&
           g_original[kSlot_hsa_amd_signal_async_handler] != nullptr &&
           g_original[kSlot_hsa_amd_profiling_async_copy_enable] != nullptr;
}

}  // namespace

hsa_status_t createQueue(unsigned slot, int apiTypeId, decltype(&hsa_queue_create) next,
                         hsa_agent_t agent, uint32_t size, hsa_queue_type32_t type,
                         void (*callback)(hsa_status_t, hsa_queue_t*, void*), void* data,
                         uint32_t privateSegmentSize, uint32_t groupSegmentSize,
                         hsa_queue_t** queue) {
    const bool intercept = (g_active.load(std::memory_order_relaxed) || profileModeOn()) &&
                           queue != nullptr && haveQueueInterception();
    const auto create = intercept ? PM_HSA_CALL(hsa_amd_queue_intercept_create) : next;
    CallInfo info;
    info.slot = slot;
    info.apiTypeId = apiTypeId;
    hsa_status_t st = isRecording()
                          ? recordedCall<kSlot_hsa_queue_create>(info, create, agent, size, type,
                                                                 callback, data, privateSegmentSize,
                                                                 groupSegmentSize, queue)
                          : create(agent, size, type, callback, data, privateSegmentSize,
                                   groupSegmentSize, queue);
    if (intercept && st != HSA_STATUS_SUCCESS) {
        // A runtime that refuses an intercept queue still gets the application its queue.
        return next(agent, size, type, callback, data, privateSegmentSize, groupSegmentSize, queue);
    }
    if (intercept && *queue != nullptr) enableProfiling(*queue, agent);
    return st;
}

hsa_status_t asyncCopy(unsigned slot, int apiTypeId, decltype(&hsa_amd_memory_async_copy) next,
                       void* dst, hsa_agent_t dstAgent, const void* src, hsa_agent_t srcAgent,
                       size_t size, uint32_t numDepSignals, const hsa_signal_t* depSignals,
                       hsa_signal_t completionSignal) {
    if (!isRecording()) {
        return next(dst, dstAgent, src, srcAgent, size, numDepSignals, depSignals, completionSignal);
    }
    CallInfo info;
    info.slot = slot;
    info.apiTypeId = apiTypeId;
    const hsa_signal_value_t initial =
        completionSignal.handle != 0 ? PM_HSA_CALL(hsa_signal_load_relaxed)(completionSignal) : 1;
    info.enqueueId = g_copyIds.fetch_add(1, std::memory_order_relaxed) + 1;
    auto* p = new PendingCopy{{}, completionSignal, info.enqueueId, false};
    bool tracked = false;
    bool armed = false;
    if (g_original[kSlot_hsa_amd_profiling_get_async_copy_time] != nullptr &&
        acquireSignal(initial, p->ours)) {
        track(p);
        tracked = true;
        armed = PM_HSA_CALL(hsa_amd_signal_async_handler)(p->ours, HSA_SIGNAL_CONDITION_LT, initial,
                                                          &copyDone, p) == HSA_STATUS_SUCCESS;
    }
    if (!armed) {
        if (tracked) {
            releaseSignal(p->ours);
            untrack(p);
        }
        delete p;
        info.enqueueId = 0;
        return recordedCall<kSlot_hsa_amd_memory_async_copy>(
            info, next, dst, dstAgent, src, srcAgent, size, numDepSignals, depSignals,
            completionSignal);
    }
    const uint64_t raw[] = {toRaw(dst), toRaw(dstAgent), toRaw(src), toRaw(srcAgent),
                            toRaw(size), toRaw(numDepSignals), toRaw(depSignals),
                            toRaw(completionSignal)};
    info.startTicks = g_recorder->now();
    const hsa_status_t st =
        next(dst, dstAgent, src, srcAgent, size, numDepSignals, depSignals, p->ours);
    info.succeeded = st == HSA_STATUS_SUCCESS;
    recordApiCall<kSlot_hsa_amd_memory_async_copy>(info, st, raw, 8);
    if (st != HSA_STATUS_SUCCESS) {
        p->failed = true;  // nothing will signal ours: fire the handler so it cleans up
        PM_HSA_CALL(hsa_signal_store_screlease)(p->ours, initial - 1);
    }
    return st;
}

void noteSymbol(hsa_executable_symbol_t symbol) {
    const auto getInfo = PM_HSA_CALL(hsa_executable_symbol_get_info);
    if ((g_recorder == nullptr && !profileModeOn()) || getInfo == nullptr) return;
    hsa_symbol_kind_t kind{};
    uint64_t kernelObject = 0;
    if (getInfo(symbol, HSA_EXECUTABLE_SYMBOL_INFO_TYPE, &kind) != HSA_STATUS_SUCCESS ||
        kind != HSA_SYMBOL_KIND_KERNEL ||
        getInfo(symbol, HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT, &kernelObject) != HSA_STATUS_SUCCESS) {
        return;
    }
    {
        std::lock_guard<std::mutex> lock(g_symbolMutex);
        if (!g_namedKernels.insert(kernelObject).second) return;
    }
    uint32_t length = 0;
    std::string name;
    if (getInfo(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH, &length) == HSA_STATUS_SUCCESS &&
        length < 4096) {
        name.assign(length, '\0');
        if (getInfo(symbol, HSA_EXECUTABLE_SYMBOL_INFO_NAME, name.data()) != HSA_STATUS_SUCCESS) name.clear();
    }
    if (profileModeOn()) {
        noteProfileKernelName(kernelObject, name);
        return;
    }
    recordObject(record::HsaObjectType::Kernel, 0, kernelObject, symbol.handle, 0, name);
}

void noteSymbolOutput(hsa_executable_symbol_t* symbol) {
    if (symbol != nullptr) noteSymbol(*symbol);
}

void recordAgents() {
    const auto iterate = PM_HSA_CALL(hsa_iterate_agents);
    if (iterate == nullptr || PM_HSA_CALL(hsa_agent_get_info) == nullptr) return;
    uint32_t gpus = 0;
    iterate(
        [](hsa_agent_t agent, void* data) {
            const auto getInfo = PM_HSA_CALL(hsa_agent_get_info);
            char name[64] = {};
            hsa_device_type_t device = HSA_DEVICE_TYPE_CPU;
            if (getInfo(agent, HSA_AGENT_INFO_NAME, name) != HSA_STATUS_SUCCESS) name[0] = '\0';
            name[sizeof name - 1] = '\0';
            getInfo(agent, HSA_AGENT_INFO_DEVICE, &device);
            uint32_t& gpu = *static_cast<uint32_t*>(data);
            const uint32_t id = device == HSA_DEVICE_TYPE_GPU ? gpu++ : record::kNotGpu;
            recordObject(record::HsaObjectType::Agent, id, agent.handle, 0, device, name);
            return HSA_STATUS_SUCCESS;
        },
        &gpus);
}

uint64_t pendingDeviceWork() { return g_pending.load(std::memory_order_relaxed); }

}  // namespace perfmarker::hsatrace
