// The marker summary (docs/summary.md#marker-summary): per (name, group) the count and durations of
// the markers, their self time (minus nested child markers), and the API calls made and the
// device time of commands enqueued on the marker's thread while it was open.
//
// Memory: the API calls of a file come before its Perfmarker section, so each call of the
// current file is kept as 24 bytes (start, end, device time) per thread, and each closed
// marker as 24 bytes, until the end of the file; aggregates only after that.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/format.h"
#include "analysis/summary.h"

namespace perfmarker::analysis {

class MarkerPages {
public:
    void onMarker(const atp::MarkerEvent& event);
    // An API call on thread `tid`; `deviceNs` is the device time of its command (0 if none).
    void onCall(uint64_t tid, uint64_t start, uint64_t end, uint64_t deviceNs);
    // Attributes the calls to the markers, notes markers left open, and forgets the file.
    void endFile(std::string_view file);
    void appendTables(std::vector<Table>& out) const;

private:
    struct Stats {
        DurationStats durations;
        uint64_t selfNs = 0;
        uint64_t apiCalls = 0;
        uint64_t apiNs = 0;
        uint64_t deviceNs = 0;
    };
    struct Open {
        std::string name;
        std::string group;
        uint64_t start = 0;
        uint64_t childNs = 0;
    };
    struct Closed {
        size_t stats;  // index into m_stats (an index, so that copies stay consistent)
        uint64_t start;
        uint64_t end;
    };
    struct Call {
        uint64_t start;
        uint64_t end;
        uint64_t deviceNs;
    };

    void close(uint64_t tid, const atp::Marker& marker, uint64_t line);
    void attributeCalls(std::vector<Call>& calls, const std::vector<Closed>& markers);
    void note(std::string text);

    std::map<std::pair<std::string, std::string>, size_t> m_index;  // name, group -> m_stats
    std::vector<Stats> m_stats;
    std::map<uint64_t, std::vector<Open>> m_open;  // per thread, this file
    std::map<uint64_t, std::vector<Closed>> m_closed;
    std::map<uint64_t, std::vector<Call>> m_calls;
    std::string m_file;
    uint64_t m_endsWithoutBegin = 0;
    uint64_t m_beginsWithoutEnd = 0;
    std::vector<std::string> m_notes;
    size_t m_droppedNotes = 0;
};

}  // namespace perfmarker::analysis
