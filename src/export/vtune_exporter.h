// The VTune Profiler exporter: CSV files of interval values that VTune imports into a result
// (docs/export.md). Host intervals (markers, API calls) carry a tid and become tasks; device
// commands carry none and become frames. One table per file, named
// "<base>-<table>-hostname-<host>.csv" as VTune requires.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "export/csv_writer.h"
#include "export/exporter.h"

namespace perfmarker::exporter {

// Our traces use CLOCK_MONOTONIC; VTune knows CLOCK_MONOTONIC_RAW on Linux. The two differ by
// an offset that changes slowly (NTP slews CLOCK_MONOTONIC only); the exporter adds the offset
// measured at export time, which lines the intervals up with a VTune result collected on the
// same machine in the same boot, to within the slew since the trace was taken.
int64_t measureRawClockOffsetNs();

struct VtuneOptions {
    std::string base;              // "<dir>/<name>": files are <base>-<table>-hostname-<host>.csv
    std::string hostname;          // the machine the trace was taken on
    int64_t rawClockOffsetNs = 0;  // added to every timestamp (measureRawClockOffsetNs())
};

class VtuneExporter : public Exporter {
public:
    explicit VtuneExporter(VtuneOptions options);

    void onOclApiCall(const atp::OclApiCall& call) override;
    void onHsaApiCall(const atp::HsaApiCall& call) override;
    void onHsaKernelDispatch(const atp::HsaKernelDispatch& dispatch) override;
    std::vector<std::string> writtenFiles() const override { return m_tables.written(); }

    static constexpr std::string_view kHeader =
        "name,start_tsc.CLOCK_MONOTONIC_RAW,end_tsc,pid,tid";
    // The file of a table: "<base>-<table>-hostname-<host>.csv".
    static std::string tablePath(const VtuneOptions& options, std::string_view table);

private:
    enum Table : size_t { kMarkers, kApi, kKernels, kTransfers, kCommands, kTableCount };
    void writeMarker(const MarkerSpan& span) override;
    bool closeOutputs(std::string& error) override { return m_tables.close(error); }
    CsvFile& table(Table which);
    void interval(Table which, std::string_view name, uint64_t start, uint64_t end,
                  const uint64_t* tid);
    uint64_t convert(uint64_t timestampNs) const;

    VtuneOptions m_options;
    CsvTables m_tables{kTableCount};
    uint64_t m_pid = 0;
};

}  // namespace perfmarker::exporter
