#include "export/csv_exporter.h"

#include <algorithm>

namespace perfmarker::exporter {

CsvExporter::CsvExporter(std::string base)
    : m_base(std::move(base)), m_markers([this](const MarkerSpan& span) { writeMarker(span); }) {}

void CsvExporter::openTables() {
    if (!m_written.empty()) return;
    const std::array<std::pair<std::string_view, std::string_view>, kTableCount> tables = {
        {{"-api.csv", kApiHeader},
         {"-enqueues.csv", kEnqueueHeader},
         {"-markers.csv", kMarkerHeader}}};
    for (size_t i = 0; i < kTableCount; ++i) {
        const std::string path = m_base + std::string(tables[i].first);
        m_written.push_back(path);
        if (!m_tables[i].open(path, tables[i].second) && m_error.empty()) {
            m_error = m_tables[i].error();
        }
    }
}

void CsvExporter::onFileBegin(std::string_view file) {
    m_inFile = true;
    openTables();
    m_processIds.beginFile(file);
    m_markers.beginFile(file);
}

void CsvExporter::onHeader(std::string_view key, std::string_view value,
                           atp::SourceLocation where) {
    (void)where;
    m_processIds.header(key, value);
}

uint64_t CsvExporter::pid() { return m_processIds.pid(m_warnings); }

void CsvExporter::onOclApiCall(const atp::OclApiCall& call) {
    m_markers.noteTime(call.tid, call.end);
    m_params.clear();
    for (size_t i = 0; i < call.params.size(); ++i) {
        if (i > 0) m_params.push_back(';');
        m_params.append(call.params[i]);
    }
    CsvFile& api = m_tables[kApi];
    api.number(pid()).number(call.tid).number(call.index).field(call.name).field(call.returnValue);
    api.number(call.start)
        .number(call.end)
        .signedNumber(static_cast<int64_t>(call.end - call.start));
    api.field(m_params).field("OpenCL").endRow();
    if (call.hasCommand) writeOclCommand(call);
}

void CsvExporter::writeOclCommand(const atp::OclApiCall& call) {
    const atp::OclCommand& command = call.command;
    CsvFile& out = m_tables[kEnqueues];
    out.number(pid()).number(call.tid).number(call.index).field(call.name);
    out.number(command.commandType).field(command.commandName).number(command.queueId);
    out.field(command.queueHandle).number(command.contextId).field(command.contextHandle);
    out.field(command.deviceName).number(command.queued).number(command.submit);
    out.number(command.start).number(command.end);
    out.signedNumber(static_cast<int64_t>(command.end - command.start));
    out.field(command.kernelHandle).field(command.kernelName).field(command.globalSize);
    out.field(command.localSize);
    if (command.hasDataSize) {
        out.number(command.dataSize);
    } else {
        out.empty();
    }
    out.field("OpenCL").endRow();
}

void CsvExporter::onHsaApiCall(const atp::HsaApiCall& call) {
    m_markers.noteTime(call.tid, call.end);
    m_params.clear();
    for (size_t i = 0; i < call.params.size(); ++i) {
        if (i > 0) m_params.push_back(';');
        m_params.append(call.params[i]);
    }
    CsvFile& api = m_tables[kApi];
    api.number(pid()).number(call.tid).number(call.index).field(call.name).field(call.returnValue);
    api.number(call.start)
        .number(call.end)
        .signedNumber(static_cast<int64_t>(call.end - call.start));
    api.field(m_params).field("HSA").endRow();
    if (!call.hasTransferTimes) return;
    CsvFile& out = m_tables[kEnqueues];
    out.number(pid()).number(call.tid).number(call.index).field(call.name);
    out.empty().field("async copy").empty().empty().empty().empty().empty().empty().empty();
    out.number(call.transferStart).number(call.transferEnd);
    out.signedNumber(static_cast<int64_t>(call.transferEnd - call.transferStart));
    out.empty().empty().empty().empty().empty().field("HSA").endRow();
}

void CsvExporter::onHsaKernelDispatch(const atp::HsaKernelDispatch& dispatch) {
    CsvFile& out = m_tables[kEnqueues];
    out.number(pid()).empty().empty().empty().empty().field(dispatch.packetType);
    out.number(dispatch.queueIndex).empty().empty().empty().field(dispatch.agentName);
    out.empty().empty().number(dispatch.start).number(dispatch.end);
    out.signedNumber(static_cast<int64_t>(dispatch.end - dispatch.start));
    out.field(dispatch.kernelHandle).field(dispatch.kernelName).empty().empty().empty();
    out.field("HSA").endRow();
}

void CsvExporter::onMarker(const atp::MarkerEvent& marker) { m_markers.add(marker, m_warnings); }

void CsvExporter::writeMarker(const MarkerSpan& span) {
    CsvFile& out = m_tables[kMarkers];
    out.number(pid()).number(span.tid).field(span.name).field(span.group).field(span.userString);
    out.number(span.begin).number(span.end).number(span.end - span.begin).number(span.depth);
    out.number(span.unclosed ? 1 : 0).endRow();
}

void CsvExporter::onFileEnd(std::string_view file) {
    (void)file;
    m_inFile = false;
    m_markers.endFile(m_warnings);
}

bool CsvExporter::finish(std::string& error) {
    // A parse that failed half way never ends its file: write what it delivered.
    if (m_inFile) onFileEnd({});
    openTables();  // no input at all still gives the three tables with their headers
    for (CsvFile& file : m_tables) {
        if (file.isOpen() && !file.close() && m_error.empty()) m_error = file.error();
    }
    if (!m_error.empty()) error = m_error;
    return m_error.empty();
}

}  // namespace perfmarker::exporter
