// Pairs the Begin / End / EndEx marker lines of each thread into spans (what every exporter
// shows), and keeps the spans of one thread properly nested whatever the input holds.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "atp/read/trace_events.h"
#include "export/export_common.h"

namespace perfmarker::exporter {

struct MarkerSpan {
    uint64_t tid = 0;
    std::string name;
    std::string group;
    std::string userString;
    uint64_t begin = 0;     // ns
    uint64_t end = 0;       // ns, >= begin
    uint32_t depth = 0;     // 0 for an outermost marker
    bool unclosed = false;  // never ended; closed at the thread's last timestamp
};

// Spans come out when they end (inner before outer), unclosed ones at endFile().
//
// Nesting is guaranteed, not assumed: a span never starts before its parent's start or before
// its previous sibling's end, and never ends before its last child's end. Timestamps that go
// backwards (a broken or hand-made trace) are moved forward to satisfy that, and counted in a
// warning, so the exporters can never write crossing slices.
class MarkerMatcher {
public:
    using Sink = std::function<void(const MarkerSpan&)>;
    explicit MarkerMatcher(Sink sink) : m_sink(std::move(sink)) {}

    void beginFile(std::string_view file);
    void add(const atp::MarkerEvent& event, WarningLog& warnings);
    // The latest time seen on a thread by other records (API calls): where unclosed markers
    // of the thread end.
    void noteTime(uint64_t tid, uint64_t timestampNs);
    void endFile(WarningLog& warnings);

private:
    struct Open {
        MarkerSpan span;
        uint64_t floor = 0;  // the earliest start of the next child, the earliest end of this
    };
    struct Thread {
        std::vector<Open> stack;
        uint64_t floor = 0;
        uint64_t lastTime = 0;
    };
    void begin(Thread& thread, uint64_t tid, const atp::Marker& marker);
    void end(Thread& thread, const atp::Marker& marker, const atp::MarkerEvent& event,
             WarningLog& warnings);
    void close(Thread& thread, uint64_t timestampNs, bool unclosed);

    Sink m_sink;
    std::string m_file;
    std::map<uint64_t, Thread> m_threads;  // ordered: unclosed spans come out by tid
    uint64_t m_clamped = 0;
};

}  // namespace perfmarker::exporter
