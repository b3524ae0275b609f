#include "export/db/sqlite_schema.h"

namespace perfmarker::exporter::db {

// Times are ns on the trace's clock, CLOCK_MONOTONIC of the first host
// (docs/export.md#several-hosts); NULL where the trace has no time (docs/sqlite.md#unknown-times).
const std::string_view kSchemaTables = R"sql(
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE processes (
    id          INTEGER PRIMARY KEY,
    pid         INTEGER NOT NULL,
    host        TEXT,
    application TEXT,
    trace       TEXT NOT NULL
);
CREATE TABLE threads (
    id      INTEGER PRIMARY KEY,
    process INTEGER NOT NULL REFERENCES processes(id),
    tid     INTEGER NOT NULL
);
CREATE TABLE queues (
    id             INTEGER PRIMARY KEY,
    process        INTEGER NOT NULL REFERENCES processes(id),
    family         TEXT NOT NULL,
    queue          INTEGER,
    device         TEXT,
    handle         TEXT,
    context        INTEGER,
    context_handle TEXT
);
CREATE TABLE api_calls (
    id         INTEGER PRIMARY KEY,
    process    INTEGER NOT NULL REFERENCES processes(id),
    thread     INTEGER NOT NULL REFERENCES threads(id),
    name       TEXT NOT NULL,
    start_ns   INTEGER,
    end_ns     INTEGER,
    result     TEXT,
    args       TEXT NOT NULL,
    family     TEXT NOT NULL,
    call_index INTEGER NOT NULL,
    calls      INTEGER NOT NULL,
    comment    TEXT
);
CREATE TABLE commands (
    id            INTEGER PRIMARY KEY,
    api_call      INTEGER REFERENCES api_calls(id),
    queue         INTEGER REFERENCES queues(id),
    kind          TEXT NOT NULL,
    name          TEXT NOT NULL,
    queued_ns     INTEGER,
    submit_ns     INTEGER,
    start_ns      INTEGER NOT NULL,
    end_ns        INTEGER NOT NULL,
    bytes         INTEGER,
    process       INTEGER NOT NULL REFERENCES processes(id),
    family        TEXT NOT NULL,
    category      TEXT NOT NULL,
    command_type  INTEGER,
    kernel_handle TEXT,
    global_size   TEXT,
    local_size    TEXT
);
CREATE TABLE markers (
    id          INTEGER PRIMARY KEY,
    process     INTEGER NOT NULL REFERENCES processes(id),
    thread      INTEGER NOT NULL REFERENCES threads(id),
    name        TEXT NOT NULL,
    group_name  TEXT NOT NULL,
    start_ns    INTEGER NOT NULL,
    end_ns      INTEGER NOT NULL,
    depth       INTEGER NOT NULL,
    user_string TEXT,
    unclosed    INTEGER NOT NULL
);
)sql";

const std::string_view kSchemaIndexes = R"sql(
CREATE INDEX api_calls_name ON api_calls(name);
CREATE INDEX api_calls_start ON api_calls(start_ns);
CREATE INDEX commands_name ON commands(name);
CREATE INDEX commands_start ON commands(start_ns);
CREATE INDEX commands_api_call ON commands(api_call);
CREATE INDEX markers_name ON markers(name);
CREATE INDEX markers_start ON markers(start_ns);
)sql";

// The numbers of the summary pages (docs/summary.md#pages): only intervals with both times
// known and not ending before they start; a collapsed clGetEventInfo line counts as `calls`
// calls, each with an equal share of the line for the minimum and maximum; the minimum is the
// smallest non-zero duration (0 when all are zero). OpenCL rows before HSA rows, then by total
// time, largest first, ties by name.
const std::string_view kSchemaViews = R"sql(
CREATE VIEW api_summary AS
SELECT name,
       SUM(calls) AS calls,
       SUM(end_ns - start_ns) AS total_ns,
       CAST(SUM(end_ns - start_ns) AS REAL) / SUM(calls) AS avg_ns,
       COALESCE(MIN(NULLIF((end_ns - start_ns) / calls, 0)), 0) AS min_ns,
       MAX((end_ns - start_ns) / calls) AS max_ns,
       family,
       100.0 * SUM(end_ns - start_ns) /
           SUM(SUM(end_ns - start_ns)) OVER (PARTITION BY family) AS percent
