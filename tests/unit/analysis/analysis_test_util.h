// Builds typed trace records for the analysis tests. The records hold string views, so the
// builder owns every string it hands out (a deque keeps them in place).
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/summary.h"

namespace perfmarker::analysis::test {

class Records {
public:
    std::string_view keep(std::string text) {
        m_strings.push_back(std::move(text));
        return m_strings.back();
    }

    atp::OclApiCall ocl(uint64_t tid, std::string ret, std::string name,
                        std::vector<std::string> params, uint64_t start, uint64_t end) {
        atp::OclApiCall call;
        call.tid = tid;
        call.index = m_index++;
        call.returnValue = keep(std::move(ret));
        call.name = keep(std::move(name));
        for (std::string& param : params) call.params.push_back(keep(std::move(param)));
        call.start = start;
        call.end = end;
        return call;
    }

    // Adds the device part of a successful enqueue.
    void command(atp::OclApiCall& call, std::string type, uint64_t start, uint64_t end,
                 uint64_t queueId = 0, std::string queue = "0x100", uint64_t contextId = 0,
                 std::string context = "0x10", std::string device = "gfx900") {
        call.hasCommand = true;
        atp::OclCommand& c = call.command;
        c.commandName = keep(std::move(type));
        c.queued = c.submit = start;
        c.start = start;
        c.end = end;
        c.queueId = queueId;
        c.queueHandle = keep(std::move(queue));
        c.contextId = contextId;
        c.contextHandle = keep(std::move(context));
        c.deviceName = keep(std::move(device));
    }

    void kernel(atp::OclApiCall& call, std::string name, std::string global, std::string local) {
        call.command.isKernel = true;
        call.command.kernelName = std::move(name);
        call.command.globalSize = keep(std::move(global));
        call.command.localSize = keep(std::move(local));
    }

    void dataSize(atp::OclApiCall& call, uint64_t bytes) {
        call.command.hasDataSize = true;
        call.command.dataSize = bytes;
    }

    atp::HsaApiCall hsa(uint64_t tid, std::string ret, std::string name,
                        std::vector<std::string> params, uint64_t start, uint64_t end) {
        atp::HsaApiCall call;
        call.tid = tid;
        call.index = m_index++;
        call.returnValue = keep(std::move(ret));
        call.name = keep(std::move(name));
        for (std::string& param : params) call.params.push_back(keep(std::move(param)));
        call.start = start;
        call.end = end;
        return call;
    }

    atp::HsaKernelDispatch dispatch(std::string kernel, std::string agent, uint64_t start,
                                    uint64_t end) {
        atp::HsaKernelDispatch dispatch;
        dispatch.kernelName = std::move(kernel);
        dispatch.agentName = std::move(agent);
        dispatch.start = start;
        dispatch.end = end;
        return dispatch;
    }

    // Feeds one marker line.
    void marker(TraceSummary& summary, uint64_t tid, atp::MarkerKind kind, uint64_t ns,
                std::string name = {}, std::string group = "Default") {
        atp::Marker marker;
        marker.kind = kind;
        marker.timestampNs = ns;
        marker.name = std::move(name);
        marker.group = std::move(group);
        marker.line = ++m_line;
        atp::MarkerEvent event;
        event.tid = tid;
        event.marker = &marker;
        event.line = atp::SourceLocation{"t.atp", m_line};
        summary.onMarker(event);
    }

private:
    std::deque<std::string> m_strings;
    uint64_t m_index = 0;
    uint64_t m_line = 0;
};

// The table with `id`, or nullptr.
inline const Table* findTable(const std::vector<Table>& tables, const std::string& id) {
    for (const Table& table : tables) {
        if (table.id == id) return &table;
    }
    return nullptr;
}

// The cell of `row` under `column`, or "<missing>".
inline std::string cell(const Table& table, size_t row, const std::string& column) {
    for (size_t i = 0; i < table.columns.size(); ++i) {
        if (table.columns[i] == column && row < table.rows.size() && i < table.rows[row].size()) {
            return table.rows[row][i];
        }
    }
    return "<missing>";
}

}  // namespace perfmarker::analysis::test
