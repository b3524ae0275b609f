#include "export/db/sqlite_exporter.h"

#include "atp/format/clock_anchors.h"
#include "export/db/sqlite_schema.h"

namespace perfmarker::exporter::db {
namespace {

constexpr std::string_view kOpenCl = "OpenCL";
constexpr std::string_view kHsa = "HSA";

// The database is a new file renamed into place at the end (db_output.h): no journal is needed
// to keep an existing one intact, and nothing is synced until then. The sorts that build the
// indexes spill to temporary files past the cache: in memory they grew with the trace (608 MB
// for 10M marker pairs, against 207 MB and a quarter less time; docs/sqlite.md).
constexpr std::string_view kPragmas =
    "PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE;"
    "PRAGMA temp_store = FILE; PRAGMA cache_size = -16384; PRAGMA page_size = 8192;";

std::string_view categoryName(CommandClass kind) {
    switch (kind) {
        case CommandClass::Kernel:
            return "kernel";
        case CommandClass::Memory:
            return "memory";
        case CommandClass::Other:
            break;
    }
    return "other";
}

}  // namespace

SqliteExporter::SqliteExporter(SqliteOptions options) : m_options(std::move(options)) {}

SqliteExporter::~SqliteExporter() = default;

std::vector<std::string> SqliteExporter::writtenFiles() const {
    if (!m_committed) return {};
    return {m_output.target()};
}

bool SqliteExporter::ensureOpen() {
    if (m_openTried) return m_error.empty() && !m_db.failed();
    m_openTried = true;
    if (!m_output.create(m_options.path, m_options.replace, m_error)) return false;
    if (m_db.open(m_output.path()) && m_db.exec(kPragmas) && m_db.exec(kSchemaTables) &&
        m_db.exec("BEGIN") && m_insertProcess.prepare(m_db, kInsertProcess) &&
        m_insertThread.prepare(m_db, kInsertThread) && m_insertQueue.prepare(m_db, kInsertQueue) &&
        m_insertApiCall.prepare(m_db, kInsertApiCall) &&
        m_insertCommand.prepare(m_db, kInsertCommand) &&
        m_insertMarker.prepare(m_db, kInsertMarker)) {
        return true;
    }
    m_error = m_options.path + ": " + m_db.error();
    return false;
}

void SqliteExporter::beginFile(std::string_view file) {
    m_trace.assign(file);
    m_host.clear();
    m_application.clear();
    m_process = 0;
    m_threads.clear();
    m_queues.clear();
    m_recentQueueRow = 0;
    ensureOpen();
}

void SqliteExporter::onHeader(std::string_view key, std::string_view value,
                              atp::SourceLocation where) {
    Exporter::onHeader(key, value, where);
    if (key == atp::kHostNameKey) m_host.assign(value);
    if (key == "Application") m_application.assign(value);
}

// The current file's process row, written when its first record comes (after the header,
// which decides the pid) or at its end.
int64_t SqliteExporter::process() {
    if (m_process != 0) return m_process;
    m_process = ++m_lastProcess;
    ++m_counts.processes;
    m_insertProcess.integer(1, m_process).unsignedInteger(2, m_processIds.pid(m_warnings));
    if (m_host.empty()) {
        m_insertProcess.null(3);
    } else {
        m_insertProcess.text(3, m_host);
    }
    if (m_application.empty()) {
        m_insertProcess.null(4);
    } else {
        m_insertProcess.text(4, m_application);
    }
    m_insertProcess.text(5, m_trace).step();
    return m_process;
}

int64_t SqliteExporter::thread(uint64_t tid) {
    auto [it, inserted] = m_threads.try_emplace(tid, 0);
    if (!inserted) return it->second;
    it->second = ++m_lastThread;
    const int64_t owner = process();
    m_insertThread.integer(1, it->second).integer(2, owner).unsignedInteger(3, tid).step();
    return it->second;
}

int64_t SqliteExporter::queue(const QueueFacts& facts) {
    const auto& [family, id, device] = m_recentQueue;
    if (m_recentQueueRow != 0 && family == facts.family && id == facts.queue &&
        device == facts.device) {
        return m_recentQueueRow;
    }
    m_recentQueue = QueueKey{facts.family, facts.queue, std::string(facts.device)};
    auto [it, inserted] = m_queues.try_emplace(m_recentQueue, 0);
    m_recentQueueRow = inserted ? ++m_lastQueue : it->second;
    if (!inserted) return m_recentQueueRow;
    it->second = m_recentQueueRow;
    SqliteStatement& row = m_insertQueue;
    row.integer(1, m_recentQueueRow).integer(2, process()).text(3, facts.family);
    if (facts.hasQueue) {
        row.unsignedInteger(4, facts.queue);
    } else {
        row.null(4);  // an HSA line older than format 3.2
    }
    row.text(5, facts.device);
    if (facts.handle.empty()) {
        row.null(6);
    } else {
        row.text(6, facts.handle);
    }
    if (facts.hasContext) {
        row.unsignedInteger(7, facts.context).text(8, facts.contextHandle);
    } else {
        row.null(7).null(8);
    }
    row.step();
    return m_recentQueueRow;
}

// Every call gets its row; unknown times are NULL (docs/sqlite.md#unknown-times).
int64_t SqliteExporter::insertApiCall(uint64_t tid, uint64_t index, std::string_view name,
                                      std::string_view result, uint64_t start, uint64_t end,
                                      const std::vector<std::string_view>& params,
                                      std::string_view family) {
    if (atp::timesOf(start, end) == atp::Times::Known) m_markers.noteTime(tid, end);
    m_args.clear();
    for (size_t i = 0; i < params.size(); ++i) {
        if (i > 0) m_args.push_back(';');
        m_args.append(params[i]);
    }
    const int64_t id = ++m_lastApiCall;
    SqliteStatement& row = m_insertApiCall;
    row.integer(1, id).integer(2, process()).integer(3, thread(tid)).text(4, name);
    row.time(5, start).time(6, end);
    if (result.empty()) {
        row.null(7);
    } else {
        row.text(7, result);
    }
    row.text(8, m_args).text(9, family).unsignedInteger(10, index);
    ++m_counts.apiCalls;
    return id;
}

void SqliteExporter::onOclApiCall(const atp::OclApiCall& call) {
    if (!writing()) return;
    const int64_t id = insertApiCall(call.tid, call.index, call.name, call.returnValue, call.start,
                                     call.end, call.params, kOpenCl);
    m_insertApiCall.integer(11, call.consecutiveCalls);
    if (call.comment.empty()) {
        m_insertApiCall.null(12);
    } else {
        m_insertApiCall.text(12, call.comment);
    }
    m_insertApiCall.step();
    if (!call.hasCommand) return;
    if (atp::deviceTimes(call.command) != atp::Times::Known) {
        ++m_counts.commandsLeftOut;  // docs/export.md#unknown-times
        return;
    }
    insertOclCommand(call, id);
}

void SqliteExporter::insertOclCommand(const atp::OclApiCall& call, int64_t apiCall) {
    const atp::OclCommand& command = call.command;
    QueueFacts facts;
    facts.family = kOpenCl;
    facts.queue = command.queueId;
    facts.device = command.deviceName;
    facts.handle = command.queueHandle;
    facts.hasContext = true;
    facts.context = command.contextId;
    facts.contextHandle = command.contextHandle;
    const CommandClass kind = classifyCommand(command);
    const bool namedKernel = kind == CommandClass::Kernel && !command.kernelName.empty();
    SqliteStatement& row = m_insertCommand;
    row.integer(1, ++m_lastCommand).integer(2, apiCall).integer(3, queue(facts));
    row.text(4, command.commandName);
    row.text(5, namedKernel ? std::string_view(command.kernelName) : command.commandName);
    row.time(6, command.queued).time(7, command.submit);
    row.unsignedInteger(8, command.start).unsignedInteger(9, command.end);
    if (command.hasDataSize) {
        row.unsignedInteger(10, command.dataSize);
    } else {
        row.null(10);
    }
    row.integer(11, process()).text(12, kOpenCl).text(13, categoryName(kind));
    row.integer(14, command.commandType);
    if (command.isKernel) {
        row.text(15, command.kernelHandle).text(16, command.globalSize);
        row.text(17, command.localSize);
    } else {
        row.null(15).null(16).null(17);
    }
    row.step();
    ++m_counts.commands;
}

void SqliteExporter::onHsaApiCall(const atp::HsaApiCall& call) {
    if (!writing()) return;
    const int64_t id = insertApiCall(call.tid, call.index, call.name, call.returnValue, call.start,
                                     call.end, call.params, kHsa);
    m_insertApiCall.integer(11, 1).null(12).step();
    if (!call.hasTransferTimes) return;
    if (atp::transferTimes(call) != atp::Times::Known) {
        ++m_counts.commandsLeftOut;
        return;
    }
    SqliteStatement& row = m_insertCommand;
    row.integer(1, ++m_lastCommand).integer(2, id).null(3).text(4, "async copy").text(5, call.name);
    row.null(6).null(7).unsignedInteger(8, call.transferStart);
    row.unsignedInteger(9, call.transferEnd).null(10).integer(11, process()).text(12, kHsa);
    row.text(13, "memory").null(14).null(15).null(16).null(17).step();
    ++m_counts.commands;
}

void SqliteExporter::onHsaKernelDispatch(const atp::HsaKernelDispatch& dispatch) {
    if (!writing()) return;
    if (atp::deviceTimes(dispatch) != atp::Times::Known) {
        ++m_counts.commandsLeftOut;
        return;
    }
    QueueFacts facts;
    facts.family = kHsa;
    facts.queue = dispatch.queueIndex;
    facts.hasQueue = dispatch.hasQueueIndex;
    facts.device = dispatch.agentName;
    SqliteStatement& row = m_insertCommand;
    row.integer(1, ++m_lastCommand).null(2).integer(3, queue(facts)).text(4, dispatch.packetType);
    row.text(5, dispatch.kernelName).null(6).null(7).unsignedInteger(8, dispatch.start);
    row.unsignedInteger(9, dispatch.end).null(10).integer(11, process()).text(12, kHsa);
    row.text(13, "kernel").null(14).text(15, dispatch.kernelHandle).null(16).null(17).step();
    ++m_counts.commands;
}

void SqliteExporter::writeMarker(const MarkerSpan& span) {
    if (!writing()) return;
    SqliteStatement& row = m_insertMarker;
    row.integer(1, ++m_lastMarker).integer(2, process()).integer(3, thread(span.tid));
    row.text(4, span.name).text(5, span.group).unsignedInteger(6, span.begin);
    row.unsignedInteger(7, span.end).integer(8, span.depth);
    if (span.userString.empty()) {
        row.null(9);
    } else {
        row.text(9, span.userString);
    }
    row.integer(10, span.unclosed ? 1 : 0).step();
    ++m_counts.markers;
}

void SqliteExporter::endFile() {
    if (writing()) process();  // a trace without records still has its process
}

// The indexes after the rows (faster than keeping them up to date row by row), the views, the
// one commit, and the file closed.
bool SqliteExporter::finishDatabase() {
    SqliteStatement meta;
    if (meta.prepare(m_db, kInsertMeta)) {
        meta.text(1, "schema_version").text(2, kSchemaVersion).step();
        meta.text(1, "created_by").text(2, "perfmarker export").step();
        meta.text(1, "time_unit").text(2, "ns").step();
        meta.text(1, "clock").text(2, "CLOCK_MONOTONIC of the first host").step();
    }
    meta.finalize();
    if (m_options.progress != nullptr) {
        m_options.progress->step("creating the indexes of " + m_options.path, 0, 1);
    }
    const bool built = m_db.exec(kSchemaIndexes) && m_db.exec(kSchemaViews) && m_db.exec("COMMIT");
    if (m_options.progress != nullptr) {
        m_options.progress->step("creating the indexes of " + m_options.path, 1, 1);
    }
    for (SqliteStatement* statement : {&m_insertProcess, &m_insertThread, &m_insertQueue,
                                       &m_insertApiCall, &m_insertCommand, &m_insertMarker}) {
        statement->finalize();
    }
    const bool closed = m_db.close();
    return built && closed;
}

bool SqliteExporter::closeOutputs(std::string& error) {
    ensureOpen();
    if (m_error.empty() && !finishDatabase()) m_error = m_options.path + ": " + m_db.error();
    if (m_error.empty() && m_output.commit(m_error)) {
        m_committed = true;
        return true;
    }
    error = m_error;
    discardOutputs();
    return false;
}

void SqliteExporter::discardOutputs() {
    for (SqliteStatement* statement : {&m_insertProcess, &m_insertThread, &m_insertQueue,
                                       &m_insertApiCall, &m_insertCommand, &m_insertMarker}) {
        statement->finalize();
    }
    m_db.close();
    m_output.discard();
}

}  // namespace perfmarker::exporter::db
