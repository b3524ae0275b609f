#include "analysis/params.h"

#include <cctype>
#include <limits>

#include "api/ocl_api.h"
#include "atp/format/perfmarker_section.h"

namespace perfmarker::analysis {
namespace {

// The APIs of cl_api_table.inc without a prototype in the catalogue that an OclParam reads:
// the AMD extensions that became core APIs, by that API...
constexpr std::pair<std::string_view, std::string_view> kCoreTwins[] = {
    {"clSVMFreeAMD", "clSVMFree"},
    {"clEnqueueSVMFreeAMD", "clEnqueueSVMFree"},
    {"clEnqueueSVMMemcpyAMD", "clEnqueueSVMMemcpy"},
    {"clEnqueueSVMMemFillAMD", "clEnqueueSVMMemFill"},
    {"clEnqueueSVMMapAMD", "clEnqueueSVMMap"},
    {"clEnqueueSVMUnmapAMD", "clEnqueueSVMUnmap"},
};

// ... and the others by their parameter names (AMD's cl_ext.h, Khronos' cl_d3d10.h, cl_d3d11.h
// and cl_dx9_media_sharing.h).
constexpr std::string_view kShareObjects =
    "command_queue,num_objects,mem_objects,num_events_in_wait_list,event_wait_list,event";
constexpr std::string_view kSsgTransfer =
    "command_queue,buffer,blocking_write,buffer_offset,cb,file,file_offset,"
    "num_events_in_wait_list,event_wait_list,event";
constexpr std::pair<std::string_view, std::string_view> kPrototypes[] = {
    {"clCreateFromD3D10BufferKHR", "context,flags,resource,errcode_ret"},
    {"clCreateFromD3D11BufferKHR", "context,flags,resource,errcode_ret"},
    {"clEnqueueAcquireD3D10ObjectsKHR", kShareObjects},
    {"clEnqueueReleaseD3D10ObjectsKHR", kShareObjects},
    {"clEnqueueAcquireD3D11ObjectsKHR", kShareObjects},
    {"clEnqueueReleaseD3D11ObjectsKHR", kShareObjects},
    {"clEnqueueAcquireDX9MediaSurfacesKHR", kShareObjects},
    {"clEnqueueReleaseDX9MediaSurfacesKHR", kShareObjects},
    {"clRetainSsgFileObjectAMD", "file"},
    {"clReleaseSsgFileObjectAMD", "file"},
    {"clEnqueueReadSsgFileAMD", kSsgTransfer},
    {"clEnqueueWriteSsgFileAMD", kSsgTransfer},
};

// Every API name the format has an id for, with its parameter names where they are known.
using Signatures = std::vector<std::pair<std::string_view, std::vector<std::string_view>>>;

std::vector<std::string_view> paramNames(const atp::ocl::ApiSpec& api) {
    std::vector<std::string_view> names;
    for (const atp::ocl::ParamSpec& param : api.params) names.push_back(param.name);
    return names;
}

const Signatures& signatures() {
    static const Signatures* all = [] {
        auto* out = new Signatures;  // never freed: used until the process ends
        for (const atp::ocl::ApiSpec& api : atp::ocl::apis()) {
            if (!api.name.empty()) out->emplace_back(api.name, paramNames(api));
        }
        const auto add = [out](std::string_view name) {
            if (atp::ocl::apiByName(name) != nullptr) return;
            std::vector<std::string_view> names;
            for (const auto& [api, core] : kCoreTwins) {
                const atp::ocl::ApiSpec* twin = atp::ocl::apiByName(core);
                if (api == name && twin != nullptr) names = paramNames(*twin);
            }
            for (const auto& [api, list] : kPrototypes) {
                if (api == name) names = splitList(list);
            }
            out->emplace_back(name, std::move(names));
        };
#define PM_CL_API_RESERVED(slot, funcTypeId, isEnqueue, field) add(#field);
#define PM_CL_API_NOT_IN_DISPATCH(funcTypeId, isEnqueue, name) add(#name);
#include "api/cl_api_table.inc"
        return out;
    }();
    return *all;
}

// `pattern` with '*' standing for any text, as in a shell.
bool matches(std::string_view pattern, std::string_view text) {
    const size_t star = pattern.find('*');
    if (star == std::string_view::npos) return pattern == text;
    if (text.substr(0, star) != pattern.substr(0, star)) return false;
    const std::string_view rest = pattern.substr(star + 1);
    for (size_t from = star; from <= text.size(); ++from) {
        if (matches(rest, text.substr(from))) return true;
    }
    return false;
}

}  // namespace

std::string_view paramAt(const std::vector<std::string_view>& params, size_t index) {
    return index < params.size() ? params[index] : std::string_view{};
}

std::string_view stripBrackets(std::string_view text) {
    if (text.size() >= 2 && text.front() == '[' && text.back() == ']') {
        return text.substr(1, text.size() - 2);
    }
    return text;
}

std::vector<std::string_view> splitList(std::string_view text) {
    std::vector<std::string_view> items;
    int depth = 0;
    size_t begin = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '[' || c == '{') ++depth;
        if ((c == ']' || c == '}') && depth > 0) --depth;
        if (c == ',' && depth == 0) {
            items.push_back(text.substr(begin, i - begin));
            begin = i + 1;
        }
    }
    if (!text.empty()) items.push_back(text.substr(begin));
    return items;
}

