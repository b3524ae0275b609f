#include "export/csv_exporter.h"

#include <algorithm>

namespace perfmarker::exporter {

namespace {

// A time, or an empty field for an unknown one (0, docs/format.md#unknown-times).
void time(CsvFile& out, uint64_t ns) {
    if (ns != 0) {
        out.number(ns);
    } else {
        out.empty();
    }
}

// Start, end and duration: each empty when a time it needs is unknown. A duration that ends
// before it starts stays negative, as recorded (the reader named the line).
void interval(CsvFile& out, uint64_t start, uint64_t end) {
    time(out, start);
    time(out, end);
    if (start != 0 && end != 0) {
        out.signedNumber(static_cast<int64_t>(end - start));
    } else {
        out.empty();
    }
}

}  // namespace

CsvExporter::CsvExporter(std::string base) : m_base(std::move(base)) {}

void CsvExporter::openTables() {
    m_tables.open(kApi, m_base + "-api.csv", kApiHeader);
    m_tables.open(kEnqueues, m_base + "-enqueues.csv", kEnqueueHeader);
    m_tables.open(kMarkers, m_base + "-markers.csv", kMarkerHeader);
}

void CsvExporter::beginFile(std::string_view file) {
    (void)file;
    openTables();
}

// One row of <base>-api.csv; the parameters joined with ';' as in the trace.
void CsvExporter::writeApiCall(uint64_t tid, uint64_t index, std::string_view name,
                               std::string_view returnValue, uint64_t start, uint64_t end,
                               const std::vector<std::string_view>& params,
                               std::string_view family) {
    if (atp::timesOf(start, end) == atp::Times::Known) m_markers.noteTime(tid, end);
    m_params.clear();
    for (size_t i = 0; i < params.size(); ++i) {
        if (i > 0) m_params.push_back(';');
        m_params.append(params[i]);
    }
    CsvFile& api = m_tables[kApi];
    api.number(pid()).number(tid).number(index).field(name).field(returnValue);
    interval(api, start, end);
    api.field(m_params).field(family).endRow();
}

void CsvExporter::onOclApiCall(const atp::OclApiCall& call) {
    writeApiCall(call.tid, call.index, call.name, call.returnValue, call.start, call.end,
                 call.params, "OpenCL");
    if (call.hasCommand) writeOclCommand(call);
}

void CsvExporter::writeOclCommand(const atp::OclApiCall& call) {
    const atp::OclCommand& command = call.command;
    CsvFile& out = m_tables[kEnqueues];
    out.number(pid()).number(call.tid).number(call.index).field(call.name);
    out.number(command.commandType).field(command.commandName).number(command.queueId);
    out.field(command.queueHandle).number(command.contextId).field(command.contextHandle);
    out.field(command.deviceName);
    time(out, command.queued);
    time(out, command.submit);
    interval(out, command.start, command.end);
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
    writeApiCall(call.tid, call.index, call.name, call.returnValue, call.start, call.end,
                 call.params, "HSA");
    if (!call.hasTransferTimes) return;
    CsvFile& out = m_tables[kEnqueues];
    out.number(pid()).number(call.tid).number(call.index).field(call.name);
    out.empty().field("async copy").empty().empty().empty().empty().empty().empty().empty();
    interval(out, call.transferStart, call.transferEnd);
    out.empty().empty().empty().empty().empty().field("HSA").endRow();
}

void CsvExporter::onHsaKernelDispatch(const atp::HsaKernelDispatch& dispatch) {
    CsvFile& out = m_tables[kEnqueues];
    out.number(pid()).empty().empty().empty().empty().field(dispatch.packetType);
    if (dispatch.hasQueueIndex) {
        out.number(dispatch.queueIndex);
    } else {
        out.empty();  // a line older than format 3.2
    }
    out.empty().empty().empty().field(dispatch.agentName);
    out.empty().empty();
    interval(out, dispatch.start, dispatch.end);
    out.field(dispatch.kernelHandle).field(dispatch.kernelName).empty().empty().empty();
    out.field("HSA").endRow();
}

void CsvExporter::writeMarker(const MarkerSpan& span) {
    CsvFile& out = m_tables[kMarkers];
    out.number(pid()).number(span.tid).field(span.name).field(span.group).field(span.userString);
    out.number(span.begin).number(span.end).number(span.end - span.begin).number(span.depth);
    out.number(span.unclosed ? 1 : 0).endRow();
}

bool CsvExporter::closeOutputs(std::string& error) {
    openTables();  // no input at all still gives the three tables with their headers
    if (m_tables.close(error)) return m_tables.commit(error);
    m_tables.discard();
    return false;
}

}  // namespace perfmarker::exporter
