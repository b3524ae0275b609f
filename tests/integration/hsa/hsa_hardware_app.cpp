// A small HSA program for the hardware test: initializes the runtime, finds a GPU, creates a
// queue and a signal, uses the signal, and shuts the runtime down.
#include <hsa.h>

#include <cstdio>

namespace {

hsa_status_t findGpu(hsa_agent_t agent, void* data) {
    hsa_device_type_t type;
    if (hsa_agent_get_info(agent, HSA_AGENT_INFO_DEVICE, &type) != HSA_STATUS_SUCCESS) return HSA_STATUS_ERROR;
    if (type != HSA_DEVICE_TYPE_GPU) return HSA_STATUS_SUCCESS;
    *static_cast<hsa_agent_t*>(data) = agent;
    return HSA_STATUS_INFO_BREAK;
}

}  // namespace

int main() {
    if (hsa_init() != HSA_STATUS_SUCCESS) {
        std::fprintf(stderr, "hsa_init failed\n");
        return 1;
    }
    hsa_agent_t gpu{0};
    hsa_iterate_agents(&findGpu, &gpu);
    if (gpu.handle == 0) {
        std::fprintf(stderr, "no GPU agent\n");
        hsa_shut_down();
        return 1;
    }
    hsa_queue_t* queue = nullptr;
    if (hsa_queue_create(gpu, 64, HSA_QUEUE_TYPE_SINGLE, nullptr, nullptr, UINT32_MAX, UINT32_MAX,
                         &queue) != HSA_STATUS_SUCCESS) {
        std::fprintf(stderr, "hsa_queue_create failed\n");
        return 1;
    }
    hsa_signal_t signal;
    hsa_signal_create(1, 0, nullptr, &signal);
    hsa_signal_store_relaxed(signal, 0);
    hsa_signal_wait_scacquire(signal, HSA_SIGNAL_CONDITION_EQ, 0, UINT64_MAX, HSA_WAIT_STATE_BLOCKED);
    hsa_signal_destroy(signal);
    hsa_queue_destroy(queue);
    return hsa_shut_down() == HSA_STATUS_SUCCESS ? 0 : 1;
}
