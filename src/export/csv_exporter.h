// The flat CSV exporter for spreadsheets and pandas (docs/export.md): <base>-api.csv (every
// API call), <base>-enqueues.csv (every device command with all its fields) and
// <base>-markers.csv (marker spans), RFC 4180 quoting, times in ns.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "export/csv_writer.h"
#include "export/exporter.h"

namespace perfmarker::exporter {

class CsvExporter : public Exporter {
public:
    explicit CsvExporter(std::string base);

    void onOclApiCall(const atp::OclApiCall& call) override;
    void onHsaApiCall(const atp::HsaApiCall& call) override;
    void onHsaKernelDispatch(const atp::HsaKernelDispatch& dispatch) override;
    std::vector<std::string> writtenFiles() const override { return m_tables.written(); }

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
    void beginFile(std::string_view file) override;
    void writeMarker(const MarkerSpan& span) override;
    bool closeOutputs(std::string& error) override;
    void discardOutputs() override { m_tables.discard(); }
    void openTables();
    uint64_t pid() { return m_processIds.pid(m_warnings); }
    void writeApiCall(uint64_t tid, uint64_t index, std::string_view name,
                      std::string_view returnValue, uint64_t start, uint64_t end,
                      const std::vector<std::string_view>& params, std::string_view family);
    void writeOclCommand(const atp::OclApiCall& call);

    std::string m_base;
    CsvTables m_tables{kTableCount};
    std::string m_params;
};

}  // namespace perfmarker::exporter
