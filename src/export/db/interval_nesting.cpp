#include "export/db/interval_nesting.h"

#include <algorithm>

namespace perfmarker::exporter::db {

void sortForNesting(std::vector<Interval>& intervals) {
    std::stable_sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) {
        if (a.start != b.start) return a.start < b.start;
        if (a.end != b.end) return a.end > b.end;
        return a.rank < b.rank;
    });
}

std::vector<std::vector<Interval>> spreadOverLanes(std::vector<Interval> commands) {
    sortForNesting(commands);
    std::vector<std::vector<Interval>> lanes;
    std::vector<uint64_t> free;  // per lane: where its last command ended
    for (const Interval& command : commands) {
        size_t lane = 0;
        while (lane < free.size() && free[lane] > command.start) ++lane;
        if (lane == free.size()) {
            lanes.emplace_back();
            free.push_back(0);
        }
        lanes[lane].push_back(command);
        free[lane] = command.end;
    }
    return lanes;
}

}  // namespace perfmarker::exporter::db
