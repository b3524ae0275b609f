// The OTF2 exporter (docs/otf2.md): one OTF2 archive for all the traces of an export, written
// with the OTF2 library. Per traced process a location group (host and pid in its name) with a
// CPU-thread location per host thread (its API calls and markers, nested), and per device an
// accelerator location group with an accelerator-stream location per command queue (extra
// lanes where commands overlap). Regions are the API, marker, kernel and command names; the
// useful fields of each record are attributes of its enter event. Calls and commands without
// usable times are left out and counted (docs/export.md#unknown-times).
//
// Memory: a trace's intervals are kept until the end of its file (a thread's markers come after
// its calls in the file), in memory up to a budget and past it in sorted runs in a temporary
// file in the archive's staging directory (export/interval_store.h); the events are then written
// location by location, each merged from its runs (docs/otf2.md#memory).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "export/db/db_output.h"
#include "export/db/export_progress.h"
#include "export/db/interval_nesting.h"
#include "export/db/otf2_archive.h"
#include "export/exporter.h"
#include "export/interval_store.h"

namespace perfmarker::exporter::db {

struct Otf2Options {
    std::string archiveDir;  // the archive's directory: <dir>/traces.otf2, <dir>/traces.def, ...
    bool replace = false;    // replace an existing archive (--force)
    ExportProgress* progress = nullptr;
    // Bytes of intervals kept in memory before they go to the temporary file; the queues' lanes
    // take as much again while a queue is written.
    size_t memoryBudget = size_t{32} << 20;
};

class Otf2Exporter : public Exporter, public CountedExport {
public:
    explicit Otf2Exporter(Otf2Options options);
    ~Otf2Exporter() override;

    void onHeader(std::string_view key, std::string_view value, atp::SourceLocation where) override;
    void onOclApiCall(const atp::OclApiCall& call) override;
    void onHsaApiCall(const atp::HsaApiCall& call) override;
    void onHsaKernelDispatch(const atp::HsaKernelDispatch& dispatch) override;
    // The archive's anchor file (<dir>/traces.otf2) once the archive is in place.
    std::vector<std::string> writtenFiles() const override;
    ExportCounts counts() const override { return m_counts; }

    // The attributes of the enter events, in the order they are defined (docs/otf2.md).
    enum Attribute : uint32_t {
        kResult,
        kCallIndex,
        kCalls,
        kCommand,
        kQueue,
        kThread,
        kBytes,
        kGlobalSize,
        kLocalSize,
        kKernelHandle,
        kQueued,
        kSubmit,
        kGroup,
        kUserString,
        kUnclosed,
        kAttributeCount
    };

private:
    enum class RegionKind : char {
        OclApi = 'c',
        HsaApi = 'h',
        Marker = 'm',
        Kernel = 'k',
        HsaKernel = 'd',
        Transfer = 't',
        HsaTransfer = 'a',
        Command = 'o'
    };
    // One attribute of an interval, as its payload in the interval store holds it.
    struct AttributeValue {
        uint32_t attribute;
        uint32_t type;   // Otf2Type
        uint64_t value;  // a number, or a string reference
    };
    // Family (OpenCL, HSA, HSA async copies), queue id or index, device.
    using QueueKey = std::tuple<int, uint64_t, std::string>;

    void beginFile(std::string_view file) override;
    void writeMarker(const MarkerSpan& span) override;
    void endFile() override;
    bool closeOutputs(std::string& error) override;
    void discardOutputs() override;

    bool ensureOpen();
    void defineAttributes();
    uint32_t region(RegionKind kind, std::string_view name, std::string_view group = {});
    void number(Attribute attribute, uint64_t value);
    void text(Attribute attribute, std::string_view value);
    uint32_t threadLocation(uint64_t tid);
    uint32_t queueLocation(QueueKey key);
    void addInterval(uint32_t location, uint64_t start, uint64_t end, uint32_t region,
                     uint32_t rank = 0);
    void addOclCommand(const atp::OclApiCall& call);
    void writeLocation(IntervalStore& store, uint32_t location, const std::string& name,
                       Otf2LocationType type, uint32_t group);
    uint32_t hostNode();
    uint32_t acceleratorGroup(const std::string& device, uint32_t processGroup);
    void writeThreads(uint32_t processGroup, uint64_t pid);
    void writeMainThread(uint32_t processGroup, uint64_t pid);
    void writeQueues(uint32_t processGroup);

    Otf2Options m_options;
    StagedDirectory m_dir;  // declared before the archive: removed after it is closed
    std::unique_ptr<Otf2Archive> m_archive;
    bool m_openTried = false;
    bool m_committed = false;
    std::string m_error;
    ExportCounts m_counts;
    std::unordered_map<std::string, uint32_t> m_regions;  // kind, name, '\0', group
    std::string m_regionKey;                              // reused for lookups
    std::map<std::string, uint32_t> m_hostNodes;
    std::map<std::pair<uint32_t, std::string>, uint32_t> m_deviceNodes;  // host node, device
    uint32_t m_rootNode = 0;
    uint64_t m_nextLocation = 0;
    uint64_t m_firstTime = UINT64_MAX;
    uint64_t m_lastTime = 0;
    std::optional<int64_t> m_realtimeOffset;  // of the first trace with clock anchors

    // Per traced file.
    std::string m_file;
    std::string m_host;
    std::string m_processName;  // "<host>:<pid> (<trace>)"
    // The intervals of the file's threads and queues, by their locations in m_intervals.
    std::unique_ptr<IntervalStore> m_intervals;
    std::unique_ptr<IntervalStore> m_lanes;  // of the queue being written, by lane
    std::map<uint64_t, uint32_t> m_threads;
    std::map<QueueKey, uint32_t> m_queues;
    uint64_t m_firstCommand = UINT64_MAX;  // when the file's device records start and end
    uint64_t m_lastCommand = 0;
    std::map<std::string, uint32_t> m_accelerators;  // device -> location group
};

}  // namespace perfmarker::exporter::db
