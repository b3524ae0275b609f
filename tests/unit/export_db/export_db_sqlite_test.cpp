// The SQLite export (src/export/db/sqlite_exporter.h, docs/sqlite.md), queried with SQLite: the
// documented tables and columns, the rows of the fixture traces, and the summary views checked
// against the pages `perfmarker summary` computes for the same traces (analysis::TraceSummary);
// unknown device times left out, several traces, and databases refused, replaced or left
// behind as docs/export.md says.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <map>

#include "analysis/format.h"
#include "analysis/summary.h"
#include "export/db/sqlite_exporter.h"
#include "export_db_test_support.h"

namespace perfmarker::exporter::db::test {
namespace {

using Rows = std::vector<std::vector<std::string>>;

// The rows of `sql` on the database at `path`, every value as text ("NULL" for NULL).
Rows query(const std::string& path, const std::string& sql) {
    sqlite3* db = nullptr;
    Rows rows;
    EXPECT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* statement = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db, sql.c_str(), -1, &statement, nullptr), SQLITE_OK)
        << sql << ": " << sqlite3_errmsg(db);
    while (statement != nullptr && sqlite3_step(statement) == SQLITE_ROW) {
        std::vector<std::string>& row = rows.emplace_back();
        for (int i = 0; i < sqlite3_column_count(statement); ++i) {
            const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, i));
            row.push_back(text != nullptr ? text : "NULL");
        }
    }
    sqlite3_finalize(statement);
    sqlite3_close(db);
    return rows;
}

std::string one(const std::string& path, const std::string& sql) {
    const Rows rows = query(path, sql);
    return rows.size() == 1 && rows[0].size() == 1 ? rows[0][0] : "<" + sql + ">";
}

uint64_t number(const std::string& text) { return std::stoull(text); }

// The export of `traces` into <scratch>/run.db.
std::string exportDb(const Scratch& scratch, const std::vector<std::string>& traces,
                     ExportCounts* counts = nullptr) {
    const std::string path = scratch.file("run.db");
    SqliteExporter exporter(SqliteOptions{path, false, nullptr});
    std::string error;
    EXPECT_TRUE(runExport(exporter, traces, error)) << error;
    EXPECT_EQ(exporter.writtenFiles(), std::vector<std::string>{path});
    if (counts != nullptr) *counts = exporter.counts();
    return path;
}

// The pages of `perfmarker summary` for the same traces, by table id.
std::map<std::string, analysis::Table> summaryOf(const std::vector<std::string>& traces) {
    analysis::TraceSummary summary;
    atp::TraceParser parser;
    parser.addListener(summary);
    std::string error;
    for (const std::string& trace : traces) EXPECT_TRUE(parser.parseFile(trace, error)) << error;
    std::map<std::string, analysis::Table> tables;
    for (analysis::Table& table : summary.tables()) tables[table.id] = std::move(table);
    return tables;
}

const std::vector<std::string> kSummaryFixtures = {
    "ocl_vecadd.atp", "hsa_reduce.atp",       "zero_device_times.atp", "legacy_codexl.atp",
    "ocl_stack.atp",  "hsa_kernels_only.atp", "end_before_start.atp",  "call_sites.atp"};

TEST(SqliteExport, TablesHaveTheDocumentedColumns) {
    Scratch scratch;
    const std::string db = exportDb(scratch, {kAtpFixtures + "ocl_vecadd.atp"});
    const std::map<std::string, std::vector<std::string>> documented = {
        {"processes", {"id", "pid", "host", "application", "trace"}},
        {"threads", {"id", "process", "tid"}},
        {"api_calls", {"id", "process", "thread", "name", "start_ns", "end_ns", "result", "args"}},
        {"commands",
         {"id", "api_call", "queue", "kind", "name", "queued_ns", "submit_ns", "start_ns", "end_ns",
          "bytes"}},
        {"markers",
         {"id", "process", "thread", "name", "group_name", "start_ns", "end_ns", "depth"}},
        {"api_summary", {"name", "calls", "total_ns", "avg_ns", "min_ns", "max_ns"}},
        {"kernel_summary", {"name", "device", "calls", "total_ns", "avg_ns", "min_ns", "max_ns"}},
        {"marker_summary",
         {"name", "group_name", "calls", "total_ns", "avg_ns", "min_ns", "max_ns"}},
        {"transfer_summary", {"kind", "context", "queue", "transfers", "total_ns", "bytes"}},
    };
    for (const auto& [table, columns] : documented) {
        std::vector<std::string> actual;
        for (const auto& row : query(db, "SELECT name FROM pragma_table_info('" + table + "')")) {
            actual.push_back(row[0]);
        }
        ASSERT_GE(actual.size(), columns.size()) << table;
        actual.resize(columns.size());  // the documented columns come first, in this order
        EXPECT_EQ(actual, columns) << table;
    }
    EXPECT_EQ(one(db, "SELECT value FROM meta WHERE key = 'schema_version'"), "1");
}

