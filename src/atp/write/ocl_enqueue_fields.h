// What the OpenCL Timestamp section takes from an enqueue call and the objects it names
// (docs/format.md#timestamp-lines): the command type an API implies, the tokens of the line, the
// objects by handle, and what the builder keeps of them from line to line. Internal to
// ocl_sections.cpp.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "atp/write/ocl_sections.h"
#include "record/api_record.h"

namespace perfmarker::atp::ocl_fields {

using record::ObjectInfoPayload;
using record::ObjectType;

inline constexpr uint64_t kClDeviceTypeCpu = uint64_t{1} << 1;
inline constexpr std::string_view kEventInfoApi = "clGetEventInfo";
inline constexpr std::string_view kUnknownDevice = "Unknown_Device";
inline constexpr std::string_view kUnknownKernel = "Unknown_Kernel";

// cl_command_type of each enqueue API, for commands whose device times (which carry the type
// the runtime reported) are missing. The AMD SVM variants map like the core APIs.
inline constexpr std::array<std::pair<std::string_view, uint32_t>, 31> kCommandTypeByApi = {{
    {"clEnqueueNDRangeKernel", 0x11F0},
    {"clEnqueueTask", 0x11F1},
    {"clEnqueueNativeKernel", 0x11F2},
    {"clEnqueueReadBuffer", 0x11F3},
    {"clEnqueueWriteBuffer", 0x11F4},
    {"clEnqueueCopyBuffer", 0x11F5},
    {"clEnqueueReadImage", 0x11F6},
    {"clEnqueueWriteImage", 0x11F7},
    {"clEnqueueCopyImage", 0x11F8},
    {"clEnqueueCopyImageToBuffer", 0x11F9},
    {"clEnqueueCopyBufferToImage", 0x11FA},
    {"clEnqueueMapBuffer", 0x11FB},
    {"clEnqueueMapImage", 0x11FC},
    {"clEnqueueUnmapMemObject", 0x11FD},
    {"clEnqueueMarker", 0x11FE},
    {"clEnqueueMarkerWithWaitList", 0x11FE},
    {"clEnqueueAcquireGLObjects", 0x11FF},
    {"clEnqueueReleaseGLObjects", 0x1200},
    {"clEnqueueReadBufferRect", 0x1201},
    {"clEnqueueWriteBufferRect", 0x1202},
    {"clEnqueueCopyBufferRect", 0x1203},
    {"clEnqueueBarrierWithWaitList", 0x1205},
    {"clEnqueueMigrateMemObjects", 0x1206},
    {"clEnqueueFillBuffer", 0x1207},
    {"clEnqueueFillImage", 0x1208},
    {"clEnqueueSVMFree", 0x1209},
    {"clEnqueueSVMMemcpy", 0x120A},
    {"clEnqueueSVMMemFill", 0x120B},
    {"clEnqueueSVMMap", 0x120C},
    {"clEnqueueSVMUnmap", 0x120D},
    {"clEnqueueSVMMigrateMem", 0x120E},
}};

inline uint32_t commandTypeOfApi(std::string_view name) {
    if (name.size() > 3 && name.substr(name.size() - 3) == "AMD") name.remove_suffix(3);
    for (const auto& [api, type] : kCommandTypeByApi) {
        if (api == name) return type;
    }
    return 0;
}

// A token of the timestamp line: whitespace would split it, an empty one would shift fields.
inline std::string oneToken(std::string_view text, std::string_view ifEmpty) {
    std::string out;
    for (const char c : text) {
        const bool space =
            c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
        out.push_back(space ? '_' : c);
    }
    if (out.empty()) out.assign(ifEmpty);
    return out;
}

// Objects by handle. A handle can be reused after a release, so every sighting is kept and a
// lookup takes the one seen last before the call.
class ObjectTable {
public:
    struct Entry {
        uint64_t time = 0;
        ObjectInfoPayload info{};
        std::string name;
    };

    void add(uint64_t time, const ObjectInfoPayload& info, std::string_view name) {
        const size_t type = info.type;
        if (type >= m_byType.size()) return;
        m_byType[type][info.handle].push_back(Entry{time, info, std::string(name)});
    }

    // Sightings come from all threads in thread order: sort each handle's by time once.
    void finish() {
        for (auto& table : m_byType) {
            for (auto& [handle, entries] : table) {
                std::stable_sort(entries.begin(), entries.end(),
                                 [](const Entry& a, const Entry& b) { return a.time < b.time; });
            }
        }
    }

    const Entry* find(ObjectType type, uint64_t handle, uint64_t time) const {
        const auto& table = m_byType[static_cast<size_t>(type)];
        const auto it = table.find(handle);
        if (handle == 0 || it == table.end() || it->second.empty()) return nullptr;
        const auto& entries = it->second;
        auto later = std::upper_bound(entries.begin(), entries.end(), time,
                                      [](uint64_t t, const Entry& e) { return t < e.time; });
        return later == entries.begin() ? &entries.front() : &*(later - 1);
    }

private:
    std::array<std::unordered_map<uint64_t, std::vector<Entry>>, 5> m_byType;  // by ObjectType
};

// What an enqueue's timestamp line takes from the call's arguments: made once for a repeated
// call (api_line_memo.h).
struct EnqueueOfCall {
    OclEnqueueInfo info;
    uint32_t apiCommandType = 0;  // the command type the API's name implies
    std::string queueHandle;
    std::string kernelHandle;
    std::string globalSize;  // as written: one token, "{NULL}" when unknown
    std::string localSize;
};

// What the strings of the timestamp line last written were made of (a command type, a context
// and device, a kernel), for the next line to keep them when it names the same: the line's
// strings are reused from one line to the next. Each `has` says its strings were made.
struct NamedLast {
    bool hasCommand = false;
    uint32_t commandType = 0;
    bool hasObjects = false;
    uint64_t context = 0;
    const void* device = nullptr;
    bool hasKernel = false;
    const void* kernel = nullptr;
};

}  // namespace perfmarker::atp::ocl_fields
