// The Perfetto / Chrome JSON exporter (docs/export.md): one process per traced file, per host
// thread a track of OpenCL API calls, one of HSA API calls and one of markers, per command
// queue one track per kind of command (kernels, memory, other) with extra lanes where
// commands overlap, and a flow arrow from each enqueue call to its command. A trace given with its
// kernel profile gets each dispatch's profile row in its kernel slice's arguments
// (export/profile_attach.h). An API call with a call site in the trace's Stack Trace section gets
// it in its slice's arguments: the section comes after the calls, so it is read ahead
// (analysis/callsites/call_site_reader.h, docs/export.md#call-sites).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "analysis/callsites/call_sites.h"
#include "export/exporter.h"
#include "export/interval_store.h"
#include "export/profile_attach.h"
#include "export/split_json_writer.h"
#include "profile/read/csv_reader.h"

namespace perfmarker::exporter {

struct PerfettoOptions {
    std::string outputPath;                       // the first part; see SplitJsonWriter
    uint64_t maxFileBytes = uint64_t{256} << 20;  // per part
    // Bytes of device commands kept in memory before they go to a temporary file next to the
    // output (docs/export.md#memory).
    size_t memoryBudget = size_t{32} << 20;
};

class PerfettoExporter : public Exporter {
public:
    explicit PerfettoExporter(PerfettoOptions options);

    // Kernel profiles, before the first file: profiles[i] goes with the i-th traced file; files
    // beyond the list have none (docs/export.md#kernel-profiles).
    void setProfiles(std::vector<profile::ProfileCsv> profiles) {
        m_profiles = std::move(profiles);
    }

    void onHeader(std::string_view key, std::string_view value, atp::SourceLocation where) override;
    void onSection(atp::SectionKind kind, std::string_view name,
                   atp::SourceLocation where) override;
    void onOclApiCall(const atp::OclApiCall& call) override;
    void onHsaApiCall(const atp::HsaApiCall& call) override;
    void onHsaKernelDispatch(const atp::HsaKernelDispatch& dispatch) override;
    void onMarker(const atp::MarkerEvent& marker) override;
    std::vector<std::string> writtenFiles() const override { return m_writer.files(); }
    std::vector<std::string> removedFiles() const override { return m_writer.removedFiles(); }

private:
    // A track is a tid of the file's process. Slices on it never overlap or cross: `floor` is
    // where the last one ended (see clampSlice).
    struct Track {
        uint64_t tid = 0;
        uint64_t floor = 0;
    };
    enum class HostTrack : uint8_t { OclApi, HsaApi, Markers };
    struct HostThread {
        std::map<HostTrack, Track> tracks;
        uint64_t order = 0;  // first appearance, for the track order
    };
    // A device command waiting for the end of its file, when its queue's lanes are known. It
    // waits in m_commands (location: queue and kind), its name and arguments as its payload.
    struct DeviceCommand {
        size_t queue = 0;  // index into m_queues
        CommandClass kind = CommandClass::Other;
        uint64_t start = 0;
        uint64_t end = 0;
        std::string name;
        std::string args;  // rendered JSON object
        bool hasFlow = false;
        uint64_t flowTid = 0;  // the enqueue call's track and its middle
        uint64_t flowTs = 0;
    };
    // The payload's head; the name and the arguments follow it.
    struct StoredCommand {
        uint64_t flowTid;
        uint64_t flowTs;
        uint64_t slot;  // the file's commands before this one (TraceKernel::slot)
        uint32_t nameBytes;
        uint32_t hasFlow;
    };
    using QueueKey = std::tuple<int, uint64_t, std::string>;  // family, queue id, device

    void beginFile(std::string_view file) override;
    void writeMarker(const MarkerSpan& span) override;
    void endFile() override;
    bool closeOutputs(std::string& error) override;
    void discardOutputs() override { m_writer.discard(); }
    uint64_t pid();
    Track& hostTrack(uint64_t tid, HostTrack kind);
    uint64_t newTid(const std::string& name, uint64_t sortIndex);
    void threadMetadata(uint64_t tid, const std::string& name, uint64_t sortIndex);
    void clampSlice(Track& track, uint64_t& start, uint64_t& end);
    size_t queueIndex(int family, uint64_t queueId, const std::string& device);
    Track& writeApiSlice(uint64_t tid, HostTrack kind, uint64_t& start, uint64_t& end,
                         std::string_view name, uint64_t index, std::string_view returnValue,
                         const std::vector<std::string_view>& params, std::string_view comment,
                         uint64_t consecutiveCalls, std::string_view callSite);
    std::string_view callSite(atp::ApiFamily family, uint64_t tid, uint64_t index,
                              std::string_view api);
    void addEnqueuedCommand(DeviceCommand command, const Track* track, uint64_t start,
                            uint64_t end);
    void addDeviceCommand(DeviceCommand command);
    void writeDeviceCommands();
    void writeLane(const Interval& command, const unsigned char* payload, CommandClass kind,
                   uint64_t tid);
    void beginSlice(uint64_t tid, uint64_t start, uint64_t end, std::string_view name,
                    std::string_view category);
    void noteKernel(profile::ProfileApi api, uint64_t enqueueNs, const std::string& name,
                    bool hasSlice);
    void attachProfile();

    SplitJsonWriter m_writer;
    std::vector<profile::ProfileCsv> m_profiles;
    std::string m_event;  // the event being built (reused, so it keeps its capacity)
    uint64_t m_nextFlowId = 1;

    // Per traced file.
    std::string m_file;
    std::string m_application;
    uint64_t m_pid = 0;
    uint64_t m_nextTid = 0;
    std::map<uint64_t, HostThread> m_threads;
    std::map<QueueKey, size_t> m_queueIds;
    std::vector<QueueKey> m_queues;
    IntervalStore m_commands;
    uint64_t m_commandCount = 0;
    std::map<size_t, std::string> m_profileArgs;  // by slot: the matched profile rows
    uint64_t m_clampedSlices = 0;
    size_t m_fileIndex = 0;                          // of the next file
    const profile::ProfileCsv* m_profile = nullptr;  // the current file's, if any
    std::vector<TraceKernel> m_kernels;              // its kernel dispatches, in arrival order
    callsites::CallSiteIndex m_callSites;            // its Stack Trace lines, read ahead
    callsites::BlockCounter m_callBlocks;
    bool m_callSitesUnread = false;  // a Stack Trace section the read-ahead did not see
};

}  // namespace perfmarker::exporter