TEST(SqliteExport, IndexesOnTheTimeAndNameColumns) {
    Scratch scratch;
    const std::string db = exportDb(scratch, {kAtpFixtures + "ocl_vecadd.atp"});
    const Rows indexes = query(db,
                               "SELECT tbl_name || '.' || name FROM sqlite_master WHERE type = "
                               "'index' AND name NOT LIKE 'sqlite_%' ORDER BY 1");
    std::vector<std::string> names;
    for (const auto& row : indexes) names.push_back(row[0]);
    EXPECT_EQ(names,
              (std::vector<std::string>{"api_calls.api_calls_name", "api_calls.api_calls_start",
                                        "commands.commands_api_call", "commands.commands_name",
                                        "commands.commands_start", "markers.markers_name",
                                        "markers.markers_start"}));
    // A lookup by name uses its index.
    const Rows plan = query(db,
                            "EXPLAIN QUERY PLAN SELECT count(*) FROM api_calls WHERE name = "
                            "'clEnqueueNDRangeKernel'");
    ASSERT_FALSE(plan.empty());
    EXPECT_NE(plan.back().back().find("api_calls_name"), std::string::npos);
}

TEST(SqliteExport, VecaddRows) {
    Scratch scratch;
    ExportCounts counts;
    const std::string db = exportDb(scratch, {kAtpFixtures + "ocl_vecadd.atp"}, &counts);
    EXPECT_EQ(one(db, "SELECT count(*) FROM api_calls WHERE name = 'clEnqueueNDRangeKernel'"), "2");
    EXPECT_EQ(one(db, "SELECT count(*) FROM api_calls"), "25");  // one row per traced line
    // Each kernel once, with usable device times, linked to the call that enqueued it.
    EXPECT_EQ(
        query(db,
              "SELECT c.name, c.kind, a.name, c.end_ns > c.start_ns, q.device FROM commands "
              "c JOIN api_calls a ON a.id = c.api_call JOIN queues q ON q.id = c.queue "
              "WHERE c.category = 'kernel' ORDER BY c.start_ns"),
        (Rows{{"reduce", "CL_COMMAND_NDRANGE_KERNEL", "clEnqueueNDRangeKernel", "1", "gfx900"},
              {"reduce", "CL_COMMAND_TASK", "clEnqueueTask", "1", "gfx900"},
              {"NATIVE_KERNEL (0x401a2b)", "CL_COMMAND_NATIVE_KERNEL", "clEnqueueNativeKernel", "1",
               "CPU_Device"}}));
    EXPECT_EQ(query(db, "SELECT name, count(*) FROM markers GROUP BY name ORDER BY name"),
              (Rows{{"Frame 1", "1"}, {"Setup", "1"}, {"Upload", "1"}, {"WorkerDone", "1"}}));
    EXPECT_EQ(query(db, "SELECT name, depth, group_name FROM markers WHERE name = 'Upload'"),
              (Rows{{"Upload", "1", "Default"}}));
    EXPECT_EQ(one(db, "SELECT bytes FROM commands WHERE kind = 'CL_COMMAND_WRITE_BUFFER'"), "4096");
    EXPECT_EQ(one(db, "SELECT result FROM api_calls WHERE name = 'clCreateContext'"), "0x2071c40");
    EXPECT_EQ(one(db, "SELECT calls FROM api_calls WHERE name = 'clGetEventInfo'"), "37");
    EXPECT_EQ(one(db, "SELECT count(DISTINCT tid) FROM threads"), "2");
    EXPECT_EQ(counts.apiCalls, 25u);
    EXPECT_EQ(counts.commands, 7u);
    EXPECT_EQ(counts.markers, 4u);
}

// api_summary against the API Summary pages, row for row in the same order.
void expectApiSummary(const std::string& db, const std::map<std::string, analysis::Table>& pages) {
    Rows expected;
    for (const char* id : {"CLAPISummary", "HSAAPISummary"}) {
        if (pages.count(id) == 0) continue;
        for (const auto& row : pages.at(id).rows) {
            // API Name, Cumulative, %, # of Calls, Avg, Max, Min
            expected.push_back({row[0], row[3], row[1], row[4], row[6], row[5]});
        }
    }
    Rows actual;
    for (const auto& row :
         query(db, "SELECT name, calls, total_ns, min_ns, max_ns FROM api_summary")) {
        const uint64_t calls = number(row[1]);
        const uint64_t total = number(row[2]);
        actual.push_back({row[0], row[1], analysis::formatMs(total),
                          analysis::formatMsMean(total, calls), analysis::formatMs(number(row[3])),
                          analysis::formatMs(number(row[4]))});
    }
    EXPECT_EQ(actual, expected);
}

