// The progress line of a long export on stderr (docs/export.md#progress): a listener of the
// reader that counts the records of each trace, and the steps the exporters take after reading
// (writing a trace's OTF2 events, creating the database's indexes). Nothing is shown during the
// first second, so short exports stay quiet; then the line is redrawn in place on a terminal, or
// written as a new line every few seconds into a log.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "atp/read/trace_parser.h"

namespace perfmarker::exporter::db {

struct ProgressTiming {
    std::chrono::milliseconds delay{1000};         // quiet before the first line
    std::chrono::milliseconds terminalEvery{200};  // redraws on a terminal
    std::chrono::milliseconds logEvery{5000};      // lines in a log
};

class ExportProgress : public atp::TraceListener {
public:
    using Timing = ProgressTiming;
    // `inputBytes`: the sizes of the traces, in the order they are read. `out` null: silent.
    ExportProgress(std::vector<uint64_t> inputBytes, std::FILE* out, bool terminal,
                   Timing timing = Timing{});
    ~ExportProgress() override;
    ExportProgress(const ExportProgress&) = delete;
    ExportProgress& operator=(const ExportProgress&) = delete;

    void onFileBegin(std::string_view file) override;
    void onOclApiCall(const atp::OclApiCall&) override { tick(); }
    void onHsaApiCall(const atp::HsaApiCall&) override { tick(); }
    void onHsaKernelDispatch(const atp::HsaKernelDispatch&) override { tick(); }
    void onMarker(const atp::MarkerEvent&) override { tick(); }
    // A warning is about to be printed: a line drawn in place is ended first.
    void onWarning(const std::string&) override { finish(); }

    // A step after reading: `done` of `total` units of `what` ("writing the OTF2 events of
    // run.atp").
    void step(std::string_view what, uint64_t done, uint64_t total);
    // Ends a line drawn in place.
    void finish();

    uint64_t records() const { return m_records; }
    uint64_t linesShown() const { return m_shown; }

private:
    using Clock = std::chrono::steady_clock;
    void tick() {
        if ((++m_records & (kRecordsPerCheck - 1)) == 0) showReading(false);
    }
    void showReading(bool force);
    bool due(bool force);
    void show(const std::string& text);

    static constexpr uint64_t kRecordsPerCheck = 4096;  // a power of two
    std::vector<uint64_t> m_inputBytes;
    std::FILE* m_out;
    bool m_terminal;
    Timing m_timing;
    Clock::time_point m_started;
    Clock::time_point m_lastShown;
    bool m_anyShown = false;
    bool m_drawn = false;  // a line drawn in place and not yet ended
    size_t m_drawnWidth = 0;
    size_t m_file = 0;  // 1-based index of the trace being read
    std::string m_fileName;
    uint64_t m_records = 0;
    uint64_t m_shown = 0;
};

}  // namespace perfmarker::exporter::db
