// The flat CSV exporter for spreadsheets and pandas (docs/export.md): <base>-api.csv (every
// API call), <base>-enqueues.csv (every device command with all its fields) and
// <base>-markers.csv (marker spans), RFC 4180 quoting, times in ns.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "export/csv_writer.h"
#include "export/export_common.h"
#include "export/marker_spans.h"

namespace perfmarker::exporter {

class CsvExporter : public Exporter {
public:
    explicit CsvExporter(std::string base);

    void onFileBegin(std::string_view file) override;
    void onHeader(std::string_view key, std::string_view value, atp::SourceLocation where) override;
    void onOclApiCall(const atp::OclApiCall& call) override;
    void onHsaApiCall(const atp::HsaApiCall& call) override;
    void onHsaKernelDispatch(const atp::HsaKernelDispatch& dispatch) override;
    void onMarker(const atp::MarkerEvent& marker) override;
    void onFileEnd(std::string_view file) override;

    bool finish(std::string& error) override;
    std::vector<std::string> writtenFiles() const override { return m_written; }

    static constexpr std::string_view kApiHeader =
        "pid,tid,index,name,return,start,end,duration,params,family";
    static constexpr std::string_view kEnqueueHeader =
        "pid,tid,index,api,command_type,command,queue_id,queue_handle,context_id,"
        "context_handle,device,queued,submit,start,end,duration,kernel_handle,kernel_name,"
        "global_size,local_size,bytes,family";
    static constexpr std::string_view kMarkerHeader =
        "pid,tid,name,group,user_string,begin,end,duration,depth,unclosed";

private:
    enum Table : size_t { kApi, kEnqueues, kMarkers, kTableCount };
    void openTables();
    uint64_t pid();
    void writeMarker(const MarkerSpan& span);
    void writeOclCommand(const atp::OclApiCall& call);

    std::string m_base;
    ProcessIds m_processIds;
    MarkerMatcher m_markers;
    std::array<CsvFile, kTableCount> m_tables;
    std::vector<std::string> m_written;
    std::string m_error;
    bool m_inFile = false;  // between onFileBegin and onFileEnd
    std::string m_params;
};

}  // namespace perfmarker::exporter
