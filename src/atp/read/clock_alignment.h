// Traces of several hosts on one timeline (docs/format.md#clock-anchors): each trace's times are
// CLOCK_MONOTONIC of its own machine, which another machine's CLOCK_MONOTONIC does not share.
// The tools read each trace's anchors first (readTraceClocks), decide one shift per host
// (alignHosts: the CLOCK_REALTIME - CLOCK_MONOTONIC offsets of the hosts, relative to the first
// host's), and pass the records through a ShiftingListener that adds the shift of the file being
// read. Processes of one host keep their shared clock: one shift per host, none for the first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "atp/format/clock_anchors.h"
#include "atp/read/trace_parser.h"

namespace perfmarker::atp {

// The header of the trace at `path`, read up to its first section line: its host name and
// anchors, and in `problem` a malformed anchor (see TraceClocks::take). A file that cannot be
// read gives empty clocks: the parse that follows reports it.
TraceClocks readTraceClocks(const std::string& path, std::string& problem);

struct HostAlignment {
    std::vector<int64_t> shiftNs;       // per input, in input order: added to every non-zero time
    std::vector<std::string> warnings;  // what could not be aligned or is wrong, file by file
    std::string aligned;                // what was aligned, "" when nothing was
    size_t hosts = 0;                   // distinct hosts with anchors among the inputs
};

// One shift per input. With fewer than two hosts every shift is 0 and nothing changes. With
// more, each host's traces move by (its CLOCK_REALTIME offset - the first host's), so all times
// read as the first host's CLOCK_MONOTONIC; a trace without anchors (or without a host name)
// keeps its times and gets a warning. Inconsistent anchors (TraceClocks::inconsistency) get a
// warning naming the file in any case.
HostAlignment alignHosts(const std::vector<std::string>& inputs,
                         const std::vector<TraceClocks>& clocks);

// readTraceClocks of every input, then alignHosts; a malformed anchor becomes a warning.
HostAlignment alignInputs(const std::vector<std::string>& inputs);

// Passes every record on to `next` with `shiftNs` added to its times (times of 0, "unknown",
// stay 0; a time the shift would make negative becomes 0). With a shift of 0 the records go
// through untouched.
class ShiftingListener : public TraceListener {
public:
    explicit ShiftingListener(TraceListener& next) : m_next(next) {}
    void setShift(int64_t shiftNs) { m_shift = shiftNs; }

    void onFileBegin(std::string_view file) override { m_next.onFileBegin(file); }
    void onHeader(std::string_view key, std::string_view value, SourceLocation where) override {
        m_next.onHeader(key, value, where);
    }
    void onSection(SectionKind kind, std::string_view name, SourceLocation where) override {
        m_next.onSection(kind, name, where);
    }
    void onOclApiCall(const OclApiCall& call) override;
    void onHsaApiCall(const HsaApiCall& call) override;
    void onHsaKernelDispatch(const HsaKernelDispatch& dispatch) override;
    void onMarker(const MarkerEvent& marker) override;
    void onStackEntry(const StackEntry& entry) override { m_next.onStackEntry(entry); }
    void onUnknownLine(std::string_view section, std::string_view text,
                       SourceLocation where) override {
        m_next.onUnknownLine(section, text, where);
    }
    void onWarning(const std::string& message) override { m_next.onWarning(message); }
    void onFileEnd(std::string_view file) override { m_next.onFileEnd(file); }

private:
    void shift(uint64_t& time) const;

    TraceListener& m_next;
    int64_t m_shift = 0;
};

}  // namespace perfmarker::atp
