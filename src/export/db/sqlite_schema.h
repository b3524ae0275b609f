// The schema of the SQLite export, as docs/sqlite.md documents it for scripts: the tables (made
// before the rows go in), the indexes (made after, which is faster than keeping them up to date
// row by row) and the views of the summary pages. A change of a table or view that a script can
// notice changes kSchemaVersion (the `meta` table holds it).
#pragma once

#include <string_view>

namespace perfmarker::exporter::db {

inline constexpr std::string_view kSchemaVersion = "1";

extern const std::string_view kSchemaTables;
extern const std::string_view kSchemaIndexes;
extern const std::string_view kSchemaViews;

// The insert statements of the exporter, one per table, with their columns in order.
extern const std::string_view kInsertMeta;
extern const std::string_view kInsertProcess;
extern const std::string_view kInsertThread;
extern const std::string_view kInsertQueue;
extern const std::string_view kInsertApiCall;
extern const std::string_view kInsertCommand;
extern const std::string_view kInsertMarker;

}  // namespace perfmarker::exporter::db