std::optional<uint64_t> parseUnsigned(std::string_view text) {
    if (text.empty()) return std::nullopt;
    uint64_t value = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return std::nullopt;
        const uint64_t digit = static_cast<uint64_t>(c - '0');
        if (value > (std::numeric_limits<uint64_t>::max() - digit) / 10) return std::nullopt;
        value = value * 10 + digit;
    }
    return value;
}

std::optional<uint64_t> sizeProduct(std::string_view text) {
    if (text.size() >= 2 && (text.front() == '[' || text.front() == '{')) {
        text = text.substr(1, text.size() - 2);
    }
    const std::vector<std::string_view> items = splitList(text);
    if (items.empty()) return std::nullopt;
    uint64_t product = 1;
    for (std::string_view item : items) {
        const std::optional<uint64_t> value = parseUnsigned(item);
        if (!value) return std::nullopt;
        product *= *value;
    }
    return product;
}

std::string normalizeHandle(std::string_view text) {
    if (text == "NULL" || text == "0" || text.empty()) return {};
    std::string out(text);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

bool hasFlag(std::string_view flags, std::string_view flag) {
    size_t begin = 0;
    while (begin <= flags.size()) {
        size_t end = flags.find('|', begin);
        if (end == std::string_view::npos) end = flags.size();
        if (flags.substr(begin, end - begin) == flag) return true;
        begin = end + 1;
    }
    return false;
}

std::optional<std::string_view> hsaParam(const std::vector<std::string_view>& params,
                                         std::string_view name) {
    for (std::string_view param : params) {
        if (param.size() > name.size() && param.compare(0, name.size(), name) == 0 &&
            param[name.size()] == '=') {
            return param.substr(name.size() + 1);
        }
    }
    return std::nullopt;
}

OclParam::OclParam(std::vector<std::string_view> names, std::vector<std::string_view> apis)
    : m_names(std::move(names)), m_apis(std::move(apis)) {
    for (const auto& [api, params] : signatures()) {
        bool read = false;
        for (std::string_view pattern : m_apis) read = read || matches(pattern, api);
        for (size_t n = 0; read && n < m_names.size(); ++n) {
            for (size_t i = 0; i < params.size(); ++i) {
                if (params[i] == m_names[n] && m_positions.emplace(api, i).second) break;
            }
        }
    }
}

std::string_view OclParam::in(const atp::OclApiCall& call) const {
    const auto it = m_positions.find(call.name);
    return it == m_positions.end() ? std::string_view{} : paramAt(call.params, it->second);
}

std::vector<std::string> OclParam::unresolved() const {
    std::vector<std::string> out;
    for (std::string_view pattern : m_apis) {
        bool any = false;
        for (const auto& [api, params] : signatures()) {
            if (!matches(pattern, api)) continue;
            any = true;
            if (m_positions.count(api) == 0) {
                out.push_back(std::string(api) + " has no parameter " + std::string(m_names[0]));
            }
        }
        if (!any) out.push_back("no API matches " + std::string(pattern));
    }
    return out;
}

std::vector<const OclParam*> OclParams::all() const {
    static_assert(sizeof(OclParams) == 15 * sizeof(OclParam), "all() lists every member");
    return {&queue,       &retained,     &owner,         &kernels,        &svmPointer,
            &properties,  &enable,       &blockingWrite, &globalWorkSize, &localWorkSize,
            &bufferFlags, &mappedBuffer, &mapFlags,      &waitEvents,     &infoEvent};
}

const OclParams& oclParams() {
    static const OclParams* params = new OclParams;  // never freed: used until the process ends
    return *params;
}

std::optional<HsaAgent> parseHsaAgent(std::string_view text) {
    if (text.size() < 2 || text.front() != '{' || text.back() != '}') return std::nullopt;
    HsaAgent agent;
    bool any = false;
    for (std::string_view item : splitList(text.substr(1, text.size() - 2))) {
        if (item.rfind("handle=", 0) == 0) {
            agent.handle = std::string(item.substr(7));
            any = true;
        } else if (item.rfind("name=", 0) == 0) {
            agent.name = atp::unescapeToken(item.substr(5));
            any = true;
        }
    }
    if (!any) return std::nullopt;
    return agent;
}

}  // namespace perfmarker::analysis
