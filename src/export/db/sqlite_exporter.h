// The SQLite exporter (docs/sqlite.md): one database for all the traces of an export, in the
// documented schema (sqlite_schema.h): processes, threads, queues, every API call, every device
// command with usable device times, every marker span, indexes on the time and name columns,
// and views that give the summary pages. Rows go in through prepared statements in one
// transaction, as the reader announces them; nothing is kept per record.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "export/db/db_output.h"
#include "export/db/export_progress.h"
#include "export/db/sqlite_db.h"
#include "export/exporter.h"

namespace perfmarker::exporter::db {

struct SqliteOptions {
    std::string path;      // the database file
    bool replace = false;  // replace an existing database (--force)
    ExportProgress* progress = nullptr;
};

class SqliteExporter : public Exporter, public CountedExport {
public:
    explicit SqliteExporter(SqliteOptions options);
    ~SqliteExporter() override;

    void onHeader(std::string_view key, std::string_view value, atp::SourceLocation where) override;
    void onOclApiCall(const atp::OclApiCall& call) override;
    void onHsaApiCall(const atp::HsaApiCall& call) override;
    void onHsaKernelDispatch(const atp::HsaKernelDispatch& dispatch) override;
    std::vector<std::string> writtenFiles() const override;
    ExportCounts counts() const override { return m_counts; }

private:
    // Family ("OpenCL", "HSA"), queue id or index, device.
    using QueueKey = std::tuple<std::string_view, uint64_t, std::string>;
    struct QueueFacts {
        std::string_view family;
        uint64_t queue = 0;
        bool hasQueue = true;
        std::string_view device;
        std::string_view handle;
        bool hasContext = false;
        uint64_t context = 0;
        std::string_view contextHandle;
    };

    void beginFile(std::string_view file) override;
    void writeMarker(const MarkerSpan& span) override;
    void endFile() override;
    bool closeOutputs(std::string& error) override;
    void discardOutputs() override;

    bool ensureOpen();
    bool writing() const { return m_db.isOpen() && !m_db.failed(); }
    int64_t process();
    int64_t thread(uint64_t tid);
    int64_t queue(const QueueFacts& facts);
    int64_t insertApiCall(uint64_t tid, uint64_t index, std::string_view name,
                          std::string_view result, uint64_t start, uint64_t end,
                          const std::vector<std::string_view>& params, std::string_view family);
    void insertOclCommand(const atp::OclApiCall& call, int64_t apiCall);
    bool finishDatabase();

    SqliteOptions m_options;
    StagedFile m_output;  // declared before the database: removed after it is closed
    SqliteDb m_db;        // declared before its statements: closed after they are finalized
    SqliteStatement m_insertProcess;
    SqliteStatement m_insertThread;
    SqliteStatement m_insertQueue;
    SqliteStatement m_insertApiCall;
    SqliteStatement m_insertCommand;
    SqliteStatement m_insertMarker;
    bool m_openTried = false;
    bool m_committed = false;
    std::string m_error;
    ExportCounts m_counts;
    int64_t m_lastProcess = 0;
    int64_t m_lastThread = 0;
    int64_t m_lastQueue = 0;
    int64_t m_lastApiCall = 0;
    int64_t m_lastCommand = 0;
    int64_t m_lastMarker = 0;
    std::string m_args;  // reused

    // Per traced file.
    std::string m_trace;
    std::string m_host;
    std::string m_application;
    int64_t m_process = 0;  // 0 until its row is written
    std::unordered_map<uint64_t, int64_t> m_threads;
    std::map<QueueKey, int64_t> m_queues;
    QueueKey m_recentQueue;  // the queue looked up last, and its row
    int64_t m_recentQueueRow = 0;
};

}  // namespace perfmarker::exporter::db
