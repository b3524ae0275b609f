// An "application on the ROCm runtime" for the launcher test: it does what the runtime does at
// hsa_init with HSA_TOOLS_LIB (a space-separated list: dlopen each, call OnLoad with the API
// table and the tools that failed to load), runs one kernel dispatch and one marker-free API
// sequence through the table, then calls OnUnload as hsa_shut_down does.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "fake_runtime.h"

using perfmarker::test::FakeRuntime;

int main() {
    const char* list = std::getenv("HSA_TOOLS_LIB");
    std::printf("HSA_TOOLS_LIB=%s\n", list != nullptr ? list : "");
    FakeRuntime rt;
    std::vector<std::string> failed;
    std::vector<void (*)()> unloads;
    std::istringstream tools(list != nullptr ? list : "");
    for (std::string tool; tools >> tool;) {
        void* handle = dlopen(tool.c_str(), RTLD_NOW);
        auto onLoad = handle != nullptr ? reinterpret_cast<bool (*)(void*, uint64_t, uint64_t,
                                                                     const char* const*)>(dlsym(handle, "OnLoad"))
                                        : nullptr;
        if (onLoad == nullptr) {
            failed.push_back(tool);
            continue;
        }
        std::vector<const char*> names;
        for (const std::string& f : failed) names.push_back(f.c_str());
        if (onLoad(rt.table(), 0x10000, names.size(), names.data())) {
            unloads.push_back(reinterpret_cast<void (*)()>(dlsym(handle, "OnUnload")));
        }
    }
    CoreApiTable& t = rt.core();
    hsa_executable_symbol_t symbol{};
    t.hsa_executable_get_symbol_by_name_fn(hsa_executable_t{1}, perfmarker::test::kKernelSymbol,
                                           nullptr, &symbol);
    hsa_queue_t* queue = nullptr;
    if (t.hsa_queue_create_fn(hsa_agent_t{perfmarker::test::kGpuAgent}, 64, HSA_QUEUE_TYPE_MULTI,
                              nullptr, nullptr, 0, 0, &queue) != HSA_STATUS_SUCCESS) {
        return 1;
    }
    hsa_signal_t done{};
    t.hsa_signal_create_fn(1, 0, nullptr, &done);
    rt.submit(queue, perfmarker::test::dispatchPacket(done));
    const uint64_t now = perfmarker::test::hostToSystem(0);  // any times in the system domain
    rt.execute(queue, now + 1000, now + 2000);
    t.hsa_signal_wait_scacquire_fn(done, HSA_SIGNAL_CONDITION_EQ, 0, 2000000000, HSA_WAIT_STATE_BLOCKED);
    rt.drainHandlers();
    for (auto unload : unloads) {
        if (unload != nullptr) unload();
    }
    return 0;
}
