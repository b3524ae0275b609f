#include "export/vtune_exporter.h"

#include <time.h>

#include <algorithm>
#include <array>

namespace perfmarker::exporter {
namespace {

constexpr std::array<std::string_view, 5> kTableNames = {"markers", "api", "kernels", "transfers",
                                                         "commands"};

int64_t nowNs(clockid_t clock) {
    timespec now{};
    clock_gettime(clock, &now);
    return static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

// Host names cannot hold '/', but a value given on the command line could.
std::string safeHostname(std::string_view host) {
    std::string safe(host);
    std::replace(safe.begin(), safe.end(), '/', '_');
    return safe;
}

}  // namespace

int64_t measureRawClockOffsetNs() {
    // Read MONOTONIC between two RAW reads and take the middle, halving the read's own cost.
    const int64_t rawBefore = nowNs(CLOCK_MONOTONIC_RAW);
    const int64_t monotonic = nowNs(CLOCK_MONOTONIC);
    const int64_t rawAfter = nowNs(CLOCK_MONOTONIC_RAW);
    return rawBefore + (rawAfter - rawBefore) / 2 - monotonic;
}

VtuneExporter::VtuneExporter(VtuneOptions options) : m_options(std::move(options)) {}

std::string VtuneExporter::tablePath(const VtuneOptions& options, std::string_view host,
                                     std::string_view table) {
    return options.base + "-" + std::string(table) + "-hostname-" + safeHostname(host) + ".csv";
}

void VtuneExporter::beginFile(std::string_view file) {
    m_file = std::string(file);
    m_clocks = atp::TraceClocks();
    m_clockProblem.clear();
    m_decided = false;
}

void VtuneExporter::onHeader(std::string_view key, std::string_view value,
                             atp::SourceLocation where) {
    Exporter::onHeader(key, value, where);
    m_clocks.take(key, value, m_clockProblem);
}

void VtuneExporter::decideClock() {
    m_decided = true;
    std::string host = m_options.hostname;
    if (host.empty()) host = m_clocks.hostName;
    if (host.empty()) {
        host = m_options.fallbackHostname;
        m_warnings.add(m_file + ": no HostName= in the header: files named after " + host);
    }
    if (!m_clockProblem.empty()) m_warnings.add(m_file + ": " + m_clockProblem);
    m_anchored = m_clocks.start.has_value() || m_clocks.end.has_value();
    if (m_anchored) {
        const std::string problem = m_clocks.inconsistency();
        if (!problem.empty()) {
            m_warnings.add(m_file + ": inconsistent clock anchors: " + problem +
                           "; converted with the start anchor alone");
        }
        m_conversion = m_clocks.rawConversion();
    } else {
        m_warnings.add(m_file +
                       ": no clock anchors: CLOCK_MONOTONIC converted to CLOCK_MONOTONIC_RAW "
                       "with this machine's offset now (right only on the traced machine, in "
                       "the same boot)");
    }
    std::unique_ptr<CsvTables>& tables = m_hosts[host];
    if (!tables) {
        tables = std::make_unique<CsvTables>(kTableCount);
        m_hostOrder.push_back(host);
    }
    m_tables = tables.get();
    m_host = host;
}

std::vector<std::string> VtuneExporter::writtenFiles() const {
    std::vector<std::string> files;
    for (const std::string& host : m_hostOrder) {
        const std::vector<std::string>& written = m_hosts.at(host)->written();
        files.insert(files.end(), written.begin(), written.end());
    }
    return files;
}

bool VtuneExporter::closeOutputs(std::string& error) {
    bool ok = true;
    for (const std::string& host : m_hostOrder) {
        std::string hostError;
        if (!m_hosts.at(host)->close(hostError) && ok) {
            ok = false;
            error = hostError;
        }
    }
    for (const std::string& host : m_hostOrder) {
        if (ok) {
            ok = m_hosts.at(host)->commit(error);
        } else {
            m_hosts.at(host)->discard();  // no file in place unless all of them are
        }
    }
    return ok;
}

void VtuneExporter::discardOutputs() {
    for (const std::string& host : m_hostOrder) m_hosts.at(host)->discard();
}

CsvFile& VtuneExporter::table(Table which) {
    if (m_tables->isOpen(which)) return (*m_tables)[which];
    return m_tables->open(which, tablePath(m_options, m_host, kTableNames[which]), kHeader, "\n");
}

uint64_t VtuneExporter::convert(uint64_t timestampNs) const {
    const int64_t offset = m_anchored ? m_conversion.offsetAt(static_cast<int64_t>(timestampNs))
                                      : m_options.rawClockOffsetNs;
    if (offset < 0 && timestampNs < static_cast<uint64_t>(-offset)) return 0;
    return timestampNs + static_cast<uint64_t>(offset);
}

// Intervals without times, or ending before they start, have no row (the reader named them,
// docs/format.md#unknown-times).
void VtuneExporter::interval(Table which, std::string_view name, uint64_t start, uint64_t end,
                             const uint64_t* tid) {
    if (atp::timesOf(start, end) != atp::Times::Known) return;
    if (!m_decided) decideClock();
    m_pid = m_processIds.pid(m_warnings);
    CsvFile& file = table(which);
    file.field(name).number(convert(start)).number(convert(end)).number(m_pid);
    if (tid != nullptr) {
        file.number(*tid);
    } else {
        file.empty();  // no tid: VTune shows the interval as a frame
    }
    file.endRow();
}

void VtuneExporter::onOclApiCall(const atp::OclApiCall& call) {
    if (atp::hostTimes(call) == atp::Times::Known) m_markers.noteTime(call.tid, call.end);
    interval(kApi, call.name, call.start, call.end, &call.tid);
    if (!call.hasCommand) return;
    const atp::OclCommand& command = call.command;
    switch (classifyCommand(command)) {
        case CommandClass::Kernel:
            interval(kKernels,
                     command.kernelName.empty() ? command.commandName : command.kernelName,
                     command.start, command.end, nullptr);
            break;
        case CommandClass::Memory:
            interval(kTransfers, command.commandName, command.start, command.end, nullptr);
            break;
        case CommandClass::Other:
            interval(kCommands, command.commandName, command.start, command.end, nullptr);
            break;
    }
}

void VtuneExporter::onHsaApiCall(const atp::HsaApiCall& call) {
    if (atp::hostTimes(call) == atp::Times::Known) m_markers.noteTime(call.tid, call.end);
    interval(kApi, call.name, call.start, call.end, &call.tid);
    if (call.hasTransferTimes) {
        interval(kTransfers, call.name, call.transferStart, call.transferEnd, nullptr);
    }
}

void VtuneExporter::onHsaKernelDispatch(const atp::HsaKernelDispatch& dispatch) {
    interval(kKernels, dispatch.kernelName, dispatch.start, dispatch.end, nullptr);
}

void VtuneExporter::writeMarker(const MarkerSpan& span) {
    interval(kMarkers, span.name, span.begin, span.end, &span.tid);
}

}  // namespace perfmarker::exporter
