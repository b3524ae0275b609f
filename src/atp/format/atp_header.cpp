// Header lines and section markers of .atp files (docs/format.md#sections, docs/format.md#header).
#include "atp/format/atp_header.h"

#include <sys/utsname.h>

#include <array>

#ifndef PERFMARKER_VERSION
#error "PERFMARKER_VERSION must be the project version (set by src/atp/CMakeLists.txt)"
#endif

namespace perfmarker::atp {
namespace {

constexpr std::string_view kFence = "=====";

struct SectionEntry {
    SectionKind kind;
    std::string_view name;
};

constexpr std::array<SectionEntry, 8> kSections = {{
    {SectionKind::OclApiTrace, "ocl API Trace Output"},
    {SectionKind::OclTimestamp, "ocl Timestamp Output"},
    {SectionKind::OclStackTrace, "ocl Stack Trace Output"},
    {SectionKind::HsaApiTrace, "hsa API Trace Output"},
    {SectionKind::HsaTimestamp, "hsa Timestamp Output"},
    {SectionKind::HsaKernelTimestamp, "hsa Kernel Timestamp Output"},
    {SectionKind::HsaStackTrace, "hsa Stack Trace Output"},
    {SectionKind::Perfmarker, "Perfmarker Output"},
}};

// Legacy names that are not just a current name with a prefix.
constexpr std::array<SectionEntry, 3> kLegacySections = {{
    {SectionKind::Perfmarker, "OpenCL Perfmarker Output"},
    {SectionKind::OclApiTrace, "APP Profiler Trace Output"},
    {SectionKind::OclTimestamp, "APP Profiler Timestamp Output"},
}};

bool startsWith(std::string_view s, std::string_view prefix) {
    return s.substr(0, prefix.size()) == prefix;
}

std::string_view trim(std::string_view s) {
    const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
    return s;
}

// A value must stay on its header line (the parser reads one line per key).
void appendValue(std::string& out, std::string_view value) {
    for (const char c : value) out.push_back(c == '\n' || c == '\r' ? ' ' : c);
}

void appendLine(std::string& out, std::string_view key, std::string_view value) {
    out.append(key);
    out.push_back('=');
    appendValue(out, value);
    out.push_back('\n');
}

std::string joinedArgs(const std::vector<std::string>& args) {
    std::string joined;
    for (const std::string& arg : args) {
        if (!joined.empty()) joined.push_back(' ');
        joined.append(arg);
    }
    return std::string(trim(joined));
}

template <typename Range>
std::string commaJoined(const Range& names) {
    std::string joined;
    for (const std::string& name : names) {
        if (!joined.empty()) joined.push_back(',');
        joined.append(name);
    }
    return joined;
}

}  // namespace

std::string_view profilerVersion() { return PERFMARKER_VERSION; }

std::string osVersionString() {
    utsname info{};
    if (uname(&info) != 0) return "Unknown";
    return std::string(info.sysname) + " Build " + info.release;
}

std::string formatAtpHeader(const AtpHeader& header) {
    std::string out;
    appendLine(out, "TraceFileVersion", kTraceFileVersion);
    appendLine(out, "ProfilerVersion", profilerVersion());
    appendLine(out, "Application", header.application);
    appendLine(out, "ApplicationArgs", joinedArgs(header.applicationArgs));
    appendLine(out, "WorkingDirectory", header.workingDirectory);
    if (header.fullEnvironment)
        appendLine(out, "FullEnvironment", *header.fullEnvironment ? "1" : "0");
    for (const auto& [name, value] : header.envVars) appendLine(out, "EnvVar", name + "=" + value);
    appendLine(out, "UserTimer", header.userTimer ? "True" : "False");
    appendLine(out, "OS Version", header.osVersion.empty() ? osVersionString() : header.osVersion);
    appendLine(out, "DisplayName", header.displayName);
    appendLine(out, "ClockDomain", kClockDomain);  // our extension (docs/format.md)
    if (header.processId != 0) appendLine(out, "ProcessId", std::to_string(header.processId));
    if (!header.hostName.empty()) appendLine(out, kHostNameKey, header.hostName);
    if (header.clockStart)
        appendLine(out, kClockAnchorStartKey, formatClockAnchor(*header.clockStart));
    if (header.clockEnd) appendLine(out, kClockAnchorEndKey, formatClockAnchor(*header.clockEnd));
    if (header.apiCallsLeftOut != 0) {
        appendLine(out, kApiCallsLeftOutKey, std::to_string(header.apiCallsLeftOut));
    }
    appendLine(out, "CLExcludedAPIs", commaJoined(header.clExcludedApis));
    return out;
}

std::string_view sectionName(SectionKind kind) {
    for (const SectionEntry& entry : kSections) {
        if (entry.kind == kind) return entry.name;
    }
    return {};
}

std::string sectionLine(SectionKind kind) {
    std::string line(kFence);
    line.append(sectionName(kind));
    line.append(kFence);
    line.push_back('\n');
    return line;
}

SectionKind sectionKindOf(std::string_view name) {
    name = trim(name);
    if (startsWith(name, "AMD ")) name.remove_prefix(4);
    if (startsWith(name, "CodeXL ")) name.remove_prefix(7);
    for (const SectionEntry& entry : kSections) {
        if (entry.name == name) return entry.kind;
    }
    for (const SectionEntry& entry : kLegacySections) {
        if (entry.name == name) return entry.kind;
    }
    return SectionKind::Unknown;
}

bool parseSectionLine(std::string_view line, std::string_view& name) {
    line = trim(line);
    if (line.size() <= 2 * kFence.size() || !startsWith(line, kFence) ||
        line.substr(line.size() - kFence.size()) != kFence) {
        return false;
    }
    name = line.substr(kFence.size(), line.size() - 2 * kFence.size());
    return !trim(name).empty() && name.find('=') == std::string_view::npos;
}

}  // namespace perfmarker::atp
