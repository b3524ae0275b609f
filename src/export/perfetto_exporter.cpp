#include "export/perfetto_exporter.h"

#include <algorithm>
#include <cstring>

#include "analysis/callsites/call_site_reader.h"
#include "export/json_writer.h"

namespace perfmarker::exporter {
namespace {

constexpr int kFamilyOcl = 0;
constexpr int kFamilyHsa = 1;
constexpr int kFamilyHsaCopies = 2;             // hsa_amd_memory_async_copy: no queue
constexpr uint64_t kDeviceSortBase = 1u << 30;  // device tracks below the host threads
// Tracks that are no thread of the application (queues, marker and HSA tracks) get tids from
// here: above Linux's PID_MAX_LIMIT like the synthetic pids, and apart from them, so that no
// track looks like the main thread of a process with a synthetic pid.
constexpr uint64_t kSyntheticTidBase = uint64_t{1} << 23;

std::string joinParams(const std::vector<std::string_view>& params) {
    std::string joined;
    for (size_t i = 0; i < params.size(); ++i) {
        if (i > 0) joined.push_back(';');
        joined.append(params[i]);
    }
    return joined;
}

std::string queueTrackName(int family, uint64_t queueId, const std::string& device) {
    if (family == kFamilyHsaCopies) return "HSA async copies";
    std::string name = family == kFamilyOcl ? "OpenCL queue " : "HSA queue ";
    name += std::to_string(queueId);
    if (!device.empty()) name += " (" + device + ")";
    return name;
}

std::string oclCommandArgs(const atp::OclApiCall& call) {
    const atp::OclCommand& command = call.command;
    std::string args;
    JsonObject object(args);
    object.string("command", command.commandName).string("api", call.name);
    object.number("thread", call.tid).number("index", call.index);
    // Unknown times (0) are left out (docs/format.md#unknown-times).
    if (command.queued != 0) object.micros("queued", command.queued);
    if (command.submit != 0) object.micros("submit", command.submit);
    object.string("queue handle", command.queueHandle).number("context", command.contextId);
    object.string("context handle", command.contextHandle).string("device", command.deviceName);
    if (command.isKernel) {
        object.string("kernel handle", command.kernelHandle);
        object.string("global size", command.globalSize).string("local size", command.localSize);
    }
    if (command.hasDataSize) object.number("bytes", command.dataSize);
    object.close();
    return args;
}

std::string hsaDispatchArgs(const atp::HsaKernelDispatch& dispatch) {
    std::string args;
    JsonObject object(args);
    object.string("kernel handle", dispatch.kernelHandle);
    object.string("agent", dispatch.agentName).string("agent handle", dispatch.agentHandle);
    if (dispatch.hasAgentIndex) {
        object.number("agent index", dispatch.agentIndex);
    } else {
        object.string("agent index", dispatch.agentIndexText);  // a queue handle (CodeXL 2.x)
    }
    object.string("packet type", dispatch.packetType);
    object.string("packet id", dispatch.packetId).string("packet", dispatch.packet);
    object.close();
    return args;
}

// Where the device commands' temporary file goes: next to the output.
std::string directoryOf(const std::string& path) {
    const size_t slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

}  // namespace

PerfettoExporter::PerfettoExporter(PerfettoOptions options)
    : m_writer(options.outputPath, options.maxFileBytes),
      m_commands(directoryOf(options.outputPath), options.memoryBudget) {
    m_event.reserve(4096);
}

void PerfettoExporter::beginFile(std::string_view file) {
    m_file.assign(file);
    m_application.clear();
    m_nextTid = kSyntheticTidBase;
    m_threads.clear();
    m_queueIds.clear();
    m_queues.clear();
    m_commands.clear();
    m_commandCount = 0;
    m_profileArgs.clear();
    m_clampedSlices = 0;
    m_profile = m_fileIndex < m_profiles.size() ? &m_profiles[m_fileIndex] : nullptr;
    ++m_fileIndex;
    m_kernels.clear();
    m_callBlocks.clear();
    m_callSitesUnread = false;
    // A file that cannot be read ahead has no call sites (onSection() says so when it has a
    // Stack Trace section); a malformed one fails the parse itself at the same line.
    std::string error;
    callsites::readCallSites(m_file, m_callSites, error);
}

// A Stack Trace section that the read-ahead did not see: the input is not a regular file.
void PerfettoExporter::onSection(atp::SectionKind kind, std::string_view name,
                                 atp::SourceLocation where) {
    (void)name;
    const bool hsa = kind == atp::SectionKind::HsaStackTrace;
    if (kind != atp::SectionKind::OclStackTrace && !hsa) return;
    if (m_callSites.hasSection(hsa ? atp::ApiFamily::Hsa : atp::ApiFamily::Ocl)) return;
    if (m_callSitesUnread) return;
    m_callSitesUnread = true;
    m_warnings.add(m_file + ":" + std::to_string(where.line) +
                   ": call sites are read ahead from regular files only: the API slices of "
                   "this input have no call_site");
}

// Every call is looked up, with or without a slice: the index checks the counts at the end.
std::string_view PerfettoExporter::callSite(atp::ApiFamily family, uint64_t tid, uint64_t index,
                                            std::string_view api) {
    return m_callSites.find(m_callBlocks.key(family, tid, index), api);
}

void PerfettoExporter::onHeader(std::string_view key, std::string_view value,
                                atp::SourceLocation where) {
    Exporter::onHeader(key, value, where);
    if (key == "Application") m_application.assign(value);
}

uint64_t PerfettoExporter::pid() {
    if (m_processIds.resolved()) return m_pid;
    m_pid = m_processIds.pid(m_warnings);
    m_event.clear();
    JsonObject event(m_event);
    event.string("ph", "M").string("name", "process_name").number("pid", m_pid).number("tid", 0);
    event.micros("ts", 0).key("args");
    JsonObject args(m_event);
    args.string("name", traceBaseName(m_file)).close();
    event.close();
    m_writer.metadata(m_event);
    if (!m_application.empty()) {
        m_event.clear();
        JsonObject labels(m_event);
        labels.string("ph", "M").string("name", "process_labels").number("pid", m_pid);
        labels.number("tid", 0).micros("ts", 0).key("args");
        JsonObject labelArgs(m_event);
        labelArgs.string("labels", m_application).close();
        labels.close();
        m_writer.metadata(m_event);
    }
    return m_pid;
}

void PerfettoExporter::threadMetadata(uint64_t tid, const std::string& name, uint64_t sortIndex) {
    const uint64_t process = pid();
    for (const bool sort : {false, true}) {
        m_event.clear();
        JsonObject event(m_event);
        event.string("ph", "M").string("name", sort ? "thread_sort_index" : "thread_name");
        event.number("pid", process).number("tid", tid).micros("ts", 0).key("args");
        JsonObject args(m_event);
        if (sort) {
            args.number("sort_index", sortIndex).close();
        } else {
            args.string("name", name).close();
        }
        event.close();
        m_writer.metadata(m_event);
    }
}

uint64_t PerfettoExporter::newTid(const std::string& name, uint64_t sortIndex) {
    const uint64_t tid = m_nextTid++;
    threadMetadata(tid, name, sortIndex);
    return tid;
}

PerfettoExporter::Track& PerfettoExporter::hostTrack(uint64_t tid, HostTrack kind) {
    auto [it, inserted] = m_threads.try_emplace(tid);
    HostThread& thread = it->second;
    if (inserted) thread.order = m_threads.size() - 1;
    auto found = thread.tracks.find(kind);
    if (found != thread.tracks.end()) return found->second;
    Track track;
    const std::string base = "Thread " + std::to_string(tid);
    const uint64_t sortIndex = thread.order * 3 + static_cast<uint64_t>(kind);
    if (kind == HostTrack::OclApi) {
        track.tid = tid;  // the thread's own id: OpenCL calls are what the host thread did
        threadMetadata(tid, base, sortIndex);
    } else {
        track.tid = newTid(base + (kind == HostTrack::HsaApi ? " HSA" : " markers"), sortIndex);
    }
    return thread.tracks.emplace(kind, track).first->second;
}

void PerfettoExporter::clampSlice(Track& track, uint64_t& start, uint64_t& end) {
    const uint64_t originalStart = start;
    const uint64_t originalEnd = end;
    start = std::max(start, track.floor);
    end = std::max(end, start);
    track.floor = end;
    if (start != originalStart || end != originalEnd) ++m_clampedSlices;
}

// Writes an X event into m_event up to its "args": member; the caller writes the arguments
// object and the event's closing brace.
void PerfettoExporter::beginSlice(uint64_t tid, uint64_t start, uint64_t end, std::string_view name,
                                  std::string_view category) {
    JsonObject event(m_event);
    event.string("ph", "X").number("pid", m_pid).number("tid", tid);
    event.micros("ts", start).micros("dur", end - start);
    event.string("name", name).string("cat", category).key("args");
}

// The slice of an API call on its thread's track, clamped there (`start` and `end` are
// updated), with the call's arguments. Its end is where the thread's unclosed markers end.
PerfettoExporter::Track& PerfettoExporter::writeApiSlice(
    uint64_t tid, HostTrack kind, uint64_t& start, uint64_t& end, std::string_view name,
    uint64_t index, std::string_view returnValue, const std::vector<std::string_view>& params,
    std::string_view comment, uint64_t consecutiveCalls, std::string_view callSite) {
    pid();
    Track& track = hostTrack(tid, kind);
    clampSlice(track, start, end);
    m_markers.noteTime(tid, end);
    m_event.clear();
    beginSlice(track.tid, start, end, name, kind == HostTrack::OclApi ? "OpenCL API" : "HSA API");
    JsonObject args(m_event);
    args.number("index", index).string("return", returnValue);
    args.string("params", joinParams(params));
    if (!comment.empty()) args.string("comment", comment);
    if (consecutiveCalls > 1) args.number("consecutive calls", consecutiveCalls);
    if (!callSite.empty()) args.string("call_site", callSite);
    args.close();
    m_event.push_back('}');
    m_writer.events(m_event);
    return track;
}

// Calls and commands whose times are unknown or end before they start have no slice (the
// reader named them, docs/format.md#unknown-times); a command whose call has none has no flow.
void PerfettoExporter::onOclApiCall(const atp::OclApiCall& call) {
    uint64_t start = call.start;
    uint64_t end = call.end;
    const Track* track = nullptr;
    const std::string_view site = callSite(atp::ApiFamily::Ocl, call.tid, call.index, call.name);
    if (atp::hostTimes(call) == atp::Times::Known) {
        track = &writeApiSlice(call.tid, HostTrack::OclApi, start, end, call.name, call.index,
                               call.returnValue, call.params, call.comment, call.consecutiveCalls,
                               site);
    }
    const bool hasSlice = call.hasCommand && atp::deviceTimes(call.command) == atp::Times::Known;
    // Native kernels run host code: a kernel profile has no row for them.
    if (call.hasCommand && call.command.isKernel &&
        call.command.commandName != "CL_COMMAND_NATIVE_KERNEL") {
        noteKernel(profile::ProfileApi::OpenCL, call.start, call.command.kernelName, hasSlice);
    }
    if (!hasSlice) return;
    pid();
    DeviceCommand command;
    command.queue =
        queueIndex(kFamilyOcl, call.command.queueId, std::string(call.command.deviceName));
    command.kind = classifyCommand(call.command);
    command.start = call.command.start;
    command.end = call.command.end;
    command.name = command.kind == CommandClass::Kernel && !call.command.kernelName.empty()
                       ? call.command.kernelName
                       : std::string(call.command.commandName);
    command.args = oclCommandArgs(call);
    addEnqueuedCommand(std::move(command), track, start, end);
}

void PerfettoExporter::onHsaApiCall(const atp::HsaApiCall& call) {
    uint64_t start = call.start;
    uint64_t end = call.end;
    const Track* track = nullptr;
    const std::string_view site = callSite(atp::ApiFamily::Hsa, call.tid, call.index, call.name);
    if (atp::hostTimes(call) == atp::Times::Known) {
        track = &writeApiSlice(call.tid, HostTrack::HsaApi, start, end, call.name, call.index,
                               call.returnValue, call.params, {}, 1, site);
    }
    if (!call.hasTransferTimes || atp::transferTimes(call) != atp::Times::Known) return;
    pid();
    DeviceCommand command;
    command.queue = queueIndex(kFamilyHsaCopies, 0, {});
    command.kind = CommandClass::Memory;
    command.start = call.transferStart;
    command.end = call.transferEnd;
    command.name = std::string(call.name);
    command.args = "{\"thread\":" + std::to_string(call.tid) +
                   ",\"index\":" + std::to_string(call.index) + "}";
    addEnqueuedCommand(std::move(command), track, start, end);
}

void PerfettoExporter::onHsaKernelDispatch(const atp::HsaKernelDispatch& dispatch) {
    const bool hasSlice = atp::deviceTimes(dispatch) == atp::Times::Known;
    noteKernel(profile::ProfileApi::Hsa, dispatch.start, dispatch.kernelName, hasSlice);
    if (!hasSlice) return;
    pid();
    DeviceCommand command;
    command.queue = queueIndex(kFamilyHsa, dispatch.queueIndex, dispatch.agentName);
    command.kind = CommandClass::Kernel;
    command.start = dispatch.start;
    command.end = dispatch.end;
    command.name = dispatch.kernelName;
    command.args = hsaDispatchArgs(dispatch);
    addDeviceCommand(std::move(command));
}

void PerfettoExporter::onMarker(const atp::MarkerEvent& marker) {
    pid();
    Exporter::onMarker(marker);
}

void PerfettoExporter::writeMarker(const MarkerSpan& span) {
    Track& track = hostTrack(span.tid, HostTrack::Markers);
    m_event.clear();
    beginSlice(track.tid, span.begin, span.end, span.name, "marker");
    JsonObject args(m_event);
    args.string("group", span.group).number("depth", span.depth);
    if (!span.userString.empty()) args.string("user string", span.userString);
    if (span.unclosed) args.boolean("unclosed", true);
    args.close();
    m_event.push_back('}');
    m_writer.events(m_event);
}

size_t PerfettoExporter::queueIndex(int family, uint64_t queueId, const std::string& device) {
    QueueKey key{family, queueId, device};
    auto [it, inserted] = m_queueIds.try_emplace(key, m_queues.size());
    if (inserted) m_queues.push_back(std::move(key));
    return it->second;
}

// A command with a flow arrow from the middle of its enqueue call (`start`..`end` on `track`),
// when the call has a slice (`track` not null).
void PerfettoExporter::addEnqueuedCommand(DeviceCommand command, const Track* track, uint64_t start,
                                          uint64_t end) {
    command.hasFlow = track != nullptr;
    command.flowTid = track != nullptr ? track->tid : 0;
    command.flowTs = start + (end - start) / 2;
    addDeviceCommand(std::move(command));
}

void PerfettoExporter::addDeviceCommand(DeviceCommand command) {
    if (command.end < command.start) {
        command.end = command.start;
        ++m_clampedSlices;
    }
    const StoredCommand head{command.flowTid, command.flowTs, m_commandCount++,
                             static_cast<uint32_t>(command.name.size()), command.hasFlow ? 1u : 0u};
    m_commands.payload(&head, sizeof head);
    m_commands.payload(command.name.data(), command.name.size());
    m_commands.payload(command.args.data(), command.args.size());
    Interval interval;
    interval.start = command.start;
    interval.end = command.end;
    m_commands.add(
        static_cast<uint32_t>(command.queue * kCommandClasses + static_cast<size_t>(command.kind)),
        interval);
}

// A kernel dispatch in the order the profile is matched in; its slice, when it has one, is the
// next device command.
void PerfettoExporter::noteKernel(profile::ProfileApi api, uint64_t enqueueNs,
                                  const std::string& name, bool hasSlice) {
    if (m_profile == nullptr || m_profile->info.api != api) return;
    m_kernels.push_back(TraceKernel{enqueueNs, name, hasSlice ? m_commandCount : kNoSlot});
}

// Each matched dispatch's profile row goes into its slice's arguments as "profile"
// (docs/export.md#kernel-profiles).
void PerfettoExporter::attachProfile() {
    if (m_profile == nullptr) return;
    const ProfileMatch match = matchProfile(std::move(m_kernels), *m_profile, m_file);
    m_kernels.clear();
    for (auto& [slot, json] : match.args) m_profileArgs[slot] = std::move(json);
    if (!match.warning.empty()) m_warnings.add(match.warning);
}

void PerfettoExporter::endFile() {
    for (const callsites::CallSiteProblem& problem : m_callSites.problems()) {
        m_warnings.add(m_file + (problem.line != 0 ? ":" + std::to_string(problem.line) : "") +
                       ": " + problem.text);
    }
    m_callSites.clear();
    attachProfile();
    writeDeviceCommands();
    if (m_clampedSlices > 0) {
        m_warnings.add(m_file + ": " + std::to_string(m_clampedSlices) +
                       " slice(s) overlapped the previous one on their track; moved to keep "
                       "the tracks nested");
    }
    m_commands.clear();
    m_profileArgs.clear();
}

// A temporary file of device commands that failed (a full disk) fails the export: the timeline
// would miss commands.
bool PerfettoExporter::closeOutputs(std::string& error) {
    if (m_commands.failed()) {
        error = m_commands.error();
        m_writer.discard();
        return false;
    }
    return m_writer.finish(error);
}

// Commands of one queue and kind can overlap (out-of-order queues, several threads enqueuing
// to one queue, clock jitter): each goes to the first lane of its sub-track that is free at its
// start, so no lane ever holds crossing slices.
void PerfettoExporter::writeDeviceCommands() {
    std::vector<uint64_t> tids;  // per lane
    for (size_t location = 0; location < m_queues.size() * kCommandClasses; ++location) {
        const size_t queue = location / kCommandClasses;
        const auto kind = static_cast<CommandClass>(location % kCommandClasses);
        LaneAssigner lanes;
        tids.clear();
        IntervalStore::Reader commands = m_commands.read(static_cast<uint32_t>(location));
        while (const Interval* command = commands.next()) {
            const size_t lane = lanes.lane(*command);
            if (lane == tids.size()) {
                const QueueKey& key = m_queues[queue];
                std::string name =
                    queueTrackName(std::get<0>(key), std::get<1>(key), std::get<2>(key));
                name += " " + std::string(commandClassName(kind));
                if (lane > 0) name += " #" + std::to_string(lane + 1);
                const uint64_t sortIndex =
                    kDeviceSortBase + queue * 1000 + static_cast<uint64_t>(kind) * 100 + lane;
                tids.push_back(newTid(name, sortIndex));
            }
            writeLane(*command, commands.payload(), kind, tids[lane]);
        }
    }
}

// The command's slice and, for an enqueue, the flow from the call to it, in one group so that
// a split never separates the two ends of a flow.
void PerfettoExporter::writeLane(const Interval& command, const unsigned char* payload,
                                 CommandClass kind, uint64_t tid) {
    StoredCommand head;
    std::memcpy(&head, payload, sizeof head);
    const char* text = reinterpret_cast<const char*>(payload + sizeof head);
    const std::string_view name(text, head.nameBytes);
    std::string_view args(text + head.nameBytes,
                          command.payloadBytes - sizeof head - head.nameBytes);
    m_event.clear();
    beginSlice(tid, command.start, command.end, name, commandClassName(kind));
    const auto profile = m_profileArgs.find(head.slot);
    if (profile == m_profileArgs.end()) {
        m_event += args;
    } else {                    // the row goes in as "profile" (docs/export.md#kernel-profiles)
        args.remove_suffix(1);  // the closing brace
        m_event += args;
        if (args.size() > 1) m_event.push_back(',');
        m_event += "\"profile\":" + profile->second + "}";
    }
    m_event.push_back('}');
    if (head.hasFlow != 0) {
        const uint64_t id = m_nextFlowId++;
        const uint64_t middle = command.start + (command.end - command.start) / 2;
        m_event.push_back(',');
        JsonObject start(m_event);
        start.string("ph", "s").number("id", id).number("pid", m_pid).number("tid", head.flowTid);
        start.micros("ts", head.flowTs).string("name", "enqueue").string("cat", "enqueue");
        start.close();
        m_event.push_back(',');
        JsonObject finish(m_event);
        finish.string("ph", "f").string("bp", "e").number("id", id).number("pid", m_pid);
        finish.number("tid", tid).micros("ts", middle).string("name", "enqueue");
        finish.string("cat", "enqueue").close();
    }
    m_writer.events(m_event);
}

}  // namespace perfmarker::exporter
