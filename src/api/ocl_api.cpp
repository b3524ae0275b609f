#include "api/ocl_api.h"

#include <algorithm>
#include <map>
#include <string>
#include <unordered_map>

#include "api/group_value_key.h"

namespace perfmarker::atp::ocl {
namespace {

// ---- data ----------------------------------------------------------------------------------

struct RawApi {
    unsigned slot;
    int funcTypeId;
    bool isEnqueue;
    std::string_view returnType;
    std::string_view name;
    std::string_view params;  // "(T a, U b)" as written in the table
};

constexpr RawApi kRawApis[] = {
#define PM_CL_API(slot, funcTypeId, isEnqueue, Ret, name, params, args) \
    {slot, funcTypeId, isEnqueue != 0, #Ret, #name, #params},
#include "api/cl_api_table.inc"
};

struct RawName {
    std::string_view group;
    std::string_view name;
    int64_t value;
};

constexpr RawName kRawNames[] = {
#define PM_CL_NAME(group, name, value) {#group, #name, value},
#include "api/ocl_names.inc"
};

// Handle types: printed with ToHexString, arrays of them as [h1,...].
constexpr std::string_view kHandleTypes[] = {
    "cl_platform_id", "cl_device_id", "cl_context",      "cl_command_queue",
    "cl_mem",         "cl_program",   "cl_kernel",       "cl_event",
    "cl_sampler",     "cl_GLsync",    "CLeglDisplayKHR", "CLeglImageKHR",
    "CLeglSyncKHR",   "void"};

// Bit-field types (printed as flags); every other type with names is an enumeration.
constexpr std::string_view kFlagTypes[] = {"cl_device_type",
                                           "cl_mem_flags",
                                           "cl_svm_mem_flags",
                                           "cl_map_flags",
                                           "cl_mem_migration_flags",
                                           "cl_command_queue_properties",
                                           "cl_device_fp_config",
                                           "cl_device_exec_capabilities",
                                           "cl_device_affinity_domain",
                                           "cl_device_svm_capabilities",
                                           "cl_kernel_arg_type_qualifier",
                                           "cl_device_atomic_capabilities",
                                           "cl_device_device_enqueue_capabilities"};

// Pointee sizes of output scalars (anything else is 8 bytes).
constexpr std::string_view kFourByteTypes[] = {"cl_uint",           "cl_int", "int", "cl_GLuint",
                                               "cl_gl_object_type", "cl_bool"};

// Property list element type -> the group naming its keys.
constexpr std::pair<std::string_view, std::string_view> kPropertyGroups[] = {
    {"cl_context_properties", "cl_context_properties"},
    {"cl_queue_properties", "cl_command_queue_info"},
    {"cl_sampler_properties", "cl_sampler_info"},
    {"cl_device_partition_property", "cl_device_partition_property"},
};

// Exceptions to the conventions: the parameters whose type and name do not say enough.
struct Override {
    std::string_view api;
    std::string_view param;
    ParamKind kind;
    std::string_view countParam;  // empty: fixed / none
};
constexpr Override kOverrides[] = {
    {"clSetKernelArg", "arg_value", ParamKind::KernelArgValue, "arg_size"},
    {"clCreateSubBuffer", "buffer_create_info", ParamKind::BufferRegion, ""},
    {"clCreateProgramWithBinary", "binary_status", ParamKind::ErrorArray, "num_devices"},
    {"clEnqueueSVMFree", "svm_pointers", ParamKind::HandleArray, "num_svm_pointers"},
    {"clEnqueueSVMMigrateMem", "svm_pointers", ParamKind::HandleArray, "num_svm_pointers"},
    {"clEnqueueSVMMigrateMem", "sizes", ParamKind::SizeArray, "num_svm_pointers"},
};

// clGet*Info results whose type is not "a number of the returned size".
struct InfoEntry {
    std::string_view name;
    InfoType type;
    std::string_view group;
};
constexpr InfoEntry kInfoEntries[] = {
    {"CL_PLATFORM_PROFILE", InfoType::String, ""},
    {"CL_PLATFORM_VERSION", InfoType::String, ""},
    {"CL_PLATFORM_NAME", InfoType::String, ""},
    {"CL_PLATFORM_VENDOR", InfoType::String, ""},
    {"CL_PLATFORM_EXTENSIONS", InfoType::String, ""},
    {"CL_DEVICE_TYPE", InfoType::Flags, "cl_device_type"},
    {"CL_DEVICE_NAME", InfoType::String, ""},
    {"CL_DEVICE_VENDOR", InfoType::String, ""},
    {"CL_DRIVER_VERSION", InfoType::String, ""},
    {"CL_DEVICE_PROFILE", InfoType::String, ""},
    {"CL_DEVICE_VERSION", InfoType::String, ""},
    {"CL_DEVICE_EXTENSIONS", InfoType::String, ""},
    {"CL_DEVICE_OPENCL_C_VERSION", InfoType::String, ""},
    {"CL_DEVICE_BUILT_IN_KERNELS", InfoType::String, ""},
    {"CL_DEVICE_IL_VERSION", InfoType::String, ""},
    {"CL_DEVICE_LATEST_CONFORMANCE_VERSION_PASSED", InfoType::String, ""},
    {"CL_DEVICE_PLATFORM", InfoType::Handles, ""},
    {"CL_DEVICE_PARENT_DEVICE", InfoType::Handles, ""},
    {"CL_DEVICE_AVAILABLE", InfoType::Bool, ""},
    {"CL_DEVICE_COMPILER_AVAILABLE", InfoType::Bool, ""},
    {"CL_DEVICE_LINKER_AVAILABLE", InfoType::Bool, ""},
    {"CL_DEVICE_ENDIAN_LITTLE", InfoType::Bool, ""},
    {"CL_DEVICE_IMAGE_SUPPORT", InfoType::Bool, ""},
    {"CL_DEVICE_ERROR_CORRECTION_SUPPORT", InfoType::Bool, ""},
    {"CL_DEVICE_HOST_UNIFIED_MEMORY", InfoType::Bool, ""},
    {"CL_DEVICE_MAX_WORK_ITEM_SIZES", InfoType::Sizes, ""},
    {"CL_DEVICE_QUEUE_PROPERTIES", InfoType::Flags, "cl_command_queue_properties"},
    {"CL_DEVICE_QUEUE_ON_HOST_PROPERTIES", InfoType::Flags, "cl_command_queue_properties"},
    {"CL_DEVICE_QUEUE_ON_DEVICE_PROPERTIES", InfoType::Flags, "cl_command_queue_properties"},
    {"CL_DEVICE_SINGLE_FP_CONFIG", InfoType::Flags, "cl_device_fp_config"},
    {"CL_DEVICE_DOUBLE_FP_CONFIG", InfoType::Flags, "cl_device_fp_config"},
    {"CL_DEVICE_EXECUTION_CAPABILITIES", InfoType::Flags, "cl_device_exec_capabilities"},
    {"CL_DEVICE_GLOBAL_MEM_CACHE_TYPE", InfoType::Enum, "cl_device_mem_cache_type"},
    {"CL_DEVICE_LOCAL_MEM_TYPE", InfoType::Enum, "cl_device_local_mem_type"},
    {"CL_DEVICE_SVM_CAPABILITIES", InfoType::Flags, "cl_device_svm_capabilities"},
    {"CL_CONTEXT_DEVICES", InfoType::Handles, ""},
    {"CL_QUEUE_CONTEXT", InfoType::Handles, ""},
    {"CL_QUEUE_DEVICE", InfoType::Handles, ""},
    {"CL_QUEUE_PROPERTIES", InfoType::Flags, "cl_command_queue_properties"},
    {"CL_MEM_TYPE", InfoType::Enum, "cl_mem_object_type"},
    {"CL_MEM_FLAGS", InfoType::Flags, "cl_mem_flags"},
    {"CL_MEM_HOST_PTR", InfoType::Handles, ""},
    {"CL_MEM_CONTEXT", InfoType::Handles, ""},
    {"CL_MEM_ASSOCIATED_MEMOBJECT", InfoType::Handles, ""},
    {"CL_SAMPLER_CONTEXT", InfoType::Handles, ""},
    {"CL_SAMPLER_NORMALIZED_COORDS", InfoType::Bool, ""},
    {"CL_SAMPLER_ADDRESSING_MODE", InfoType::Enum, "cl_addressing_mode"},
    {"CL_SAMPLER_FILTER_MODE", InfoType::Enum, "cl_filter_mode"},
    {"CL_PROGRAM_CONTEXT", InfoType::Handles, ""},
    {"CL_PROGRAM_DEVICES", InfoType::Handles, ""},
    {"CL_PROGRAM_SOURCE", InfoType::LongString, ""},
    {"CL_PROGRAM_IL", InfoType::LongString, ""},
    {"CL_PROGRAM_BINARY_SIZES", InfoType::Sizes, ""},
    {"CL_PROGRAM_BINARIES", InfoType::Handles, ""},
    {"CL_PROGRAM_KERNEL_NAMES", InfoType::String, ""},
    {"CL_PROGRAM_BUILD_STATUS", InfoType::Enum, "cl_build_status"},
    {"CL_PROGRAM_BUILD_OPTIONS", InfoType::LongString, ""},
    {"CL_PROGRAM_BUILD_LOG", InfoType::LongString, ""},
    {"CL_PROGRAM_BINARY_TYPE", InfoType::Enum, "cl_program_binary_type"},
    {"CL_KERNEL_FUNCTION_NAME", InfoType::String, ""},
    {"CL_KERNEL_ATTRIBUTES", InfoType::String, ""},
    {"CL_KERNEL_CONTEXT", InfoType::Handles, ""},
    {"CL_KERNEL_PROGRAM", InfoType::Handles, ""},
    {"CL_KERNEL_ARG_ADDRESS_QUALIFIER", InfoType::Enum, "cl_kernel_arg_address_qualifier"},
    {"CL_KERNEL_ARG_ACCESS_QUALIFIER", InfoType::Enum, "cl_kernel_arg_access_qualifier"},
    {"CL_KERNEL_ARG_TYPE_NAME", InfoType::String, ""},
    {"CL_KERNEL_ARG_TYPE_QUALIFIER", InfoType::Flags, "cl_kernel_arg_type_qualifier"},
    {"CL_KERNEL_ARG_NAME", InfoType::String, ""},
    {"CL_KERNEL_COMPILE_WORK_GROUP_SIZE", InfoType::Sizes, ""},
    {"CL_EVENT_COMMAND_QUEUE", InfoType::Handles, ""},
    {"CL_EVENT_CONTEXT", InfoType::Handles, ""},
    {"CL_EVENT_COMMAND_TYPE", InfoType::Enum, "cl_command_type"},
    {"CL_EVENT_COMMAND_EXECUTION_STATUS", InfoType::Enum, "cl_command_execution_status"},
};

// ---- prototype parsing ---------------------------------------------------------------------

std::string_view trim(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
}

bool contains(std::string_view s, std::string_view part) {
    return s.find(part) != std::string_view::npos;
}

template <size_t N>
bool isOneOf(std::string_view s, const std::string_view (&list)[N]) {
    return std::find(std::begin(list), std::end(list), s) != std::end(list);
}

// Splits "(T a, void(CL_CALLBACK* f)(int, int), U b)" at the top-level commas.
std::vector<std::string_view> splitParams(std::string_view list) {
    std::vector<std::string_view> out;
    list = trim(list);
    if (list.size() < 2) return out;
    list = trim(list.substr(1, list.size() - 2));
    int depth = 0;
    size_t begin = 0;
    for (size_t i = 0; i <= list.size(); ++i) {
        if (i == list.size() || (list[i] == ',' && depth == 0)) {
            if (i > begin) out.push_back(trim(list.substr(begin, i - begin)));
            begin = i + 1;
        } else if (list[i] == '(') {
            ++depth;
        } else if (list[i] == ')') {
            --depth;
        }
    }
    return out;
}

bool isIdentChar(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

// "const cl_device_id* devices" -> {"const cl_device_id*", "devices"}; a function pointer
// "void(CL_CALLBACK* pfn)(...)" -> {"callback", "pfn"}.
std::pair<std::string_view, std::string_view> splitDeclaration(std::string_view decl) {
    if (const size_t star = decl.find("(CL_CALLBACK*"); star != std::string_view::npos) {
        const size_t begin = star + 13;
        const size_t end = decl.find(')', begin);
        return {"callback", trim(decl.substr(begin, end - begin))};
    }
    size_t end = decl.size();
    size_t begin = end;
    while (begin > 0 && isIdentChar(decl[begin - 1])) --begin;
    return {trim(decl.substr(0, begin)), decl.substr(begin, end - begin)};
}

// The element type of a declared type: "const cl_event*" -> "cl_event".
std::string_view baseType(std::string_view type) {
    if (type.substr(0, 6) == "const ") type.remove_prefix(6);
    while (!type.empty() && (type.back() == '*' || type.back() == ' ')) type.remove_suffix(1);
    return type;
}

int pointerDepth(std::string_view type) {
    return static_cast<int>(std::count(type.begin(), type.end(), '*'));
}

int indexOf(const std::vector<ParamSpec>& params, std::string_view name) {
    for (size_t i = 0; i < params.size(); ++i) {
        if (params[i].name == name) return static_cast<int>(i);
    }
    return -1;
}

bool isCountParam(const ParamSpec& p) {
    return p.type == "cl_uint" && (p.name.substr(0, 4) == "num_");
}

// The conventions for a parameter passed by value.
void classifyValue(ParamSpec& p) {
    const std::string_view t = p.type;
    if (t == "callback" || isOneOf(t, kHandleTypes)) {
        p.kind = ParamKind::Handle;
    } else if (t == "cl_bool") {
        p.kind = ParamKind::Bool;
    } else if (isOneOf(t, kFlagTypes)) {
        p.kind = ParamKind::Flags;
        p.group = t;
    } else if (namesOf(t) != nullptr) {
        p.kind = ParamKind::Enum;
        p.group = t;
    } else if (t == "cl_int" || t == "int" || t == "cl_GLint") {
        p.kind = ParamKind::Signed;
    } else {
        p.kind = ParamKind::Unsigned;
    }
}

// The conventions for a pointer parameter; `i` is its index, `params` the list so far.
void classifyPointer(ParamSpec& p, size_t i, const std::vector<ParamSpec>& params) {
    const std::string_view base = baseType(p.type);
    const bool isConst = p.type.substr(0, 6) == "const ";
    const bool single = pointerDepth(p.type) == 1;
    const bool countBefore = i > 0 && isCountParam(params[i - 1]);
    const bool handle = isOneOf(base, kHandleTypes) && base != "void";
    p.kind = ParamKind::Handle;  // default: the pointer itself
    if (!single) return;
    if (p.name == "errcode_ret") {
        p.kind = ParamKind::OutError;
        p.elemSize = 4;
    } else if (!isConst && base == "cl_event" && p.name == "event") {
        p.kind = ParamKind::OutHandle;
    } else if (handle && countBefore) {
        p.kind = ParamKind::HandleArray;
        p.countArg = static_cast<int8_t>(i - 1);
    } else if (base == "cl_image_format") {
        p.kind = ParamKind::ImageFormat;
        if (!isConst && countBefore) p.countArg = static_cast<int8_t>(i - 1);
    } else if (base == "cl_image_desc") {
        p.kind = ParamKind::ImageDesc;
    } else if (isConst && base == "char") {
        p.kind = ParamKind::String;
    } else if (isConst && base == "size_t" &&
               (contains(p.name, "origin") || contains(p.name, "region"))) {
        p.kind = ParamKind::SizeArray;
    } else if (isConst && base == "size_t" && contains(p.name, "work_")) {
        p.kind = ParamKind::SizeArray;
        p.countArg = static_cast<int8_t>(indexOf(params, "work_dim"));
        p.clamp3 = true;
    } else if (isConst && contains(base, "propert")) {
        p.kind = ParamKind::Properties;
        for (const auto& [type, group] : kPropertyGroups) {
            if (type == base) p.group = group;
        }
    } else if (!isConst && base == "void" && p.name == "param_value") {
        p.kind = ParamKind::InfoValue;
    } else if (!isConst && (base == "size_t" || base == "cl_ulong" ||
                            isOneOf(base, kFourByteTypes) || isOneOf(base, kFlagTypes))) {
        p.kind = ParamKind::OutScalar;
        p.elemSize = isOneOf(base, kFourByteTypes) ? 4 : 8;
        if (isOneOf(base, kFlagTypes)) p.group = base;
    }
}

// An output array of handles whose count the call returns through the next parameter
// (clGetPlatformIDs, clGetDeviceIDs, clCreateSubDevices, clCreateKernelsInProgram, ...).
void linkOutputCounts(std::vector<ParamSpec>& params) {
    for (size_t i = 0; i + 1 < params.size(); ++i) {
        ParamSpec& p = params[i];
        const bool outArray = (p.kind == ParamKind::HandleArray ||
                               (p.kind == ParamKind::ImageFormat && p.countArg >= 0)) &&
                              p.type.substr(0, 6) != "const ";
        const ParamSpec& next = params[i + 1];
        if (outArray && next.kind == ParamKind::OutScalar && next.type == "cl_uint*") {
            p.countOutArg = static_cast<int8_t>(i + 1);
        }
    }
}

void applyOverrides(std::string_view api, std::vector<ParamSpec>& params) {
    for (const Override& o : kOverrides) {
        if (o.api != api) continue;
        const int i = indexOf(params, o.param);
        if (i < 0) continue;
        params[i].kind = o.kind;
        params[i].countArg =
            static_cast<int8_t>(o.countParam.empty() ? -1 : indexOf(params, o.countParam));
        params[i].clamp3 = false;
    }
}

ApiSpec buildApi(const RawApi& raw) {
    ApiSpec api;
    api.name = raw.name;
    api.returnType = raw.returnType;
    api.funcTypeId = raw.funcTypeId;
    api.isEnqueue = raw.isEnqueue;
    api.slot = raw.slot;
    for (std::string_view decl : splitParams(raw.params)) {
        ParamSpec p;
        std::tie(p.type, p.name) = splitDeclaration(decl);
        if (p.type.back() == '*') {
            classifyPointer(p, api.params.size(), api.params);
        } else {
            classifyValue(p);
        }
        api.params.push_back(p);
    }
    linkOutputCounts(api.params);
    applyOverrides(api.name, api.params);
    const int info = indexOf(api.params, "param_name");
    const int value = indexOf(api.params, "param_value");
    if (info >= 0 && value >= 0 && api.params[value].kind == ParamKind::InfoValue) {
        // The value's size: what the caller offered, limited by what the call returned.
        api.infoNameArg = static_cast<int8_t>(info);
        api.params[value].countArg = static_cast<int8_t>(indexOf(api.params, "param_value_size"));
        api.params[value].countOutArg =
            static_cast<int8_t>(indexOf(api.params, "param_value_size_ret"));
    }
    return api;
}

// Hash maps: the merge looks a group up for most parameters of every line it writes.
using NameMap = std::unordered_map<std::string_view, NameList>;

// Names by group; separate from the catalogue because building the catalogue looks them up.
const NameMap& nameMap() {
    static const NameMap* names = [] {
        auto* m = new NameMap;  // never freed: used until the process ends
        for (const RawName& n : kRawNames) (*m)[n.group].emplace_back(n.value, n.name);
        return m;
    }();
    return *names;
}

struct Catalogue {
    std::vector<ApiSpec> apis;
    std::map<std::string_view, unsigned> slotByName;
    std::unordered_map<GroupValueKey, InfoRule, GroupValueKeyHash> info;
};

Catalogue* buildCatalogue() {
    auto* c = new Catalogue;  // never freed: used until the process ends
    unsigned slots = 0;
    for (const RawApi& raw : kRawApis) slots = std::max(slots, raw.slot + 1);
    c->apis.resize(slots);
    for (const RawApi& raw : kRawApis) {
        c->apis[raw.slot] = buildApi(raw);
        c->slotByName[raw.name] = raw.slot;
    }
    for (const InfoEntry& e : kInfoEntries) {
        for (const RawName& n : kRawNames) {
            if (n.name == e.name) c->info[{n.group, n.value}] = InfoRule{e.type, e.group};
        }
    }
    return c;
}

const Catalogue& catalogue() {
    static const Catalogue* c = buildCatalogue();
    return *c;
}

}  // namespace

const std::vector<ApiSpec>& apis() { return catalogue().apis; }

const ApiSpec* apiBySlot(unsigned slot) {
    const auto& all = apis();
    if (slot >= all.size() || all[slot].name.empty()) return nullptr;
    return &all[slot];
}

const ApiSpec* apiByName(std::string_view name) {
    const Catalogue& c = catalogue();
    auto it = c.slotByName.find(name);
    return it == c.slotByName.end() ? nullptr : &c.apis[it->second];
}

const NameList* namesOf(std::string_view group) {
    const NameMap& names = nameMap();
    auto it = names.find(group);
    return it == names.end() ? nullptr : &it->second;
}

std::string_view nameOf(std::string_view group, int64_t value) {
    if (const NameList* list = namesOf(group)) {
        for (const auto& [v, n] : *list) {
            if (v == value) return n;
        }
    }
    return {};
}

InfoRule infoRule(std::string_view infoGroup, uint32_t paramName) {
    const Catalogue& c = catalogue();
    auto it = c.info.find({infoGroup, paramName});
    return it == c.info.end() ? InfoRule{} : it->second;
}

}  // namespace perfmarker::atp::ocl