FROM api_calls
WHERE start_ns IS NOT NULL AND end_ns IS NOT NULL AND end_ns >= start_ns
GROUP BY family, name
ORDER BY family = 'HSA', total_ns DESC, name;

CREATE VIEW kernel_summary AS
SELECT c.name AS name,
       q.device AS device,
       COUNT(*) AS calls,
       SUM(c.end_ns - c.start_ns) AS total_ns,
       CAST(SUM(c.end_ns - c.start_ns) AS REAL) / COUNT(*) AS avg_ns,
       COALESCE(MIN(NULLIF(c.end_ns - c.start_ns, 0)), 0) AS min_ns,
       MAX(c.end_ns - c.start_ns) AS max_ns,
       c.family AS family,
       100.0 * SUM(c.end_ns - c.start_ns) /
           SUM(SUM(c.end_ns - c.start_ns)) OVER (PARTITION BY c.family) AS percent
FROM commands AS c LEFT JOIN queues AS q ON q.id = c.queue
WHERE c.category = 'kernel'
GROUP BY c.family, c.name, q.device
ORDER BY c.family = 'HSA', total_ns DESC, c.name, q.device;

CREATE VIEW transfer_summary AS
SELECT c.kind AS kind,
       q.context AS context,
       q.queue AS queue,
       COUNT(*) AS transfers,
       SUM(c.end_ns - c.start_ns) AS total_ns,
       SUM(c.bytes) AS bytes,
       CASE WHEN SUM(c.end_ns - c.start_ns) > 0
            THEN SUM(c.bytes) / 1048576.0 / (SUM(c.end_ns - c.start_ns) / 1e9) END AS mib_per_s
FROM commands AS c JOIN queues AS q ON q.id = c.queue
WHERE c.family = 'OpenCL' AND c.category <> 'kernel' AND c.bytes IS NOT NULL
GROUP BY c.kind, q.context, q.queue
ORDER BY c.kind, q.context, q.queue;

CREATE VIEW marker_summary AS
SELECT name,
       group_name,
       COUNT(*) AS calls,
       SUM(end_ns - start_ns) AS total_ns,
       CAST(SUM(end_ns - start_ns) AS REAL) / COUNT(*) AS avg_ns,
       COALESCE(MIN(NULLIF(end_ns - start_ns, 0)), 0) AS min_ns,
       MAX(end_ns - start_ns) AS max_ns
FROM markers
WHERE unclosed = 0
GROUP BY name, group_name
ORDER BY total_ns DESC, name, group_name;
)sql";

const std::string_view kInsertMeta = "INSERT INTO meta (key, value) VALUES (?1, ?2)";
const std::string_view kInsertProcess =
    "INSERT INTO processes (id, pid, host, application, trace) VALUES (?1, ?2, ?3, ?4, ?5)";
const std::string_view kInsertThread = "INSERT INTO threads (id, process, tid) VALUES (?1, ?2, ?3)";
const std::string_view kInsertQueue =
    "INSERT INTO queues (id, process, family, queue, device, handle, context, context_handle) "
    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)";
const std::string_view kInsertApiCall =
    "INSERT INTO api_calls (id, process, thread, name, start_ns, end_ns, result, args, family, "
    "call_index, calls, comment) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)";
const std::string_view kInsertCommand =
    "INSERT INTO commands (id, api_call, queue, kind, name, queued_ns, submit_ns, start_ns, "
    "end_ns, bytes, process, family, category, command_type, kernel_handle, global_size, "
    "local_size) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, "
    "?17)";
const std::string_view kInsertMarker =
    "INSERT INTO markers (id, process, thread, name, group_name, start_ns, end_ns, depth, "
    "user_string, unclosed) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)";

}  // namespace perfmarker::exporter::db
