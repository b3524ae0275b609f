// The timeline of one OTF2 location as enter and leave events (docs/otf2.md#nesting): OTF2
// requires every location's regions to be properly nested and its events in time order, while a
// trace gives the API calls and the markers of a thread in separate sections, and the commands
// of a queue overlapping where the queue runs out of order. Intervals of a host thread are
// nested (one that starts inside another and ends after it is cut to end with it, and counted);
// the commands of a queue are spread over lanes, each of which holds no overlap at all.
// Both work on a stream of intervals in nesting order (export/interval_store.h gives them so),
// so that a location of any length is written in bounded memory.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "export/interval_store.h"

namespace perfmarker::exporter::db {

// Calls enter(interval) and leave(region, time) for the intervals that next() gives in nesting
// order (a pointer, nullptr after the last), properly nested and in time order. Returns how
// many intervals were cut to end with the interval they started in.
template <typename Next, typename Enter, typename Leave>
uint64_t visitNested(Next&& next, Enter&& enter, Leave&& leave) {
    std::vector<std::pair<uint64_t, uint32_t>> open;  // end (cut), region
    uint64_t cut = 0;
    while (const Interval* interval = next()) {
        while (!open.empty() && open.back().first <= interval->start) {
            leave(open.back().second, open.back().first);
            open.pop_back();
        }
        uint64_t end = interval->end;
        if (!open.empty() && end > open.back().first) {
            end = open.back().first;
            ++cut;
        }
        enter(*interval);
        open.emplace_back(end, interval->region);
    }
    while (!open.empty()) {
        leave(open.back().second, open.back().first);
        open.pop_back();
    }
    return cut;
}

// Spreads a queue's commands, given in nesting order, over lanes: each goes to the first lane
// that is free at its start (as the Perfetto export does, docs/export.md#nesting-is-guaranteed),
// a new lane when none is. Each lane's commands stay in nesting order.
class LaneAssigner {
public:
    // The lane of the next command, 0 for the first.
    size_t lane(const Interval& command) {
        size_t lane = 0;
        while (lane < m_free.size() && m_free[lane] > command.start) ++lane;
        if (lane == m_free.size()) m_free.push_back(0);
        m_free[lane] = command.end;
        return lane;
    }
    size_t lanes() const { return m_free.size(); }

private:
    std::vector<uint64_t> m_free;  // per lane: where its last command ended
};

}  // namespace perfmarker::exporter::db
