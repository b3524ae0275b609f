#include "export/db/sqlite_db.h"

#include <sqlite3.h>

#include <algorithm>

namespace perfmarker::exporter::db {

SqliteStatement::~SqliteStatement() { finalize(); }

bool SqliteStatement::prepare(SqliteDb& db, std::string_view sql) {
    finalize();
    m_db = &db;
    if (db.failed()) return false;
    const int code = sqlite3_prepare_v3(db.handle(), sql.data(), static_cast<int>(sql.size()),
                                        SQLITE_PREPARE_PERSISTENT, &m_statement, nullptr);
    if (code != SQLITE_OK) db.fail("cannot prepare a statement", code);
    return code == SQLITE_OK;
}

SqliteStatement& SqliteStatement::text(int column, std::string_view value) {
    if (m_statement != nullptr) {
        sqlite3_bind_text(m_statement, column, value.data(), static_cast<int>(value.size()),
                          SQLITE_STATIC);
    }
    return *this;
}

SqliteStatement& SqliteStatement::integer(int column, int64_t value) {
    if (m_statement != nullptr) sqlite3_bind_int64(m_statement, column, value);
    return *this;
}

SqliteStatement& SqliteStatement::null(int column) {
    if (m_statement != nullptr) sqlite3_bind_null(m_statement, column);
    return *this;
}

void SqliteStatement::step() {
    if (m_statement == nullptr || m_db->failed()) return;
    const int code = sqlite3_step(m_statement);
    if (code != SQLITE_DONE) m_db->fail("cannot insert a row", code);
    // Every insert binds all its columns for each row, so a text bound without a copy never
    // outlives its row.
    sqlite3_reset(m_statement);
}

void SqliteStatement::finalize() {
    if (m_statement != nullptr) sqlite3_finalize(m_statement);
    m_statement = nullptr;
}

SqliteDb::~SqliteDb() {
    if (m_db != nullptr) sqlite3_close_v2(m_db);
}

bool SqliteDb::open(const std::string& path) {
    // One thread uses the connection: no mutex around every call (13% of the export's time).
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
    const int code = sqlite3_open_v2(path.c_str(), &m_db, flags, nullptr);
    if (code != SQLITE_OK) fail("cannot open the database", code);
    return code == SQLITE_OK;
}

bool SqliteDb::exec(std::string_view sql) {
    if (failed() || m_db == nullptr) return false;
    const std::string statements(sql);
    const int code = sqlite3_exec(m_db, statements.c_str(), nullptr, nullptr, nullptr);
    if (code != SQLITE_OK) {
        // The statements' start, from their first word (a schema starts with a line end).
        const size_t first = std::min(statements.find_first_not_of(" \t\r\n"), statements.size());
        fail("cannot run \"" + statements.substr(first, 40) + "...\"", code);
    }
    return code == SQLITE_OK;
}

bool SqliteDb::close() {
    if (m_db == nullptr) return !failed();
    const int code = sqlite3_close(m_db);
    if (code != SQLITE_OK) {
        fail("cannot close the database", code);
        sqlite3_close_v2(m_db);
    }
    m_db = nullptr;
    return !failed();
}

void SqliteDb::fail(std::string_view what, int code) {
    if (failed()) return;
    m_error.assign(what);
    m_error += ": ";
    m_error += m_db != nullptr ? sqlite3_errmsg(m_db) : sqlite3_errstr(code);
}

}  // namespace perfmarker::exporter::db
