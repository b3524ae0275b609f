#include "analysis/marker_pages.h"

#include <algorithm>

#include "atp/format/perfmarker_section.h"

namespace perfmarker::analysis {
namespace {

constexpr size_t kMaxUnbalancedNotes = 20;

}  // namespace

void MarkerPages::onMarker(const atp::MarkerEvent& event) {
    if (event.marker == nullptr) return;
    const atp::Marker& marker = *event.marker;
    m_file = std::string(event.line.file);
    if (marker.kind == atp::MarkerKind::Begin) {
        m_open[event.tid].push_back(Open{marker.name, marker.group, marker.timestampNs, 0});
        return;
    }
    close(event.tid, marker, event.line.line);
}

// End closes the most recent open Begin of the thread; EndEx also renames it
// (docs/format.md#perfmarker-section).
void MarkerPages::close(uint64_t tid, const atp::Marker& marker, uint64_t line) {
    std::vector<Open>& open = m_open[tid];
    if (open.empty()) {
        ++m_endsWithoutBegin;
        note(m_file + ":" + std::to_string(line) + ": thread " + std::to_string(tid) +
             ": marker end without a begin (ignored)");
        return;
    }
    Open begin = std::move(open.back());
    open.pop_back();
    if (marker.kind == atp::MarkerKind::EndEx && !marker.name.empty()) {
        begin.name = marker.name;
        begin.group = marker.group.empty() ? std::string(atp::kDefaultGroup) : marker.group;
    }
    const uint64_t ns = durationNs(begin.start, marker.timestampNs);
    auto key = m_index.emplace(std::make_pair(begin.name, begin.group), m_stats.size()).first;
    if (key->second == m_stats.size()) m_stats.emplace_back();
    Stats& stats = m_stats[key->second];
    stats.durations.add(ns);
    stats.selfNs += ns > begin.childNs ? ns - begin.childNs : 0;
    if (!open.empty()) open.back().childNs += ns;
    m_closed[tid].push_back(Closed{key->second, begin.start, marker.timestampNs});
}

void MarkerPages::onCall(uint64_t tid, uint64_t start, uint64_t end, uint64_t deviceNs) {
    m_calls[tid].push_back(Call{start, end, deviceNs});
}

void MarkerPages::endFile(std::string_view file) {
    for (const auto& [tid, open] : m_open) {
        if (open.empty()) continue;
        m_beginsWithoutEnd += open.size();
        note(std::string(file) + ": thread " + std::to_string(tid) + ": " +
             std::to_string(open.size()) + " marker(s) never ended (first: \"" + open.front().name +
             "\")");
    }
    for (auto& [tid, closed] : m_closed) {
        auto calls = m_calls.find(tid);
        if (calls != m_calls.end()) attributeCalls(calls->second, closed);
    }
    m_open.clear();
    m_closed.clear();
    m_calls.clear();
}

// A call counts for every marker open on its thread when it started (so nested markers each
// include it). Prefix sums over the calls sorted by start: O((calls + markers) log calls).
void MarkerPages::attributeCalls(std::vector<Call>& calls, const std::vector<Closed>& markers) {
    std::sort(calls.begin(), calls.end(),
              [](const Call& a, const Call& b) { return a.start < b.start; });
    std::vector<uint64_t> apiSum(calls.size() + 1, 0), deviceSum(calls.size() + 1, 0);
    for (size_t i = 0; i < calls.size(); ++i) {
        apiSum[i + 1] = apiSum[i] + durationNs(calls[i].start, calls[i].end);
        deviceSum[i + 1] = deviceSum[i] + calls[i].deviceNs;
    }
    auto byStart = [](const Call& call, uint64_t t) { return call.start < t; };
    for (const Closed& marker : markers) {
        const size_t first = static_cast<size_t>(
            std::lower_bound(calls.begin(), calls.end(), marker.start, byStart) - calls.begin());
        size_t last = first;
        if (marker.end >= marker.start) {
            last = static_cast<size_t>(
                std::upper_bound(calls.begin(), calls.end(), marker.end,
                                 [](uint64_t t, const Call& call) { return t < call.start; }) -
                calls.begin());
        }
        Stats& stats = m_stats[marker.stats];
        stats.apiCalls += last - first;
        stats.apiNs += apiSum[last] - apiSum[first];
        stats.deviceNs += deviceSum[last] - deviceSum[first];
    }
}

void MarkerPages::note(std::string text) {
    if (m_notes.size() < kMaxUnbalancedNotes) {
        m_notes.push_back(std::move(text));
    } else {
        ++m_droppedNotes;
    }
}

void MarkerPages::appendTables(std::vector<Table>& out) const {
    if (m_stats.empty() && m_endsWithoutBegin == 0 && m_beginsWithoutEnd == 0) return;
    Table table{
        "MarkerSummary",
        "Marker Summary Page",
        {"Marker Name", "Group", "# of Calls", "Total Time(ms)", "Avg Time(ms)", "Max Time(ms)",
         "Min Time(ms)", "Self Time(ms)", "# of API Calls", "API Time(ms)", "Device Time(ms)"},
        {},
        {}};
    std::vector<const std::pair<const std::pair<std::string, std::string>, size_t>*> order;
    for (const auto& entry : m_index) order.push_back(&entry);
    std::stable_sort(order.begin(), order.end(), [this](const auto* a, const auto* b) {
        return m_stats[a->second].durations.totalNs > m_stats[b->second].durations.totalNs;
    });
    for (const auto* entry : order) {
        const Stats& s = m_stats[entry->second];
        const DurationStats& d = s.durations;
        table.rows.push_back({entry->first.first, entry->first.second, std::to_string(d.count),
                              formatMs(d.totalNs), formatMsMean(d.totalNs, d.count),
                              formatMs(d.maxNs), formatMs(d.minNs), formatMs(s.selfNs),
                              std::to_string(s.apiCalls), formatMs(s.apiNs), formatMs(s.deviceNs)});
    }
    if (m_endsWithoutBegin != 0 || m_beginsWithoutEnd != 0) {
        table.notes.push_back("Unbalanced markers: " + std::to_string(m_endsWithoutBegin) +
                              " end(s) without a begin, " + std::to_string(m_beginsWithoutEnd) +
                              " begin(s) without an end");
        table.notes.insert(table.notes.end(), m_notes.begin(), m_notes.end());
        if (m_droppedNotes != 0) {
            table.notes.push_back("... and " + std::to_string(m_droppedNotes) + " more");
        }
    }
    out.push_back(std::move(table));
}

}  // namespace perfmarker::analysis
