// The VTune Profiler exporter: CSV files of interval values that VTune imports into a result
// (docs/export.md). Host intervals (markers, API calls) carry a tid and become tasks; device
// commands carry none and become frames. One table per file, named
// "<base>-<table>-hostname-<host>.csv" as VTune requires; traces of several hosts give one set
// of files per host, each on that host's clock.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "atp/format/clock_anchors.h"
#include "export/csv_writer.h"
#include "export/exporter.h"

namespace perfmarker::exporter {

// Our traces use CLOCK_MONOTONIC; VTune knows CLOCK_MONOTONIC_RAW on Linux. The two differ by
// an offset that changes slowly (NTP slews CLOCK_MONOTONIC only). A trace's clock anchors
// (docs/format.md#clock-anchors) give that offset on the traced machine at the start and end of
// the run, and the exporter interpolates between them: the same CSV wherever and whenever it
// runs. For a trace without anchors it falls back, with a warning, to the offset of the
// exporting machine now (measureRawClockOffsetNs()), right only on the traced machine in the
// same boot.
int64_t measureRawClockOffsetNs();

struct VtuneOptions {
    std::string base;      // "<dir>/<name>": files are <base>-<table>-hostname-<host>.csv
    std::string hostname;  // when not empty, the host of every file (else each trace's HostName=)
    int64_t rawClockOffsetNs = 0;  // for traces without anchors (measureRawClockOffsetNs())
    std::string fallbackHostname = "localhost";  // for traces without HostName=
};

class VtuneExporter : public Exporter {
public:
    explicit VtuneExporter(VtuneOptions options);

    void onOclApiCall(const atp::OclApiCall& call) override;
    void onHsaApiCall(const atp::HsaApiCall& call) override;
    void onHsaKernelDispatch(const atp::HsaKernelDispatch& dispatch) override;
    void onHeader(std::string_view key, std::string_view value, atp::SourceLocation where) override;
    std::vector<std::string> writtenFiles() const override;

    static constexpr std::string_view kHeader =
        "name,start_tsc.CLOCK_MONOTONIC_RAW,end_tsc,pid,tid";
    // The file of a table: "<base>-<table>-hostname-<host>.csv".
    static std::string tablePath(const VtuneOptions& options, std::string_view host,
                                 std::string_view table);

private:
    enum Table : size_t { kMarkers, kApi, kKernels, kTransfers, kCommands, kTableCount };
    void beginFile(std::string_view file) override;
    void writeMarker(const MarkerSpan& span) override;
    bool closeOutputs(std::string& error) override;
    void discardOutputs() override;
    // The host and clock conversion of the file being read, decided at its first interval.
    void decideClock();
    CsvFile& table(Table which);
    void interval(Table which, std::string_view name, uint64_t start, uint64_t end,
                  const uint64_t* tid);
    uint64_t convert(uint64_t timestampNs) const;

    VtuneOptions m_options;
    std::map<std::string, std::unique_ptr<CsvTables>> m_hosts;
    std::vector<std::string> m_hostOrder;  // as their first file was opened
    uint64_t m_pid = 0;
    // The file being read.
    std::string m_file;
    atp::TraceClocks m_clocks;
    std::string m_clockProblem;
    bool m_decided = false;
    CsvTables* m_tables = nullptr;
    std::string m_host;
    atp::RawConversion m_conversion;
    bool m_anchored = false;
};

}  // namespace perfmarker::exporter
