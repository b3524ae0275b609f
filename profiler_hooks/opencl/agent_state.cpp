#include "agent_state.h"

#include <array>
#include <chrono>
#include <mutex>
#include <string>

#include "api/ocl_api.h"
#include "atp/merge/merger.h"
#include "object_tracker.h"

namespace perfmarker::cltrace {

bool g_slotUnrecorded[kDispatchSlotCount] = {};  // intercepted, not recorded

namespace {

std::array<bool, kDispatchSlotCount> g_filtered{};  // not intercepted at all
std::once_flag g_initOnce;

// The special-case APIs (kSpecialCaseSlots) a filter cannot turn off: the layer needs them for
// object ids and names, the flush and the transparency of forced profiling. They stay
// intercepted but are not recorded.
void applyApiFilter() {
    for (const std::string& name : hooks::sessionApiFilter()) {
        const atp::ocl::ApiSpec* api = atp::ocl::apiByName(name);
        if (api == nullptr) continue;
        if (hasSpecialCase(api->slot)) {
            g_slotUnrecorded[api->slot] = true;
        } else {
            g_filtered[api->slot] = true;
        }
    }
}

// Before the recorder stops: every live queue finished, so each command's device times are
// recorded.
void finishQueues() {
    finishLiveQueues();
    waitForDeviceTimes(std::chrono::seconds(2));
}

void initOnce() {
    hooks::AgentIdentity agent;
    agent.name = "OpenCL trace layer";
    agent.fragmentTag = atp::kOclFragmentTag;
    agent.beforeFlush = &finishQueues;
    if (hooks::startAgent(agent)) applyApiFilter();
}

}  // namespace

bool isSlotIntercepted(unsigned slot) { return slot < kDispatchSlotCount && !g_filtered[slot]; }

void initAgent() { std::call_once(g_initOnce, &initOnce); }

}  // namespace perfmarker::cltrace
