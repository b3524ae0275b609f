// The timeline of one OTF2 location as enter and leave events (docs/otf2.md#nesting): OTF2
// requires every location's regions to be properly nested and its events in time order, while a
// trace gives the API calls and the markers of a thread in separate sections, and the commands
// of a queue overlapping where the queue runs out of order. Intervals of a host thread are
// nested (one that starts inside another and ends after it is cut to end with it, and counted);
// the commands of a queue are spread over lanes, each of which holds no overlap at all.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace perfmarker::exporter::db {

struct Interval {
    uint64_t start = 0;
    uint64_t end = 0;  // >= start
    uint32_t region = 0;
    // At equal start and end the lower rank encloses the higher: markers by depth, then the
    // OpenCL call, then the HSA calls it made.
    uint32_t rank = 0;
    uint32_t firstAttribute = 0;  // its attributes in the exporter's pool
    uint32_t attributeCount = 0;
};

// Orders a location's intervals for visitNested(): by start, the longer first, then by rank.
void sortForNesting(std::vector<Interval>& intervals);

// Calls enter(interval) and leave(interval, time) for the intervals sorted by sortForNesting(),
// properly nested and in time order. Returns how many intervals were cut to end with the
// interval they started in.
template <typename Enter, typename Leave>
uint64_t visitNested(const std::vector<Interval>& sorted, Enter&& enter, Leave&& leave) {
    std::vector<std::pair<uint64_t, const Interval*>> open;  // end (cut), interval
    uint64_t cut = 0;
    for (const Interval& interval : sorted) {
        while (!open.empty() && open.back().first <= interval.start) {
            leave(*open.back().second, open.back().first);
            open.pop_back();
        }
        uint64_t end = interval.end;
        if (!open.empty() && end > open.back().first) {
            end = open.back().first;
            ++cut;
        }
        enter(interval);
        open.emplace_back(end, &interval);
    }
    while (!open.empty()) {
        leave(*open.back().second, open.back().first);
        open.pop_back();
    }
    return cut;
}

// Spreads a queue's commands over lanes: each goes to the first lane that is free at its start
// (as the Perfetto export does, docs/export.md#nesting-is-guaranteed), a new lane when none is.
// The lanes come out in order of creation, each sorted by start.
std::vector<std::vector<Interval>> spreadOverLanes(std::vector<Interval> commands);

}  // namespace perfmarker::exporter::db