void expectKernelSummary(const std::string& db,
                         const std::map<std::string, analysis::Table>& pages) {
    std::multiset<std::vector<std::string>> expected;
    for (const char* id : {"CLKernelSummary", "HSAKernelSummary"}) {
        if (pages.count(id) == 0) continue;
        for (const auto& row : pages.at(id).rows) {
            // Kernel Name, Device Name, # of Calls, Total, %, Avg, Max, Min
            expected.insert({row[0], row[1], row[2], row[3], row[5], row[7], row[6]});
        }
    }
    std::multiset<std::vector<std::string>> actual;
    for (const auto& row : query(db,
                                 "SELECT name, device, calls, total_ns, min_ns, max_ns FROM "
                                 "kernel_summary")) {
        const uint64_t total = number(row[3]);
        actual.insert({row[0], row[1], row[2], analysis::formatMs(total),
                       analysis::formatMsMean(total, number(row[2])),
                       analysis::formatMs(number(row[4])), analysis::formatMs(number(row[5]))});
    }
    EXPECT_EQ(actual, expected);
}

void expectMarkerSummary(const std::string& db,
                         const std::map<std::string, analysis::Table>& pages) {
    std::multiset<std::vector<std::string>> expected;
    if (pages.count("MarkerSummary") != 0) {
        for (const auto& row : pages.at("MarkerSummary").rows) {
            // Name, Group, # of Calls, Total, Avg, Max, Min, ...
            expected.insert({row[0], row[1], row[2], row[3], row[4], row[5], row[6]});
        }
    }
    std::multiset<std::vector<std::string>> actual;
    for (const auto& row : query(db,
                                 "SELECT name, group_name, calls, total_ns, max_ns, min_ns FROM "
                                 "marker_summary")) {
        const uint64_t total = number(row[3]);
        actual.insert({row[0], row[1], row[2], analysis::formatMs(total),
                       analysis::formatMsMean(total, number(row[2])),
                       analysis::formatMs(number(row[4])), analysis::formatMs(number(row[5]))});
    }
    EXPECT_EQ(actual, expected);
}

void expectTransferSummary(const std::string& db,
                           const std::map<std::string, analysis::Table>& pages) {
    std::multiset<std::vector<std::string>> expected;
    if (pages.count("CLDataTransferSummary") != 0) {
        for (const auto& row : pages.at("CLDataTransferSummary").rows) {
            // Command Type, Context ID, Queue ID, Number, Total Duration, Total Size, Rate
            expected.insert({row[0], row[1], row[2], row[3], row[4], row[5]});
        }
    }
    std::multiset<std::vector<std::string>> actual;
    for (const auto& row : query(db,
                                 "SELECT substr(kind, 12), context, queue, transfers, total_ns, "
                                 "bytes FROM transfer_summary")) {
        actual.insert({row[0], row[1], row[2], row[3], analysis::formatMs(number(row[4])),
                       analysis::formatSize(number(row[5]))});
    }
    EXPECT_EQ(actual, expected);
}

TEST(SqliteExport, ViewsGiveTheSummaryPagesOfEachFixture) {
    for (const std::string& fixture : kSummaryFixtures) {
        SCOPED_TRACE(fixture);
        Scratch scratch;
        const std::string db = exportDb(scratch, {kAtpFixtures + fixture});
        const auto pages = summaryOf({kAtpFixtures + fixture});
        expectApiSummary(db, pages);
        expectKernelSummary(db, pages);
        expectMarkerSummary(db, pages);
        expectTransferSummary(db, pages);
    }
}

TEST(SqliteExport, ViewsGiveTheSummaryPagesOfSeveralTraces) {
    std::vector<std::string> traces;
    for (const char* name : {"ocl_vecadd.atp", "hsa_reduce.atp", "zero_device_times.atp"}) {
        traces.push_back(kAtpFixtures + name);
    }
    Scratch scratch;
    const std::string db = exportDb(scratch, traces);
    const auto pages = summaryOf(traces);
    expectApiSummary(db, pages);
    expectKernelSummary(db, pages);
    expectMarkerSummary(db, pages);
    expectTransferSummary(db, pages);
    EXPECT_EQ(one(db, "SELECT count(*) FROM processes"), "3");
    EXPECT_EQ(one(db, "SELECT count(DISTINCT pid) FROM processes"), "3");
    // Every thread, call and command belongs to a process of the database.
    EXPECT_EQ(one(db,
                  "SELECT count(*) FROM api_calls a JOIN threads t ON t.id = a.thread WHERE "
                  "t.process <> a.process"),
              "0");
}

