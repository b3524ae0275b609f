// The frame of an .atp file (docs/format.md#layout): the header lines and the section marker lines,
// written and recognised in this one place.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "atp/format/clock_anchors.h"

namespace perfmarker::atp {

// What the profiler knows about the run; formatAtpHeader turns it into the header lines.
struct AtpHeader {
    std::string application;  // absolute path of the profiled executable
    std::vector<std::string> applicationArgs;
    std::string workingDirectory;                // the application's working directory
    std::optional<bool> fullEnvironment;         // written only when set (as 0 / 1, like rcprof)
    std::map<std::string, std::string> envVars;  // EnvVar=NAME=VALUE, sorted by name
    bool userTimer = false;
    std::string osVersion;  // empty: osVersionString()
    std::string displayName;
    std::set<std::string> clExcludedApis;  // CLExcludedAPIs=, sorted and de-duplicated
    uint64_t processId = 0;                // ProcessId= (our extension), written when non-zero
    // Our extensions (atp/format/clock_anchors.h), each written when known.
    std::string hostName;
    std::optional<ClockAnchor> clockStart;
    std::optional<ClockAnchor> clockEnd;
    // ApiCallsLeftOut= (ours): the API calls the merge left out beyond the call cap; written
    // when non-zero (docs/format.md#traces-cut-at-the-call-cap).
    uint64_t apiCallsLeftOut = 0;
};

// The header key of a trace cut at the API call cap: "ApiCallsLeftOut=<n>". With n > 0 the
// trace ends at the cut: every call and dispatch after it is missing.
inline constexpr std::string_view kApiCallsLeftOutKey = "ApiCallsLeftOut";

inline constexpr std::string_view kTraceFileVersion = "3.2";
inline constexpr std::string_view kClockDomain = "CLOCK_MONOTONIC";

// The project version ("major.minor.patch"), written as ProfilerVersion=.
std::string_view profilerVersion();

// "<sysname> Build <release>" from uname(2), e.g. "Linux Build 6.1.0-13-amd64".
std::string osVersionString();

// The header lines of docs/format.md#header in their order, then our ClockDomain=, ProcessId=,
// HostName=, ClockAnchorStart= and ClockAnchorEnd= lines, then the OpenCL part's CLExcludedAPIs=
// line; every line ends in '\n'. Line breaks inside
// values become spaces: a value must stay on its line.
std::string formatAtpHeader(const AtpHeader& header);

// ---- sections ------------------------------------------------------------------------------

enum class SectionKind : uint8_t {
    OclApiTrace,
    OclTimestamp,
    OclStackTrace,
    HsaApiTrace,
    HsaTimestamp,
    HsaKernelTimestamp,
    HsaStackTrace,
    Perfmarker,
    Unknown,
};

// The current name, e.g. "ocl API Trace Output" (empty for Unknown).
std::string_view sectionName(SectionKind kind);

// "=====<name>=====\n".
std::string sectionLine(SectionKind kind);

// The kind of a section name (the text between the fences), accepting the legacy spellings of
// docs/format.md#sections: a leading "AMD " and "CodeXL ", "OpenCL Perfmarker Output", and the APP
// Profiler's "APP Profiler Trace Output" / "APP Profiler Timestamp Output".
SectionKind sectionKindOf(std::string_view name);

// True when `line` (trimmed) is a section marker "=====<name>=====" with a non-empty name;
// sets `name` to the text between the fences.
bool parseSectionLine(std::string_view line, std::string_view& name);

}  // namespace perfmarker::atp
