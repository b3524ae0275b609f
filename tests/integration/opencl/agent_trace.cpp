#include "agent_trace.h"

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "atp/write/ocl_api_line.h"
#include "record/fragments/fragment.h"

namespace perfmarker::test {
namespace {

template <typename T>
bool decodePod(std::string_view bytes, T& out) {
    if (bytes.size() != sizeof(T)) return false;
    std::memcpy(&out, bytes.data(), sizeof(T));
    return true;
}

void addRecord(AgentTrace& trace, uint64_t tid, const record::RecordView& r) {
    if (r.kind == record::RecordKind::ApiCall) {
        RecordedCall call;
        call.tid = tid;
        call.time = r.time;
        call.payload = std::string(r.str0);
        call.name = atp::oclSlotName(call.view().head.slot);
        if (!atp::formatOclApiLine(call.payload, call.line, call.formatError)) call.line.clear();
        trace.calls.push_back(std::move(call));
    } else if (r.kind == record::RecordKind::DeviceTimes) {
        record::DeviceTimesPayload p{};
        if (decodePod(r.str0, p)) trace.deviceTimes.push_back(p);
    } else if (r.kind == record::RecordKind::ObjectInfo) {
        RecordedObject o;
        if (decodePod(r.str0, o.info)) {
            o.name = std::string(r.str1);
            trace.objects.push_back(o);
        }
    }
}

}  // namespace

record::ApiCallView RecordedCall::view() const {
    record::ApiCallView v;
    record::decodeApiCall(payload, v);
    return v;
}

AgentTrace readAgentTrace(const std::string& directory) {
    AgentTrace trace;
    std::vector<std::string> paths;
    // The fragments are in the directory itself when it is private, else in the process's own
    // directory inside it (perfmarker-<uid>.<pid>, record/session_files.h).
    std::vector<std::string> dirs{directory};
    for (const auto& entry : std::filesystem::directory_iterator(directory)) {
        if (entry.is_directory() && entry.path().filename().string().rfind("perfmarker-", 0) == 0) {
            dirs.push_back(entry.path().string());
        }
    }
    for (const std::string& dir : dirs) {
        for (const auto& entry : std::filesystem::directory_iterator(dir)) {
            const std::string name = entry.path().filename().string();
            if (name.size() > 9 && name.compare(name.size() - 9, 9, ".ocl.frag") == 0) {
                paths.push_back(entry.path().string());
            }
        }
    }
    std::sort(paths.begin(), paths.end());
    for (const std::string& path : paths) {
        ++trace.fragments;
        record::FragmentReader fragment;
        std::string error;
        if (!fragment.open(path, error)) {
            trace.error += error + "\n";
            continue;
        }
        for (const record::FragmentStream& stream : fragment.streams()) {
            fragment.read(stream,
                          [&](const record::RecordView& r) { addRecord(trace, stream.tid, r); });
        }
    }
    return trace;
}

}  // namespace perfmarker::test
