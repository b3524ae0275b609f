// The message pages of the summary: the best-practice messages
// (docs/summary.md#best-practice-rules) and the reference counts two of the rules share; and the
// Trace Notes page (docs/summary.md#trace-notes).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/summary.h"

namespace perfmarker::analysis {

inline constexpr std::string_view kError = "Error";
inline constexpr std::string_view kWarning = "Warning";
inline constexpr std::string_view kBestPractices = "Best Practices";

// Where a message points: the call's index as the pages show it and its thread.
struct CallRef {
    std::string callIndex;
    uint64_t tid = 0;
};

// Messages per rule, in the fixed rule order of the page; at most `maxPerRule` per rule, then
// one note per rule that had more.
class RuleLog {
public:
    explicit RuleLog(size_t maxPerRule);
    void add(std::string_view rule, std::string_view type, const CallRef& where,
             std::string message);
    bool empty() const;
    Table table() const;

private:
    struct Message {
        CallRef where;
        std::string type;
        std::string text;
    };
    struct Rule {
        std::string name;
        std::vector<Message> messages;
        uint64_t dropped = 0;
    };
    Rule& rule(std::string_view name);

    size_t m_maxPerRule;
    std::vector<Rule> m_rules;
};

// Reference counts of the objects of one file: created by a call, adjusted by retain/release.
// Memory: one entry per object alive (an entry goes when its count is back to 0).
class RefCounter {
public:
    void create(const std::string& key, std::string_view handle, std::string_view api,
                const CallRef& where);
    void adjust(const std::string& key, int64_t delta);
    // One "Memory leak detected" warning per created object whose count is not 0, in creation
    // order, unless `cut` (the trace ends at the API call cap: the release of such an object
    // may lie after the cut); then forgets the file. Returns how many objects were alive.
    uint64_t finish(RuleLog& log, std::string_view rule, bool cut = false);

private:
    struct Object {
        int64_t refs = 0;
        bool created = false;
        uint64_t sequence = 0;
        std::string handle;
        std::string api;
        CallRef where;
    };
    void update(std::map<std::string, Object>::iterator it);

    std::map<std::string, Object> m_objects;
    uint64_t m_sequence = 0;
};

// The Trace Notes page: what the other pages leave out of a trace, and why. Calls and commands
// without times (0, unknown) and those that end before they start are left out of every
// duration (docs/format.md#unknown-times): the page counts them per file and names the lines of
// the second kind. A trace cut at the API call cap (docs/format.md#traces-cut-at-the-call-cap)
// gets a row, and the leak rules skip its objects. Memory: a few counters per file, at most
// `maxRows` rows.
class TraceNotes {
public:
    enum Kind : size_t { ApiCall, Command, Transfer, Dispatch, kKinds };

    explicit TraceNotes(size_t maxRows) : m_maxRows(maxRows) {}

    void beginFile(std::string_view file);
    void header(std::string_view key, std::string_view value, const atp::SourceLocation& where);
    // Whether the current file was cut at the API call cap.
    bool cut() const { return m_cutCalls > 0; }
    // Whether the interval of a record can be used; counts (and names) those that cannot.
    // `name`: the API of the record (or "kernel dispatch").
    bool usable(Kind kind, uint64_t start, uint64_t end, const atp::SourceLocation& where,
                std::string_view name);
    // A row of the current file about `line` (0: no line), from another page (the Call Site
    // pages: Stack Trace lines that do not line up with the API calls).
    void note(uint64_t line, std::string text);
    // The rows of the file; `leaksSkipped`: the objects the leak rules did not report because
    // the trace was cut.
    void endFile(uint64_t leaksSkipped);
    void appendTable(std::vector<Table>& out) const;

private:
    void row(std::string line, std::string note);

    size_t m_maxRows;
    std::vector<std::vector<std::string>> m_rows;
    uint64_t m_droppedRows = 0;
    uint64_t m_totalUnknown = 0;
    uint64_t m_totalEndsBeforeStart = 0;
    // The current file.
    std::string m_file;
    uint64_t m_unknown[kKinds] = {};
    uint64_t m_cutCalls = 0;
    uint64_t m_cutLine = 0;
};

}  // namespace perfmarker::analysis
