// The timeline of one OTF2 location as enter and leave events (docs/otf2.md#nesting): OTF2
// requires every location's regions to be properly nested and its events in time order, while a
// trace gives the API calls and the markers of a thread in separate sections, and the commands
// of a queue overlapping where the queue runs out of order. Intervals of a host thread are
// nested (one that starts inside another and ends after it is cut to end with it, and counted);
// the commands of a queue are spread over lanes, each of which holds no overlap at all
// (LaneAssigner, export/interval_store.h). Both work on a stream of intervals in nesting order
// (the interval store gives them so), so that a location of any length is written in bounded
// memory.
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

}  // namespace perfmarker::exporter::db
