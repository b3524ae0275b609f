// The timeline of the HTML report: a compact model of what happened when, per process. Host
// threads carry marker slices (nested) and API-call slices; command queues carry the device
// commands (kernels, transfers, other). A TimelineCollector builds it from the typed records of
// one or more traces; the number of slices kept is capped so that a huge trace still gives a
// page a browser can open (markers are kept first, then the longest slices, and the page says
// how many were left out). Calls and commands without times, or ending before they start, are
// not drawn (docs/format.md#unknown-times): the page says how many. An API call with a call
// site in the trace's Stack Trace section gets it in its details (docs/report.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/callsites/call_sites.h"
#include "atp/read/trace_parser.h"

namespace perfmarker::report {

inline constexpr size_t kDefaultMaxItems = 200000;

enum class ItemKind : uint8_t { Marker, Api, Kernel, Memory, Other };
enum class TrackKind : uint8_t { Thread, Queue };

// A row group of the timeline: one host thread or one command queue of one process.
struct Track {
    uint32_t process = 0;  // index into Timeline::processes
    TrackKind kind = TrackKind::Thread;
    std::string label;  // "thread 4711", "OpenCL queue 0 (pthread-cpu)", "HSA queue 1 (gfx900)"
};

struct Process {
    uint64_t pid = 0;  // ProcessId= of the trace; a stand-in number when it has none or repeats one
    std::string name;  // the input file's name
    std::string application;
};

// One slice. Times are ns on the traces' host clock. Names are indices into the timeline's
// string table (a name repeated a million times is stored once); details are mostly unique
// (parameters, user strings), so they live with the item and go away when the cap drops it.
struct Item {
    uint64_t start = 0;
    uint64_t end = 0;
    uint32_t track = 0;
    uint32_t name = 0;
    std::string details;  // "key=value" lines shown on hover
    ItemKind kind = ItemKind::Api;
    // An API call's place in its section (callsites::CallKey; the tid is its track's), by
    // which its call site is found at the end of its file. (In this order, the item is packed.)
    bool hsaCall = false;
    uint16_t depth = 0;  // marker nesting level (0 = outermost)
    uint32_t callBlock = 0;
    uint64_t callIndex = 0;
    uint64_t duration() const { return end > start ? end - start : 0; }
};

struct Timeline {
    std::vector<Process> processes;
    std::vector<Track> tracks;
    std::vector<std::string> strings;   // strings[0] == ""
    std::vector<Item> items;            // sorted by (track, start)
    uint64_t totalItems = 0;            // before the cap
    std::vector<std::string> warnings;  // e.g. markers left open at the end of a trace
};

class TimelineCollector : public atp::TraceListener {
public:
    explicit TimelineCollector(size_t maxItems = kDefaultMaxItems);

    // The collected timeline (items sorted, at most maxItems of them). Call once, at the end.
    Timeline take();

    void onFileBegin(std::string_view file) override;
    void onHeader(std::string_view key, std::string_view value, atp::SourceLocation where) override;
    void onOclApiCall(const atp::OclApiCall& call) override;
    void onHsaApiCall(const atp::HsaApiCall& call) override;
    void onHsaKernelDispatch(const atp::HsaKernelDispatch& dispatch) override;
    void onMarker(const atp::MarkerEvent& marker) override;
    void onSection(atp::SectionKind kind, std::string_view name,
                   atp::SourceLocation where) override;
    void onStackEntry(const atp::StackEntry& entry) override;
    void onFileEnd(std::string_view file) override;

private:
    struct OpenMarker {
        uint64_t start;
        std::string name;
        std::string group;
        std::string userString;
    };

    Item apiItem(const callsites::CallKey& call, uint64_t start, uint64_t end,
                 std::string_view name, std::string_view returnValue,
                 const std::vector<std::string_view>& params);
    void attachCallSites();
    uint32_t threadTrack(uint64_t tid);
    // (API family: 0 OpenCL, 1 HSA, 2 HSA copies; agent; queue). The label is made once.
    using QueueKey = std::tuple<int, uint64_t, uint64_t>;
    uint32_t queueTrack(const QueueKey& key, const std::function<std::string()>& label);
    uint32_t newTrack(TrackKind kind, const std::function<std::string()>& label);
    uint32_t intern(std::string_view text);
    // Whether an interval can be drawn (docs/format.md#unknown-times); counts those that
    // cannot, for the file's notices.
    bool drawable(uint64_t start, uint64_t end, const atp::SourceLocation& where);
    void noteUndrawn();
    void add(Item&& item);
    void prune(size_t keep);
    void closeMarker(uint64_t tid, OpenMarker&& open, uint64_t end, const atp::Marker* ending);
    void closeOpenMarkers();
    void assignPids();
    void sortTracks();

    size_t m_maxItems;
    Timeline m_timeline;
    std::unordered_map<std::string, uint32_t> m_stringIndex;
    // Per file: tracks by tid / queue key, open markers by tid; pid fixed at the header's end.
    std::map<uint64_t, uint32_t> m_threadTracks;
    std::map<QueueKey, uint32_t> m_queueTracks;
    std::map<uint64_t, std::vector<OpenMarker>> m_openMarkers;
    uint64_t m_lastTime = 0;  // latest time seen in the current file (closes open markers)
    bool m_inFile = false;
    // Slices of the current file that are not drawn: without times, and ending before they
    // start (with where the first of these is).
    uint64_t m_unknown = 0;
    uint64_t m_endsBeforeStart = 0;
    std::string m_firstEndsBeforeStart;
    // The current file's Stack Trace lines, and its calls' places in their sections.
    callsites::CallSiteIndex m_callSites;
    callsites::BlockCounter m_callBlocks;
};

// "1.234 ms", "56.7 us", "890 ns": durations for people.
std::string formatDuration(uint64_t ns);

}  // namespace perfmarker::report
