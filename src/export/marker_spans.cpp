#include "export/marker_spans.h"

#include <algorithm>

namespace perfmarker::exporter {

void MarkerMatcher::beginFile(std::string_view file) {
    m_file.assign(file);
    m_threads.clear();
    m_clamped = 0;
}

void MarkerMatcher::noteTime(uint64_t tid, uint64_t timestampNs) {
    Thread& thread = m_threads[tid];
    thread.lastTime = std::max(thread.lastTime, timestampNs);
}

void MarkerMatcher::add(const atp::MarkerEvent& event, WarningLog& warnings) {
    if (event.marker == nullptr) return;
    const atp::Marker& marker = *event.marker;
    Thread& thread = m_threads[event.tid];
    thread.lastTime = std::max(thread.lastTime, marker.timestampNs);
    if (marker.kind == atp::MarkerKind::Begin) {
        begin(thread, event.tid, marker);
    } else {
        end(thread, marker, event, warnings);
    }
}

void MarkerMatcher::begin(Thread& thread, uint64_t tid, const atp::Marker& marker) {
    const uint64_t floor = thread.stack.empty() ? thread.floor : thread.stack.back().floor;
    Open open;
    open.span.tid = tid;
    open.span.name = marker.name;
    open.span.group = marker.group;
    open.span.userString = marker.userString;
    open.span.begin = std::max(marker.timestampNs, floor);
    open.span.depth = static_cast<uint32_t>(thread.stack.size());
    open.floor = open.span.begin;
    if (open.span.begin != marker.timestampNs) ++m_clamped;
    thread.stack.push_back(std::move(open));
}

void MarkerMatcher::end(Thread& thread, const atp::Marker& marker, const atp::MarkerEvent& event,
                        WarningLog& warnings) {
    if (thread.stack.empty()) {
        warnings.add(m_file + ":" + std::to_string(event.line.line) + ": thread " +
                     std::to_string(event.tid) + ": end of a marker that was never begun; dropped");
        return;
    }
    if (marker.kind == atp::MarkerKind::EndEx) {
        MarkerSpan& span = thread.stack.back().span;
        span.name = marker.name;
        span.group = marker.group;
        if (!marker.userString.empty()) span.userString = marker.userString;
    }
    close(thread, marker.timestampNs, false);
}

void MarkerMatcher::close(Thread& thread, uint64_t timestampNs, bool unclosed) {
    Open open = std::move(thread.stack.back());
    thread.stack.pop_back();
    open.span.end = std::max(timestampNs, open.floor);
    if (open.span.end != timestampNs) ++m_clamped;
    open.span.unclosed = unclosed;
    uint64_t& parentFloor = thread.stack.empty() ? thread.floor : thread.stack.back().floor;
    parentFloor = std::max(parentFloor, open.span.end);
    m_sink(open.span);
}

void MarkerMatcher::endFile(WarningLog& warnings) {
    for (auto& [tid, thread] : m_threads) {
        if (thread.stack.empty()) continue;
        warnings.add(m_file + ": thread " + std::to_string(tid) + ": " +
                     std::to_string(thread.stack.size()) +
                     " marker(s) never ended; closed at the thread's last timestamp");
        while (!thread.stack.empty()) close(thread, thread.lastTime, true);
    }
    if (m_clamped > 0) {
        warnings.add(m_file + ": " + std::to_string(m_clamped) +
                     " marker timestamp(s) out of order; moved to keep the markers nested");
    }
    m_threads.clear();
}

}  // namespace perfmarker::exporter
