// The base of the exporters: a TraceListener that writes files, and what every exporter does
// with the frame of a traced file (docs/export.md#processes-and-pids): it decides the file's
// pid, pairs its marker lines into spans for writeMarker(), and ends a file that a failed parse
// left open before the outputs are closed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "atp/read/trace_parser.h"
#include "export/export_common.h"
#include "export/marker_spans.h"

namespace perfmarker::exporter {

class Exporter : public atp::TraceListener {
public:
    // Writes what is still buffered, closes every file and puts them all in place (each output
    // is written under a temporary name, atp/read/staged_output.h). False with `error` naming
    // the file on the first write error (an error seen during the export is reported here
    // too): then no output is put in place and every target stays as it was.
    bool finish(std::string& error);
    // Instead of finish(), after a failed parse: removes every output written so far; every
    // target stays as it was (docs/export.md#how-outputs-are-written).
    void abandon();
    // The files written so far, in the order they were created.
    virtual std::vector<std::string> writtenFiles() const = 0;
    // Files of an earlier export that finish() removed (Perfetto's stale parts).
    virtual std::vector<std::string> removedFiles() const { return {}; }
    const WarningLog& warnings() const { return m_warnings; }

    void onFileBegin(std::string_view file) final;
    void onHeader(std::string_view key, std::string_view value, atp::SourceLocation where) override;
    void onMarker(const atp::MarkerEvent& marker) override;
    void onFileEnd(std::string_view file) final;

protected:
    Exporter();

    // The start of a traced file, after its pid and its markers have been reset.
    virtual void beginFile(std::string_view file) { (void)file; }
    // A marker span, as the marker lines of a thread close it (see MarkerMatcher).
    virtual void writeMarker(const MarkerSpan& span) = 0;
    // The end of a traced file, after its last marker spans were written.
    virtual void endFile() {}
    // What finish() does once the last file has ended: close every output and put it in place,
    // or on an error remove them all.
    virtual bool closeOutputs(std::string& error) = 0;
    // What abandon() does: remove every output (closing it first).
    virtual void discardOutputs() = 0;

    WarningLog m_warnings;
    ProcessIds m_processIds;
    MarkerMatcher m_markers;

private:
    bool m_inFile = false;  // between onFileBegin and onFileEnd
};

}  // namespace perfmarker::exporter
