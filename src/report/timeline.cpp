#include "report/timeline.h"

#include <algorithm>
#include <cstdio>
#include <set>

namespace perfmarker::report {
namespace {

// cl_command_type values that move or map memory (docs/format.md#command-types): transfers,
// maps, fills, migrations.
bool isMemoryCommand(uint32_t type) {
    return (type >= 4595 && type <= 4605) || (type >= 4609 && type <= 4611) ||
           (type >= 4614 && type <= 4616) || (type >= 4618 && type <= 4622);
}

void appendDetail(std::string& out, std::string_view key, std::string_view value) {
    if (value.empty()) return;
    if (!out.empty()) out += '\n';
    out.append(key).append("=").append(value);
}

std::string joinParams(const std::vector<std::string_view>& params) {
    // Long parameter lists (kernel source strings) would bloat the page; the start is enough.
    constexpr size_t kMaxParamsChars = 400;
    std::string out;
    for (std::string_view param : params) {
        if (!out.empty()) out += "; ";
        out.append(param);
        if (out.size() > kMaxParamsChars) {
            out.resize(kMaxParamsChars);
            out += "...";
            break;
        }
    }
    return out;
}

}  // namespace

std::string formatDuration(uint64_t ns) {
    char text[32];
    if (ns >= 1000000000) {
        std::snprintf(text, sizeof text, "%.3f s", static_cast<double>(ns) / 1e9);
    } else if (ns >= 1000000) {
        std::snprintf(text, sizeof text, "%.3f ms", static_cast<double>(ns) / 1e6);
    } else if (ns >= 1000) {
        std::snprintf(text, sizeof text, "%.3f us", static_cast<double>(ns) / 1e3);
    } else {
        std::snprintf(text, sizeof text, "%llu ns", static_cast<unsigned long long>(ns));
    }
    return text;
}

TimelineCollector::TimelineCollector(size_t maxItems) : m_maxItems(maxItems) {
    m_timeline.strings.emplace_back();
    m_stringIndex.emplace("", 0);
}

void TimelineCollector::onFileBegin(std::string_view file) {
    if (m_inFile) onFileEnd({});
    Process process;
    process.name = std::string(file.substr(file.find_last_of('/') + 1));
    m_timeline.processes.push_back(std::move(process));
    m_threadTracks.clear();
    m_queueTracks.clear();
    m_openMarkers.clear();
    m_lastTime = 0;
    m_inFile = true;
    m_unknown = m_endsBeforeStart = 0;
    m_firstEndsBeforeStart.clear();
    m_callSites.clear();
    m_callBlocks.clear();
}

void TimelineCollector::onHeader(std::string_view key, std::string_view value,
                                 atp::SourceLocation /*where*/) {
    if (m_timeline.processes.empty()) onFileBegin("trace");
    Process& process = m_timeline.processes.back();
    if (key == "ProcessId") {
        process.pid = std::strtoull(std::string(value).c_str(), nullptr, 10);
    } else if (key == "Application") {
        process.application = std::string(value);
    } else if (key == atp::kApiCallsLeftOutKey && atp::apiCallsLeftOut(value).value_or(0) > 0) {
        m_timeline.warnings.push_back(process.name + ": the trace was cut at the API call cap (" +
                                      std::string(value) +
                                      " calls left out): the timeline ends at the cut");
    }
}

bool TimelineCollector::drawable(uint64_t start, uint64_t end, const atp::SourceLocation& where) {
    const atp::Times times = atp::timesOf(start, end);
    if (times == atp::Times::Unknown) ++m_unknown;
    if (times != atp::Times::EndBeforeStart) return times == atp::Times::Known;
    if (m_endsBeforeStart++ == 0) {
        m_firstEndsBeforeStart = std::string(where.file) + ":" + std::to_string(where.line);
    }
    return false;
}

void TimelineCollector::noteUndrawn() {
    const std::string& name = m_timeline.processes.back().name;
    if (m_unknown > 0) {
        m_timeline.warnings.push_back(name + ": " + std::to_string(m_unknown) +
                                      " calls or commands without times (unknown) are not drawn");
    }
    if (m_endsBeforeStart > 0) {
        m_timeline.warnings.push_back(name + ": " + std::to_string(m_endsBeforeStart) +
                                      " calls or commands end before they start (the first at " +
                                      m_firstEndsBeforeStart + ") and are not drawn");
    }
}

// The slice of an API call on its thread's row.
Item TimelineCollector::apiItem(const callsites::CallKey& call, uint64_t start, uint64_t end,
                                std::string_view name, std::string_view returnValue,
                                const std::vector<std::string_view>& params) {
    Item api;
    api.start = start;
    api.end = end;
    api.track = threadTrack(call.tid);
    api.name = intern(name);
    api.kind = ItemKind::Api;
    api.hsaCall = call.family == atp::ApiFamily::Hsa;
    api.callBlock = call.block;
    api.callIndex = call.index;
    appendDetail(api.details, "return", returnValue);
    appendDetail(api.details, "args", joinParams(params));
    m_lastTime = std::max(m_lastTime, end);
    return api;
}

void TimelineCollector::onOclApiCall(const atp::OclApiCall& call) {
    const callsites::CallKey key = m_callBlocks.key(atp::ApiFamily::Ocl, call.tid, call.index);
    if (drawable(call.start, call.end, call.timestampLine)) {
        Item api = apiItem(key, call.start, call.end, call.name, call.returnValue, call.params);
        if (call.consecutiveCalls > 1) {
            appendDetail(api.details, "calls", std::to_string(call.consecutiveCalls));
        }
        add(std::move(api));
    }
    if (!call.hasCommand || !drawable(call.command.start, call.command.end, call.timestampLine)) {
        return;
    }

    const atp::OclCommand& command = call.command;
    Item device;
    device.start = command.start;
    device.end = command.end;
    device.track = queueTrack(QueueKey{0, 0, command.queueId}, [&] {
        return "OpenCL queue " + std::to_string(command.queueId) + " (" +
               std::string(command.deviceName) + ")";
    });
    device.name =
        intern(command.isKernel ? std::string_view(command.kernelName) : command.commandName);
    device.kind = command.isKernel                                              ? ItemKind::Kernel
                  : command.hasDataSize || isMemoryCommand(command.commandType) ? ItemKind::Memory
                                                                                : ItemKind::Other;
    appendDetail(device.details, "command", command.commandName);
    appendDetail(device.details, "global", command.globalSize);
    appendDetail(device.details, "local", command.localSize);
    if (command.hasDataSize)
        appendDetail(device.details, "bytes", std::to_string(command.dataSize));
    if (command.queued != 0) {  // (0: unknown)
        appendDetail(
            device.details, "queued->start",
            formatDuration(command.start > command.queued ? command.start - command.queued : 0));
    }
    appendDetail(device.details, "api", call.name);
    m_lastTime = std::max(m_lastTime, command.end);
    add(std::move(device));
}

void TimelineCollector::onHsaApiCall(const atp::HsaApiCall& call) {
    const callsites::CallKey key = m_callBlocks.key(atp::ApiFamily::Hsa, call.tid, call.index);
    if (drawable(call.start, call.end, call.timestampLine)) {
        add(apiItem(key, call.start, call.end, call.name, call.returnValue, call.params));
    }
    if (!call.hasTransferTimes ||
        !drawable(call.transferStart, call.transferEnd, call.timestampLine)) {
        return;
    }

    Item transfer;
    transfer.start = call.transferStart;
    transfer.end = call.transferEnd;
    transfer.track = queueTrack(QueueKey{2, 0, 0}, [] { return std::string("HSA async copies"); });
    transfer.name = intern(call.name);
    transfer.kind = ItemKind::Memory;
    appendDetail(transfer.details, "thread", std::to_string(call.tid));
    m_lastTime = std::max(m_lastTime, call.transferEnd);
    add(std::move(transfer));
}

void TimelineCollector::onHsaKernelDispatch(const atp::HsaKernelDispatch& dispatch) {
    if (!drawable(dispatch.start, dispatch.end, dispatch.line)) return;
    Item kernel;
    kernel.start = dispatch.start;
    kernel.end = dispatch.end;
    kernel.track = queueTrack(QueueKey{1, dispatch.agentIndex, dispatch.queueIndex}, [&] {
        return "HSA queue " + std::to_string(dispatch.queueIndex) + " (" + dispatch.agentName + ")";
    });
    kernel.name = intern(dispatch.kernelName);
    kernel.kind = ItemKind::Kernel;
    appendDetail(kernel.details, "kernel", dispatch.kernelHandle);
    appendDetail(kernel.details, "packet", dispatch.packetType);
    appendDetail(kernel.details, "packet id", dispatch.packetId);
    appendDetail(kernel.details, "agent", dispatch.agentName);
    m_lastTime = std::max(m_lastTime, dispatch.end);
    add(std::move(kernel));
}

void TimelineCollector::onMarker(const atp::MarkerEvent& event) {
    if (event.marker == nullptr) return;
    const atp::Marker& marker = *event.marker;
    m_lastTime = std::max(m_lastTime, marker.timestampNs);
    std::vector<OpenMarker>& open = m_openMarkers[event.tid];
    if (marker.kind == atp::MarkerKind::Begin) {
        threadTrack(event.tid);  // the thread gets its row even if the marker never ends
        open.push_back({marker.timestampNs, marker.name, marker.group, marker.userString});
        return;
    }
    if (open.empty()) return;  // unbalanced End: the reader already warned
    OpenMarker begun = std::move(open.back());
    open.pop_back();
    closeMarker(event.tid, std::move(begun), marker.timestampNs,
                marker.kind == atp::MarkerKind::EndEx ? &marker : nullptr);
}

void TimelineCollector::closeMarker(uint64_t tid, OpenMarker&& open, uint64_t end,
                                    const atp::Marker* ending) {
    // EndEx renames the marker and its group (docs/format.md#perfmarker-section).
    if (ending != nullptr && !ending->name.empty()) {
        open.name = ending->name;
        open.group = ending->group;
        if (!ending->userString.empty()) open.userString = ending->userString;
    }
    Item item;
    item.start = open.start;
    item.end = std::max(end, open.start);
    item.track = threadTrack(tid);
    item.name = intern(open.name);
    item.kind = ItemKind::Marker;
    item.depth = static_cast<uint16_t>(std::min<size_t>(m_openMarkers[tid].size(), 0xFFFF));
    appendDetail(item.details, "group", open.group);
    appendDetail(item.details, "user", open.userString);
    add(std::move(item));
}

void TimelineCollector::closeOpenMarkers() {
    for (auto& [tid, open] : m_openMarkers) {
        if (open.empty()) continue;
        m_timeline.warnings.push_back(m_timeline.processes.back().name + ": thread " +
                                      std::to_string(tid) + ": " + std::to_string(open.size()) +
                                      " marker(s) never ended; shown up to the trace's end");
        while (!open.empty()) {
            OpenMarker last = std::move(open.back());
            open.pop_back();
            closeMarker(tid, std::move(last), m_lastTime, nullptr);
        }
    }
}

void TimelineCollector::onSection(atp::SectionKind kind, std::string_view /*name*/,
                                  atp::SourceLocation where) {
    if (kind == atp::SectionKind::OclStackTrace)
        m_callSites.addSection(atp::ApiFamily::Ocl, where.line);
    if (kind == atp::SectionKind::HsaStackTrace)
        m_callSites.addSection(atp::ApiFamily::Hsa, where.line);
}

void TimelineCollector::onStackEntry(const atp::StackEntry& entry) { m_callSites.add(entry); }

// The Stack Trace sections come after the API calls of the file: the calls still on the
// timeline get their call sites now. (What does not line up is on the Trace Notes table.)
void TimelineCollector::attachCallSites() {
    if (!m_callSites.hasSection(atp::ApiFamily::Ocl) &&
        !m_callSites.hasSection(atp::ApiFamily::Hsa)) {
        return;
    }
    std::unordered_map<uint32_t, uint64_t> tidOfTrack;
    for (const auto& [tid, track] : m_threadTracks) tidOfTrack.emplace(track, tid);
    for (Item& item : m_timeline.items) {
        if (item.kind != ItemKind::Api) continue;
        const auto thread = tidOfTrack.find(item.track);
        if (thread == tidOfTrack.end()) continue;  // a call of another file
        const callsites::CallKey key{item.hsaCall ? atp::ApiFamily::Hsa : atp::ApiFamily::Ocl,
                                     thread->second, item.callBlock, item.callIndex};
        appendDetail(item.details, "call site",
                     m_callSites.find(key, m_timeline.strings[item.name]));
    }
    m_callSites.clear();
}

void TimelineCollector::onFileEnd(std::string_view /*file*/) {
    if (!m_inFile) return;
    closeOpenMarkers();
    attachCallSites();
    noteUndrawn();
    m_inFile = false;
}

uint32_t TimelineCollector::threadTrack(uint64_t tid) {
    auto found = m_threadTracks.find(tid);
    if (found != m_threadTracks.end()) return found->second;
    const uint32_t index =
        newTrack(TrackKind::Thread, [tid] { return "thread " + std::to_string(tid); });
    m_threadTracks.emplace(tid, index);
    return index;
}

uint32_t TimelineCollector::queueTrack(const QueueKey& key,
                                       const std::function<std::string()>& label) {
    auto found = m_queueTracks.find(key);
    if (found != m_queueTracks.end()) return found->second;
    const uint32_t index = newTrack(TrackKind::Queue, label);
    m_queueTracks.emplace(key, index);
    return index;
}

// A row of the current process (of a stand-in file "trace" when records come before any file).
uint32_t TimelineCollector::newTrack(TrackKind kind, const std::function<std::string()>& label) {
    if (m_timeline.processes.empty()) onFileBegin("trace");
    const auto index = static_cast<uint32_t>(m_timeline.tracks.size());
    m_timeline.tracks.push_back(
        {static_cast<uint32_t>(m_timeline.processes.size() - 1), kind, label()});
    return index;
}

uint32_t TimelineCollector::intern(std::string_view text) {
    auto [it, inserted] = m_stringIndex.try_emplace(
        std::string(text), static_cast<uint32_t>(m_timeline.strings.size()));
    if (inserted) m_timeline.strings.push_back(it->first);
    return it->second;
}

void TimelineCollector::add(Item&& item) {
    ++m_timeline.totalItems;
    if (m_maxItems == 0) return;
    m_timeline.items.push_back(std::move(item));
    // Pruning at twice the cap keeps the work linear overall and the memory at 2 x cap.
    if (m_timeline.items.size() >= 2 * m_maxItems) prune(m_maxItems);
}

void TimelineCollector::prune(size_t keep) {
    std::vector<Item>& items = m_timeline.items;
    if (items.size() <= keep) return;
    // Markers are the application's own labels and few: they go first, then the longest slices.
    std::nth_element(items.begin(), items.begin() + static_cast<std::ptrdiff_t>(keep), items.end(),
                     [](const Item& a, const Item& b) {
                         const bool aMarker = a.kind == ItemKind::Marker;
                         const bool bMarker = b.kind == ItemKind::Marker;
                         if (aMarker != bMarker) return aMarker;
                         return a.duration() > b.duration();
                     });
    items.resize(keep);
}

void TimelineCollector::assignPids() {
    // Several traces of one process (or traces without ProcessId=) still need rows of their own.
    std::set<uint64_t> used;
    for (const Process& process : m_timeline.processes) used.insert(process.pid);
    std::set<uint64_t> taken;
    uint64_t next = 1;
    for (Process& process : m_timeline.processes) {
        if (process.pid != 0 && taken.insert(process.pid).second) continue;
        while (used.count(next) != 0 || taken.count(next) != 0) ++next;
        process.pid = next;
        taken.insert(next);
    }
}

void TimelineCollector::sortTracks() {
    std::vector<uint32_t> order(m_timeline.tracks.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    const std::vector<Track>& tracks = m_timeline.tracks;
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        if (tracks[a].process != tracks[b].process) return tracks[a].process < tracks[b].process;
        return tracks[a].kind < tracks[b].kind;
    });
    std::vector<uint32_t> newIndex(order.size());
    std::vector<Track> sorted;
    sorted.reserve(order.size());
    for (uint32_t i = 0; i < order.size(); ++i) {
        newIndex[order[i]] = i;
        sorted.push_back(std::move(m_timeline.tracks[order[i]]));
    }
    m_timeline.tracks = std::move(sorted);
    for (Item& item : m_timeline.items) item.track = newIndex[item.track];
}

Timeline TimelineCollector::take() {
    if (m_inFile) onFileEnd({});
    prune(m_maxItems);
    assignPids();
    sortTracks();
    std::sort(m_timeline.items.begin(), m_timeline.items.end(), [](const Item& a, const Item& b) {
        return a.track != b.track ? a.track < b.track : a.start < b.start;
    });
    Timeline out = std::move(m_timeline);
    m_timeline = Timeline{};
    m_timeline.strings.emplace_back();
    m_stringIndex.clear();
    m_stringIndex.emplace("", 0);
    return out;
}

}  // namespace perfmarker::report
