// A SQLite database and its prepared statements, over SQLite's C interface, as the SQLite
// exporter uses them (docs/sqlite.md): the first error kept with SQLite's text, so the exporter
// checks once at the end instead of after every row.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

struct sqlite3;
struct sqlite3_stmt;

namespace perfmarker::exporter::db {

class SqliteDb;

// A prepared statement that inserts rows: bind the columns 1..n, then step(), which also
// resets it for the next row.
class SqliteStatement {
public:
    SqliteStatement() = default;
    ~SqliteStatement();
    SqliteStatement(const SqliteStatement&) = delete;
    SqliteStatement& operator=(const SqliteStatement&) = delete;

    bool prepare(SqliteDb& db, std::string_view sql);
    // The text is bound without a copy: it must live until step().
    SqliteStatement& text(int column, std::string_view value);
    SqliteStatement& integer(int column, int64_t value);
    SqliteStatement& unsignedInteger(int column, uint64_t value) {
        return integer(column, static_cast<int64_t>(value));
    }
    SqliteStatement& null(int column);
    // A time of 0 is unknown (docs/format.md#unknown-times): NULL.
    SqliteStatement& time(int column, uint64_t ns) {
        return ns == 0 ? null(column) : unsignedInteger(column, ns);
    }
    void step();
    void finalize();

private:
    SqliteDb* m_db = nullptr;
    sqlite3_stmt* m_statement = nullptr;
};

class SqliteDb {
public:
    SqliteDb() = default;
    ~SqliteDb();
    SqliteDb(const SqliteDb&) = delete;
    SqliteDb& operator=(const SqliteDb&) = delete;

    bool open(const std::string& path);
    // Runs one or more statements without results.
    bool exec(std::string_view sql);
    bool close();
    bool isOpen() const { return m_db != nullptr; }

    bool failed() const { return !m_error.empty(); }
    const std::string& error() const { return m_error; }
    // Keeps the first error: "<what>: <SQLite's message>".
    void fail(std::string_view what, int code);
    sqlite3* handle() { return m_db; }

private:
    sqlite3* m_db = nullptr;
    std::string m_error;
};

}  // namespace perfmarker::exporter::db
