#include "analysis/hsa_rules.h"

#include <cctype>
#include <string>
#include <string_view>

#include "analysis/params.h"

namespace perfmarker::analysis {
namespace {

constexpr std::string_view kInitShutdownHandle = "__HSA_INIT_SHUTDOWN_PSEUDO_HANDLE";

// One create or destroy API: the object family, the parameter naming the object ("" when the
// object is only counted, like queues whose printed form differs between create and destroy).
struct RefApi {
    std::string_view api;
    std::string_view family;
    std::string_view param;
    int delta;
};

const RefApi kRefApis[] = {
    {"hsa_init", "init", "", 1},
    {"hsa_shut_down", "init", "", -1},
    {"hsa_queue_create", "queue", "", 1},
    {"hsa_soft_queue_create", "queue", "", 1},
    {"hsa_queue_destroy", "queue", "", -1},
    {"hsa_signal_create", "signal", "signal", 1},
    {"hsa_amd_signal_create", "signal", "signal", 1},
    {"hsa_signal_destroy", "signal", "signal", -1},
    {"hsa_executable_create", "executable", "executable", 1},
    {"hsa_executable_create_alt", "executable", "executable", 1},
    {"hsa_executable_destroy", "executable", "executable", -1},
    {"hsa_ext_program_create", "program", "program", 1},
    {"hsa_ext_program_destroy", "program", "program", -1},
    {"hsa_ext_image_create", "image", "image", 1},
    {"hsa_ext_image_destroy", "image", "image", -1},
    {"hsa_ext_sampler_create", "sampler", "sampler", 1},
    {"hsa_ext_sampler_destroy", "sampler", "sampler", -1},
    {"hsa_memory_register", "register", "ptr", 1},
    {"hsa_memory_deregister", "register", "ptr", -1},
    {"hsa_memory_allocate", "memory", "ptr", 1},
    {"hsa_memory_free", "memory", "ptr", -1},
    {"hsa_amd_memory_pool_allocate", "pool", "ptr", 1},
    {"hsa_amd_memory_pool_free", "pool", "ptr", -1},
    {"hsa_amd_memory_lock", "lock", "host_ptr", 1},
    {"hsa_amd_memory_unlock", "lock", "host_ptr", -1},
    {"hsa_amd_interop_map_buffer", "interop", "", 1},
    {"hsa_amd_interop_unmap_buffer", "interop", "", -1},
    {"hsa_amd_ipc_memory_attach", "ipc", "mapped_ptr", 1},
    {"hsa_amd_ipc_memory_detach", "ipc", "mapped_ptr", -1},
};

const RefApi* refApi(std::string_view name) {
    for (const RefApi& api : kRefApis) {
        if (api.api == name) return &api;
    }
    return nullptr;
}

// "[{123}]", "{123}", "[0x7f..]" and "0x7f.." name the same object.
std::string_view bareValue(std::string_view value) {
    while (!value.empty() && (value.front() == '[' || value.front() == '{')) value.remove_prefix(1);
    while (!value.empty() && (value.back() == ']' || value.back() == '}')) value.remove_suffix(1);
    return value;
}

// Objects only counted (no handle to match) are named by a pseudo handle, as hsa_init is.
std::string upper(std::string_view text) {
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return out;
}

}  // namespace

void HsaRules::onCall(const atp::HsaApiCall& call, const CallRef& where, RuleLog& log) {
    const std::string_view ret = call.returnValue;
    if (ret.substr(0, 11) == "HSA_STATUS_" && ret != "HSA_STATUS_SUCCESS" &&
        ret != "HSA_STATUS_INFO_BREAK") {
        log.add("HSARetCodeAnalyzer", kError, where,
                std::string(call.name) + " returns " + std::string(ret));
        return;
    }
    const RefApi* api = refApi(call.name);
    if (api == nullptr || (ret != "HSA_STATUS_SUCCESS" && !ret.empty())) return;
    std::string handle = api->family == "init" ? std::string(kInitShutdownHandle)
                                               : "__HSA_" + upper(api->family) + "_PSEUDO_HANDLE";
    if (!api->param.empty()) {
        const std::optional<std::string_view> value = hsaParam(call.params, api->param);
        if (!value) return;
        handle = std::string(bareValue(*value));
    }
    const std::string key = std::string(api->family) + ":" + normalizeHandle(handle);
    if (api->delta > 0) {
        m_refs.create(key, handle, call.name, where);
    } else {
        m_refs.adjust(key, api->delta);
    }
}

uint64_t HsaRules::endFile(RuleLog& log, bool cut) {
    return m_refs.finish(log, "HSARefTracker", cut);
}

}  // namespace perfmarker::analysis