TEST(SqliteExport, UnknownTimes) {
    Scratch scratch;
    ExportCounts counts;
    const std::string db = exportDb(scratch, {kAtpFixtures + "zero_device_times.atp"}, &counts);
    // Commands without device times are left out and counted; every call keeps its row.
    EXPECT_EQ(one(db, "SELECT count(*) FROM commands WHERE name = 'vadd'"), "2");
    EXPECT_EQ(one(db, "SELECT count(*) FROM commands WHERE kind = 'CL_COMMAND_READ_BUFFER'"), "1");
    EXPECT_EQ(one(db, "SELECT count(*) FROM commands WHERE name = 'scale'"), "1");
    EXPECT_EQ(one(db, "SELECT count(*) FROM api_calls WHERE name = 'clEnqueueNDRangeKernel'"), "3");
    EXPECT_EQ(one(db, "SELECT count(*) FROM commands WHERE start_ns = 0 OR end_ns = 0"), "0");
    EXPECT_EQ(counts.commandsLeftOut, 3u);
    // A call without a host time keeps its row with NULL times, out of api_summary.
    const std::string trace = scratch.file("nohost.atp");
    writeText(trace, handTrace({{0, 0}, {3000, 4000}}, {}));
    Scratch other;
    const std::string second = exportDb(other, {trace});
    EXPECT_EQ(query(second, "SELECT start_ns, end_ns FROM api_calls ORDER BY id"),
              (Rows{{"NULL", "NULL"}, {"3000", "4000"}}));
    EXPECT_EQ(query(second, "SELECT name, calls FROM api_summary"), (Rows{{"clFinish", "1"}}));
}

TEST(SqliteExport, ExistingDatabaseIsRefusedUnlessReplaced) {
    Scratch scratch;
    const std::string path = scratch.file("run.db");
    writeText(path, "an older database");
    std::string error;
    SqliteExporter refused(SqliteOptions{path, false, nullptr});
    EXPECT_FALSE(runExport(refused, {kAtpFixtures + "ocl_vecadd.atp"}, error));
    EXPECT_NE(error.find("run.db: exists; give --force"), std::string::npos) << error;
    EXPECT_EQ(readText(path), "an older database");
    EXPECT_EQ(scratch.entries(), std::vector<std::string>{"run.db"});

    SqliteExporter replacing(SqliteOptions{path, true, nullptr});
    ASSERT_TRUE(runExport(replacing, {kAtpFixtures + "ocl_vecadd.atp"}, error)) << error;
    EXPECT_EQ(one(path, "SELECT count(*) FROM api_calls"), "25");
    EXPECT_EQ(scratch.entries(), std::vector<std::string>{"run.db"});
}

TEST(SqliteExport, ADatabaseThatAppearsMeanwhileIsNotOverwritten) {
    Scratch scratch;
    const std::string path = scratch.file("run.db");
    SqliteExporter exporter(SqliteOptions{path, false, nullptr});
    atp::TraceParser parser;
    parser.addListener(exporter);
    std::string error;
    ASSERT_TRUE(parser.parseFile(kAtpFixtures + "ocl_vecadd.atp", error)) << error;
    writeText(path, "written by someone else");
    EXPECT_FALSE(exporter.finish(error));
    EXPECT_NE(error.find("exists"), std::string::npos) << error;
    EXPECT_EQ(readText(path), "written by someone else");
    EXPECT_EQ(scratch.entries(), std::vector<std::string>{"run.db"});
}

TEST(SqliteExport, AFailedExportLeavesNothing) {
    Scratch scratch;
    SqliteExporter exporter(SqliteOptions{scratch.file("run.db"), false, nullptr});
    std::string error;
    EXPECT_FALSE(runExport(
        exporter, {kAtpFixtures + "ocl_vecadd.atp", kAtpFixtures + "bad_truncated.atp"}, error));
    EXPECT_TRUE(scratch.entries().empty());
    SqliteExporter unwritable(SqliteOptions{scratch.file("no/such/run.db"), false, nullptr});
    EXPECT_FALSE(runExport(unwritable, {kAtpFixtures + "ocl_vecadd.atp"}, error));
    EXPECT_NE(error.find("no/such/run.db: cannot create"), std::string::npos) << error;
    EXPECT_TRUE(scratch.entries().empty());
}

// A statement that fails is named from its first word, with SQLite's reason.
TEST(SqliteExport, AFailedStatementIsNamedFromItsFirstWord) {
    Scratch scratch;
    SqliteDb db;
    ASSERT_TRUE(db.open(scratch.file("run.db")));
    EXPECT_FALSE(db.exec("\n  CREATE INDEX missing_name ON missing_table(name);"));
    EXPECT_NE(db.error().find("cannot run \"CREATE INDEX missing_name ON missing_tab...\""),
              std::string::npos)
        << db.error();
    EXPECT_NE(db.error().find("no such table"), std::string::npos) << db.error();
}

}  // namespace
}  // namespace perfmarker::exporter::db::test
