#include "export/db/otf2_exporter.h"

#include <algorithm>
#include <cstring>

#include "atp/format/clock_anchors.h"

namespace perfmarker::exporter::db {
namespace {

constexpr int kFamilyOcl = 0;
constexpr int kFamilyHsa = 1;
constexpr int kFamilyHsaCopies = 2;  // hsa_amd_memory_async_copy: no queue
// Ranks of the intervals of a host thread at equal times (interval_nesting.h): markers by
// depth enclose the OpenCL call, which encloses the HSA calls the runtime made in it.
constexpr uint32_t kOclCallRank = 1u << 20;
constexpr uint32_t kHsaCallRank = kOclCallRank + 1;

struct AttributeInfo {
    const char* name;
    const char* description;
    Otf2Type type;
};

// By Otf2Exporter::Attribute (docs/otf2.md#attributes).
constexpr AttributeInfo kAttributes[] = {
    {"result", "the API call's return value as traced", Otf2Type::String},
    {"call index", "the call's position in its thread's block of the trace", Otf2Type::Uint64},
    {"calls", "consecutive calls of a collapsed clGetEventInfo line", Otf2Type::Uint64},
    {"command", "the command type (CL_COMMAND_...) or HSA packet type", Otf2Type::String},
    {"queue", "the queue id (OpenCL) or queue index (HSA)", Otf2Type::Uint64},
    {"thread", "the thread that enqueued the command", Otf2Type::Uint64},
    {"bytes", "the size of the transfer or data operation", Otf2Type::Uint64},
    {"global size", "the kernel's global work size as traced", Otf2Type::String},
    {"local size", "the kernel's local work size as traced", Otf2Type::String},
    {"kernel handle", "the kernel object", Otf2Type::String},
    {"queued", "when the command was queued, ns on the trace's clock", Otf2Type::Uint64},
    {"submit", "when the command was submitted, ns on the trace's clock", Otf2Type::Uint64},
    {"group", "the marker's group", Otf2Type::String},
    {"user string", "the marker's user string", Otf2Type::String},
    {"unclosed", "1: the marker never ended; closed at its thread's last time", Otf2Type::Uint8},
};
static_assert(std::size(kAttributes) == Otf2Exporter::kAttributeCount);

std::string queueName(int family, uint64_t queueId) {
    if (family == kFamilyHsaCopies) return "HSA async copies";
    return (family == kFamilyOcl ? "OpenCL queue " : "HSA queue ") + std::to_string(queueId);
}

}  // namespace

Otf2Exporter::Otf2Exporter(Otf2Options options) : m_options(std::move(options)) {}

Otf2Exporter::~Otf2Exporter() = default;

std::vector<std::string> Otf2Exporter::writtenFiles() const {
    if (!m_committed) return {};
    return {m_dir.target() + "/" + kOtf2AnchorName};
}

bool Otf2Exporter::ensureOpen() {
    if (m_openTried) return m_error.empty();
    m_openTried = true;
    if (!m_dir.create(m_options.archiveDir, m_options.replace, m_error)) return false;
    m_archive = std::make_unique<Otf2Archive>();
    if (!m_archive->open(m_dir.path(), kOtf2ArchiveName, "perfmarker export")) {
        m_error = m_dir.target() + ": " + m_archive->error();
        return false;
    }
    defineAttributes();
    m_intervals = std::make_unique<IntervalStore>(m_dir.path(), m_options.memoryBudget);
    m_lanes = std::make_unique<IntervalStore>(m_dir.path(), m_options.memoryBudget);
    Otf2Archive& archive = *m_archive;
    m_rootNode = archive.addSystemTreeNode(
        {archive.string("perfmarker export"), archive.string("machine"), kOtf2Undefined32});
    return true;
}

void Otf2Exporter::defineAttributes() {
    for (const AttributeInfo& info : kAttributes) {
        m_archive->addAttribute(
            {m_archive->string(info.name), m_archive->string(info.description), info.type});
    }
}

void Otf2Exporter::beginFile(std::string_view file) {
    m_file.assign(file);
    m_host.clear();
    m_threads.clear();
    m_queues.clear();
    m_firstCommand = UINT64_MAX;
    m_lastCommand = 0;
    m_accelerators.clear();
    if (ensureOpen()) m_intervals->clear();
}

void Otf2Exporter::onHeader(std::string_view key, std::string_view value,
                            atp::SourceLocation where) {
    Exporter::onHeader(key, value, where);
    if (key == atp::kHostNameKey) m_host.assign(value);
    if (key != atp::kClockAnchorStartKey || m_realtimeOffset) return;
    atp::ClockAnchor anchor;
    std::string problem;
    if (atp::parseClockAnchor(value, anchor, problem)) m_realtimeOffset = anchor.realtimeOffset();
}

uint32_t Otf2Exporter::region(RegionKind kind, std::string_view name, std::string_view group) {
    m_regionKey.assign(1, static_cast<char>(kind));
    m_regionKey.append(name);
    m_regionKey.push_back('\0');
    m_regionKey.append(group);
    const auto found = m_regions.find(m_regionKey);
    if (found != m_regions.end()) return found->second;
    Otf2Archive& archive = *m_archive;
    Otf2Region region;
    region.name = archive.string(name);
    std::string description;
    switch (kind) {
        case RegionKind::OclApi:
            description = "OpenCL API call";
            region.role = Otf2Role::Function;
            region.paradigm = Otf2Paradigm::OpenCl;
            break;
        case RegionKind::HsaApi:  // OTF2 has no paradigm for HSA
            description = "HSA API call";
            region.role = Otf2Role::Function;
            break;
        case RegionKind::Marker:
            description = "marker of group " + std::string(group);
            region.role = Otf2Role::Code;
            region.paradigm = Otf2Paradigm::User;
            break;
        case RegionKind::Kernel:
            description = "OpenCL kernel";
            region.role = Otf2Role::Function;
            region.paradigm = Otf2Paradigm::OpenCl;
            break;
        case RegionKind::HsaKernel:
            description = "HSA kernel dispatch";
            region.role = Otf2Role::Function;
            break;
        case RegionKind::Transfer:
            description = "OpenCL data transfer";
            region.role = Otf2Role::DataTransfer;
            region.paradigm = Otf2Paradigm::OpenCl;
            break;
        case RegionKind::HsaTransfer:
            description = "HSA async copy";
            region.role = Otf2Role::DataTransfer;
            break;
        case RegionKind::Command:
            description = "OpenCL command";
            region.paradigm = Otf2Paradigm::OpenCl;
            break;
    }
    region.description = archive.string(description);
    const uint32_t id = archive.addRegion(region);
    m_regions.emplace(m_regionKey, id);
    return id;
}

void Otf2Exporter::number(Attribute attribute, uint64_t value) {
    const AttributeValue stored{attribute, static_cast<uint32_t>(kAttributes[attribute].type),
                                value};
    m_intervals->payload(&stored, sizeof stored);
}

void Otf2Exporter::text(Attribute attribute, std::string_view value) {
    const AttributeValue stored{attribute, static_cast<uint32_t>(Otf2Type::String),
                                m_archive->string(value)};
    m_intervals->payload(&stored, sizeof stored);
}

// Locations in m_intervals are numbered in the order the file first names them.
uint32_t Otf2Exporter::threadLocation(uint64_t tid) {
    const auto next = static_cast<uint32_t>(m_threads.size() + m_queues.size());
    return m_threads.try_emplace(tid, next).first->second;
}

uint32_t Otf2Exporter::queueLocation(QueueKey key) {
    const auto next = static_cast<uint32_t>(m_threads.size() + m_queues.size());
    return m_queues.try_emplace(std::move(key), next).first->second;
}

// An interval with the attributes given since the last one.
void Otf2Exporter::addInterval(uint32_t location, uint64_t start, uint64_t end, uint32_t region,
                               uint32_t rank) {
    Interval interval;
    interval.start = start;
    interval.end = end;
    interval.region = region;
    interval.rank = rank;
    m_intervals->add(location, interval);
}

// Calls and commands whose times are unknown or end before they start are left out and counted
// (docs/format.md#unknown-times).
void Otf2Exporter::onOclApiCall(const atp::OclApiCall& call) {
    if (!m_archive || !m_error.empty()) return;
    if (atp::hostTimes(call) == atp::Times::Known) {
        m_markers.noteTime(call.tid, call.end);
        if (!call.returnValue.empty()) text(kResult, call.returnValue);
        number(kCallIndex, call.index);
        if (call.consecutiveCalls > 1) number(kCalls, call.consecutiveCalls);
        addInterval(threadLocation(call.tid), call.start, call.end,
                    region(RegionKind::OclApi, call.name), kOclCallRank);
        ++m_counts.apiCalls;
    } else {
        ++m_counts.callsLeftOut;
    }
    if (!call.hasCommand) return;
    if (atp::deviceTimes(call.command) != atp::Times::Known) {
        ++m_counts.commandsLeftOut;
        return;
    }
    addOclCommand(call);
}

void Otf2Exporter::addOclCommand(const atp::OclApiCall& call) {
    const atp::OclCommand& command = call.command;
    const CommandClass kind = classifyCommand(command);
    uint32_t id = 0;
    if (kind == CommandClass::Kernel) {
        id = region(RegionKind::Kernel,
                    command.kernelName.empty() ? command.commandName : command.kernelName);
    } else {
        id = region(kind == CommandClass::Memory ? RegionKind::Transfer : RegionKind::Command,
                    command.commandName);
    }
    text(kCommand, command.commandName);
    number(kQueue, command.queueId);
    number(kThread, call.tid);
    number(kCallIndex, call.index);
    if (command.hasDataSize) number(kBytes, command.dataSize);
    if (command.isKernel) {
        if (!command.globalSize.empty()) text(kGlobalSize, command.globalSize);
        if (!command.localSize.empty()) text(kLocalSize, command.localSize);
        if (!command.kernelHandle.empty()) text(kKernelHandle, command.kernelHandle);
    }
    if (command.queued != 0) number(kQueued, command.queued);  // 0: unknown, left out
    if (command.submit != 0) number(kSubmit, command.submit);
    addInterval(queueLocation({kFamilyOcl, command.queueId, std::string(command.deviceName)}),
                command.start, command.end, id);
    m_firstCommand = std::min(m_firstCommand, command.start);
    m_lastCommand = std::max(m_lastCommand, command.end);
    ++m_counts.commands;
}

void Otf2Exporter::onHsaApiCall(const atp::HsaApiCall& call) {
    if (!m_archive || !m_error.empty()) return;
    if (atp::hostTimes(call) == atp::Times::Known) {
        m_markers.noteTime(call.tid, call.end);
        if (!call.returnValue.empty()) text(kResult, call.returnValue);
        number(kCallIndex, call.index);
        addInterval(threadLocation(call.tid), call.start, call.end,
                    region(RegionKind::HsaApi, call.name), kHsaCallRank);
        ++m_counts.apiCalls;
    } else {
        ++m_counts.callsLeftOut;
    }
    if (!call.hasTransferTimes) return;
    if (atp::transferTimes(call) != atp::Times::Known) {
        ++m_counts.commandsLeftOut;
        return;
    }
    number(kThread, call.tid);
    number(kCallIndex, call.index);
    addInterval(queueLocation({kFamilyHsaCopies, 0, {}}), call.transferStart, call.transferEnd,
                region(RegionKind::HsaTransfer, call.name));
    m_firstCommand = std::min(m_firstCommand, call.transferStart);
    m_lastCommand = std::max(m_lastCommand, call.transferEnd);
    ++m_counts.commands;
}

void Otf2Exporter::onHsaKernelDispatch(const atp::HsaKernelDispatch& dispatch) {
    if (!m_archive || !m_error.empty()) return;
    if (atp::deviceTimes(dispatch) != atp::Times::Known) {
        ++m_counts.commandsLeftOut;
        return;
    }
    text(kCommand, dispatch.packetType);
    if (dispatch.hasQueueIndex) number(kQueue, dispatch.queueIndex);
    if (!dispatch.kernelHandle.empty()) text(kKernelHandle, dispatch.kernelHandle);
    addInterval(queueLocation({kFamilyHsa, dispatch.queueIndex, dispatch.agentName}),
                dispatch.start, dispatch.end, region(RegionKind::HsaKernel, dispatch.kernelName));
    m_firstCommand = std::min(m_firstCommand, dispatch.start);
    m_lastCommand = std::max(m_lastCommand, dispatch.end);
    ++m_counts.commands;
}

void Otf2Exporter::writeMarker(const MarkerSpan& span) {
    if (!m_archive || !m_error.empty()) return;
    text(kGroup, span.group);
    if (!span.userString.empty()) text(kUserString, span.userString);
    if (span.unclosed) number(kUnclosed, 1);
    addInterval(threadLocation(span.tid), span.begin, span.end,
                region(RegionKind::Marker, span.name, span.group), span.depth);
    ++m_counts.markers;
}

// The events of one location of `store`, merged from its runs.
void Otf2Exporter::writeLocation(IntervalStore& store, uint32_t location, const std::string& name,
                                 Otf2LocationType type, uint32_t group) {
    Otf2Archive& archive = *m_archive;
    archive.beginLocation(m_nextLocation++, archive.string(name), type, group);
    IntervalStore::Reader intervals = store.read(location);
    const auto enter = [&](const Interval& interval) {
        const unsigned char* payload = intervals.payload();
        for (uint32_t at = 0; at + sizeof(AttributeValue) <= interval.payloadBytes;
             at += sizeof(AttributeValue)) {
            AttributeValue value;
            std::memcpy(&value, payload + at, sizeof value);
            if (value.type == static_cast<uint32_t>(Otf2Type::String)) {
                archive.addString(value.attribute, static_cast<uint32_t>(value.value));
            } else if (value.type == static_cast<uint32_t>(Otf2Type::Uint8)) {
                archive.addUint8(value.attribute, static_cast<uint8_t>(value.value));
            } else {
                archive.addUint64(value.attribute, value.value);
            }
        }
        archive.enter(interval.start, interval.region);
        m_firstTime = std::min(m_firstTime, interval.start);
    };
    const auto leave = [&](uint32_t region, uint64_t time) {
        archive.leave(time, region);
        m_lastTime = std::max(m_lastTime, time);
    };
    const uint64_t cut = visitNested([&] { return intervals.next(); }, enter, leave);
    archive.endLocation();
    if (cut > 0) {
        m_warnings.add(m_file + ": " + name + ": " + std::to_string(cut) +
                       " interval(s) ended after the one they started in; cut to end with it "
                       "to keep the OTF2 location nested");
    }
}

uint32_t Otf2Exporter::hostNode() {
    const std::string host = m_host.empty() ? "unknown host" : m_host;
    auto [it, inserted] = m_hostNodes.try_emplace(host, 0);
    if (inserted) {
        it->second = m_archive->addSystemTreeNode(
            {m_archive->string(host), m_archive->string("node"), m_rootNode});
    }
    return it->second;
}

uint32_t Otf2Exporter::acceleratorGroup(const std::string& device, uint32_t processGroup) {
    auto [it, inserted] = m_accelerators.try_emplace(device, 0);
    if (!inserted) return it->second;
    Otf2Archive& archive = *m_archive;
    const std::string deviceName = device.empty() ? "HSA async copies" : device;
    // One node per device of a host, whatever the number of processes that used it.
    const uint32_t host = hostNode();
    auto [node, added] = m_deviceNodes.try_emplace({host, deviceName}, 0);
    if (added) {
        node->second = archive.addSystemTreeNode(
            {archive.string(deviceName), archive.string("accelerator"), host});
    }
    it->second = archive.addLocationGroup({archive.string(deviceName + " of " + m_processName),
                                           Otf2GroupType::Accelerator, node->second, processGroup});
    return it->second;
}

void Otf2Exporter::writeThreads(uint32_t processGroup, uint64_t pid) {
    if (m_threads.empty()) {
        writeMainThread(processGroup, pid);
        return;
    }
    size_t done = 0;
    for (const auto& [tid, location] : m_threads) {
        writeLocation(*m_intervals, location, "Thread " + std::to_string(tid),
                      Otf2LocationType::CpuThread, processGroup);
        if (m_options.progress != nullptr) {
            m_options.progress->step("writing the OTF2 events of " + m_file, ++done,
                                     m_threads.size() + m_queues.size());
        }
    }
}

// A process location group holds at least one CPU thread, and a location without events
// trips the OTF2 reader (docs/otf2.md#what-goes-where): a process with device records only (an
// HSA trace of kernel dispatches) gets its main thread with the measurement window of those
// records, a MeasurementOnOff pair and no region.
void Otf2Exporter::writeMainThread(uint32_t processGroup, uint64_t pid) {
    Otf2Archive& archive = *m_archive;
    archive.beginLocation(m_nextLocation++, archive.string("Thread " + std::to_string(pid)),
                          Otf2LocationType::CpuThread, processGroup);
    archive.measurement(m_firstCommand, true);
    archive.measurement(m_lastCommand, false);
    archive.endLocation();
}

void Otf2Exporter::writeQueues(uint32_t processGroup) {
    size_t done = m_threads.size();
    for (const auto& [key, location] : m_queues) {
        const auto& [family, queueId, device] = key;
        const uint32_t group = acceleratorGroup(device, processGroup);
        // The queue's commands in nesting order, each to its lane, then lane by lane.
        LaneAssigner lanes;
        IntervalStore::Reader commands = m_intervals->read(location);
        while (const Interval* command = commands.next()) {
            m_lanes->payload(commands.payload(), command->payloadBytes);
            m_lanes->add(static_cast<uint32_t>(lanes.lane(*command)), *command);
        }
        for (size_t lane = 0; lane < lanes.lanes(); ++lane) {
            std::string name = queueName(family, queueId);
            if (lane > 0) name += " #" + std::to_string(lane + 1);
            writeLocation(*m_lanes, static_cast<uint32_t>(lane), name,
                          Otf2LocationType::AcceleratorStream, group);
        }
        m_lanes->clear();
        if (m_options.progress != nullptr) {
            m_options.progress->step("writing the OTF2 events of " + m_file, ++done,
                                     m_threads.size() + m_queues.size());
        }
    }
}

void Otf2Exporter::endFile() {
    if (!m_archive || !m_error.empty()) return;
    const uint64_t pid = m_processIds.pid(m_warnings);
    if (m_threads.empty() && m_queues.empty()) {
        // No location could hold anything: the process is not in the archive.
        m_warnings.add(m_file + ": no record with usable times; the process is not in the archive");
        return;
    }
    Otf2Archive& archive = *m_archive;
    const std::string host = m_host.empty() ? "unknown host" : m_host;
    m_processName = host + ":" + std::to_string(pid) + " (" + traceBaseName(m_file) + ")";
    const uint32_t group = archive.addLocationGroup(
        {archive.string(m_processName), Otf2GroupType::Process, hostNode(), kOtf2Undefined32});
    ++m_counts.processes;
    writeThreads(group, pid);
    writeQueues(group);
    m_threads.clear();
    m_queues.clear();
    if (archive.failed()) {
        m_error = m_dir.target() + ": " + archive.error();
    } else if (m_intervals->failed() || m_lanes->failed()) {
        m_error = (m_intervals->failed() ? m_intervals : m_lanes)->error();
    }
    m_intervals->clear();
}

bool Otf2Exporter::closeOutputs(std::string& error) {
    ensureOpen();
    if (m_error.empty()) {
        Otf2Clock clock;
        if (m_firstTime <= m_lastTime) {
            clock.globalOffset = m_firstTime;
            clock.traceLength = m_lastTime - m_firstTime;
        }
        if (m_realtimeOffset) {
            clock.realtime =
                static_cast<uint64_t>(static_cast<int64_t>(clock.globalOffset) + *m_realtimeOffset);
        }
        if (!m_archive->close(clock)) m_error = m_dir.target() + ": " + m_archive->error();
    }
    m_archive.reset();
    if (m_error.empty() && m_dir.commit(m_error)) {
        m_committed = true;
        return true;
    }
    error = m_error;
    m_dir.discard();
    return false;
}

void Otf2Exporter::discardOutputs() {
    m_archive.reset();
    m_dir.discard();
}

}  // namespace perfmarker::exporter::db
