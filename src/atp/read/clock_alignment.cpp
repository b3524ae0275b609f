// Traces of several hosts on one timeline (see clock_alignment.h).
#include "atp/read/clock_alignment.h"

#include <fstream>
#include <map>

namespace perfmarker::atp {
namespace {

// A header is a few dozen lines; a file with no section line this far is not a trace the parse
// will accept, so the pre-pass stops there.
constexpr size_t kMaxHeaderLines = 10'000;

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
        s.remove_suffix(1);
    return s;
}

bool anchored(const TraceClocks& clocks) {
    return !clocks.hostName.empty() && (clocks.start || clocks.end);
}

int64_t realtimeOffset(const TraceClocks& clocks) {
    return clocks.start ? clocks.start->realtimeOffset() : clocks.end->realtimeOffset();
}

}  // namespace

TraceClocks readTraceClocks(const std::string& path, std::string& problem) {
    TraceClocks clocks;
    std::ifstream in(path, std::ios::binary);
    std::string text;
    for (size_t n = 0; n < kMaxHeaderLines && std::getline(in, text); ++n) {
        const std::string_view line = trimmed(text);
        if (line.empty()) continue;
        if (line.front() == '=') break;
        const size_t eq = line.find('=');
        if (eq == std::string_view::npos) continue;
        clocks.take(trimmed(line.substr(0, eq)), trimmed(line.substr(eq + 1)), problem);
    }
    return clocks;
}

HostAlignment alignHosts(const std::vector<std::string>& inputs,
                         const std::vector<TraceClocks>& clocks) {
    HostAlignment result;
    result.shiftNs.assign(inputs.size(), 0);
    std::vector<std::string> hosts;           // in order of first appearance
    std::map<std::string, int64_t> offsetOf;  // the host's first anchored trace's offset
    for (size_t i = 0; i < inputs.size(); ++i) {
        const std::string problem = clocks[i].inconsistency();
        if (!problem.empty()) {
            result.warnings.push_back(inputs[i] + ": inconsistent clock anchors: " + problem +
                                      "; using the start anchor alone");
        }
        if (!anchored(clocks[i]) || offsetOf.count(clocks[i].hostName) != 0) continue;
        hosts.push_back(clocks[i].hostName);
        offsetOf[clocks[i].hostName] = realtimeOffset(clocks[i]);
    }
    result.hosts = hosts.size();
    if (hosts.size() < 2) return result;

    const int64_t reference = offsetOf[hosts.front()];
    for (size_t i = 0; i < inputs.size(); ++i) {
        const auto host = offsetOf.find(clocks[i].hostName);
        if (host == offsetOf.end()) {
            result.warnings.push_back(
                inputs[i] +
                ": no clock anchors (written by an older perfmarker or another "
                "tool): its times are kept as recorded, not aligned with the "
                "other hosts");
            continue;
        }
        result.shiftNs[i] = host->second - reference;
    }
    std::string names;
    for (const std::string& host : hosts) names += (names.empty() ? "" : ", ") + host;
    result.aligned = "traces of " + std::to_string(hosts.size()) + " hosts (" + names +
                     ") aligned on CLOCK_REALTIME; times are " + hosts.front() +
                     "'s CLOCK_MONOTONIC";
    return result;
}

HostAlignment alignInputs(const std::vector<std::string>& inputs) {
    std::vector<TraceClocks> clocks;
    std::vector<std::string> problems;
    for (const std::string& input : inputs) {
        std::string problem;
        clocks.push_back(readTraceClocks(input, problem));
        if (!problem.empty()) problems.push_back(input + ": " + problem);
    }
    HostAlignment result = alignHosts(inputs, clocks);
    result.warnings.insert(result.warnings.begin(), problems.begin(), problems.end());
    return result;
}

void ShiftingListener::shift(uint64_t& time) const {
    if (time == 0) return;
    const int64_t shifted = static_cast<int64_t>(time) + m_shift;
    time = shifted > 0 ? static_cast<uint64_t>(shifted) : 0;
}

void ShiftingListener::onOclApiCall(const OclApiCall& call) {
    if (m_shift == 0) return m_next.onOclApiCall(call);
    OclApiCall moved = call;
    for (uint64_t* time : {&moved.start, &moved.end, &moved.command.queued, &moved.command.submit,
                           &moved.command.start, &moved.command.end}) {
        shift(*time);
    }
    m_next.onOclApiCall(moved);
}

void ShiftingListener::onHsaApiCall(const HsaApiCall& call) {
    if (m_shift == 0) return m_next.onHsaApiCall(call);
    HsaApiCall moved = call;
    for (uint64_t* time : {&moved.start, &moved.end, &moved.transferStart, &moved.transferEnd}) {
        shift(*time);
    }
    m_next.onHsaApiCall(moved);
}

void ShiftingListener::onHsaKernelDispatch(const HsaKernelDispatch& dispatch) {
    if (m_shift == 0) return m_next.onHsaKernelDispatch(dispatch);
    HsaKernelDispatch moved = dispatch;
    shift(moved.start);
    shift(moved.end);
    m_next.onHsaKernelDispatch(moved);
}

void ShiftingListener::onMarker(const MarkerEvent& marker) {
    if (m_shift == 0 || marker.marker == nullptr) return m_next.onMarker(marker);
    Marker moved = *marker.marker;
    shift(moved.timestampNs);
    MarkerEvent event = marker;
    event.marker = &moved;
    m_next.onMarker(event);
}

}  // namespace perfmarker::atp
