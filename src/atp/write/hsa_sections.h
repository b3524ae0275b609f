// The HSA part of an .atp file (docs/format.md#hsa-sections) built from the HSA agent's binary
// records: the API Trace and Timestamp sections (same threads, same order, same counts) and the
// Kernel Timestamp section. Device times (HSA system clock domain) are converted into the trace
// clock here, from the agent's calibration records (docs/hsa-trace.md, "One clock").
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "atp/write/ocl_sections.h"  // RecordReplay, TextSink

namespace perfmarker::atp {

struct HsaTraceOptions {
    bool demangleKernelNames = true;  // docs/format.md#kernel-dispatches, field 1
    uint64_t maxApiCalls = 1000000;   // lines per process; the earliest ones are kept
};

struct HsaTraceStats {
    uint64_t apiCalls = 0;          // ApiCall records read
    uint64_t lines = 0;             // lines per API section
    uint64_t threads = 0;           // thread blocks per API section
    uint64_t droppedLines = 0;      // beyond maxApiCalls
    uint64_t dispatches = 0;        // lines of the kernel section
    uint64_t droppedDispatches = 0; // started after the last kept API call
    uint64_t copies = 0;            // async-copy lines with transfer times
    uint64_t missingCopyTimes = 0;  // async copies whose completion was never recorded
    uint64_t failedCopies = 0;      // copies that ended with an error (no times)
    uint64_t malformedRecords = 0;
    bool calibrated = false;        // at least one clock calibration was found
};

// Use: addThread() for every thread in output order, prepare(), then the write calls.
class HsaTraceBuilder {
public:
    explicit HsaTraceBuilder(HsaTraceOptions options = {});
    ~HsaTraceBuilder();
    HsaTraceBuilder(const HsaTraceBuilder&) = delete;
    HsaTraceBuilder& operator=(const HsaTraceBuilder&) = delete;

    void addThread(uint64_t tid, RecordReplay replay);
    bool prepare(std::string& error);
    bool hasApiLines() const;
    bool hasDispatches() const;
    bool writeApiSection(const TextSink& sink, std::string& error);
    bool writeTimestampSection(const TextSink& sink, std::string& error);
    // "=====hsa Stack Trace Output=====": the API section's blocks, one call-site line each.
    bool writeStackSection(const TextSink& sink, CallSiteWriter& sites, std::string& error);
    bool writeKernelSection(const TextSink& sink, std::string& error);

    const HsaTraceStats& stats() const;
    std::vector<std::string> warnings() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// HSA system clock -> trace clock (CLOCK_MONOTONIC ns), from calibration pairs.
class HsaClock {
public:
    void add(uint64_t systemTime, uint64_t frequency, uint64_t hostBefore, uint64_t hostAfter);
    bool calibrated() const { return m_count > 0; }
    // Without calibration the value is returned unchanged.
    uint64_t toHost(uint64_t systemTime) const;

private:
    unsigned m_count = 0;
    uint64_t m_sys0 = 0, m_host0 = 0, m_freq = 0;  // first point
    uint64_t m_sys1 = 0, m_host1 = 0;              // last point
};

// Kernel symbol name as field 1 shows it: demangled (a leading "Z" gets "_" first, a ".kd"
// suffix is dropped) when asked and possible, then HTML-escaped.
std::string hsaKernelDisplayName(const std::string& symbol, bool demangle);

}  // namespace perfmarker::atp
