#include "analysis/rule_log.h"

#include <algorithm>

namespace perfmarker::analysis {
namespace {

// The page lists the rules in this order, whichever fired first.
const char* const kRuleOrder[] = {"RetCodeAnalyzer",
                                  "RefTracker",
                                  "BlockingWrite",
                                  "BadWorkGroupSize",
                                  "DataTransferAnalyzer",
                                  "SyncAnalyzer",
                                  "DeprecatedFunctionAnalyzer",
                                  "HSARetCodeAnalyzer",
                                  "HSARefTracker"};

}  // namespace

RuleLog::RuleLog(size_t maxPerRule) : m_maxPerRule(maxPerRule) {
    for (const char* name : kRuleOrder) m_rules.push_back(Rule{name, {}, 0});
}

RuleLog::Rule& RuleLog::rule(std::string_view name) {
    for (Rule& rule : m_rules) {
        if (rule.name == name) return rule;
    }
    m_rules.push_back(Rule{std::string(name), {}, 0});
    return m_rules.back();
}

void RuleLog::add(std::string_view rule, std::string_view type, const CallRef& where,
                  std::string message) {
    Rule& entry = this->rule(rule);
    if (entry.messages.size() >= m_maxPerRule) {
        ++entry.dropped;
        return;
    }
    entry.messages.push_back(Message{where, std::string(type), std::move(message)});
}

bool RuleLog::empty() const {
    return std::all_of(m_rules.begin(), m_rules.end(),
                       [](const Rule& rule) { return rule.messages.empty() && rule.dropped == 0; });
}

Table RuleLog::table() const {
    Table table{"BestPractices",
                "Warning(s)/Error(s) Page",
                {"Index", "Call Index", "Thread ID", "Type", "Message"},
                {},
                {}};
    for (const Rule& rule : m_rules) {
        for (const Message& message : rule.messages) {
            table.rows.push_back({std::to_string(table.rows.size() + 1), message.where.callIndex,
                                  std::to_string(message.where.tid), message.type, message.text});
        }
        if (rule.dropped != 0) {
            table.notes.push_back("Maximum number of messages for " + rule.name + " exceeded");
        }
    }
    return table;
}

void RefCounter::create(const std::string& key, std::string_view handle, std::string_view api,
                        const CallRef& where) {
    auto it = m_objects.try_emplace(key).first;
    Object& object = it->second;
    ++object.refs;
    object.created = true;
    object.sequence = m_sequence++;
    object.handle = std::string(handle);
    object.api = std::string(api);
    object.where = where;
    update(it);
}

void RefCounter::adjust(const std::string& key, int64_t delta) {
    auto it = m_objects.try_emplace(key).first;
    it->second.refs += delta;
    update(it);
}

// Threads are read one after the other, so a release can come before its create: counts are
// kept for unknown objects too, and an entry goes only when created and back to 0.
void RefCounter::update(std::map<std::string, Object>::iterator it) {
    if (it->second.created && it->second.refs == 0) m_objects.erase(it);
}

uint64_t RefCounter::finish(RuleLog& log, std::string_view rule, bool cut) {
    std::vector<const Object*> leaks;
    for (const auto& entry : m_objects) {
        if (entry.second.created && entry.second.refs > 0) leaks.push_back(&entry.second);
    }
    std::sort(leaks.begin(), leaks.end(),
              [](const Object* a, const Object* b) { return a->sequence < b->sequence; });
    const uint64_t alive = leaks.size();
    if (cut) leaks.clear();
    for (const Object* object : leaks) {
        log.add(rule, kWarning, object->where,
                "Memory leak detected [Ref = " + std::to_string(object->refs) +
                    ", Handle = " + object->handle + "]: Object created by " + object->api);
    }
    m_objects.clear();
    m_sequence = 0;
    return alive;
}

// ---- TraceNotes ----------------------------------------------------------------------------

namespace {

constexpr std::string_view kWhat[TraceNotes::kKinds] = {"the call", "the command", "the transfer",
                                                        "the dispatch"};
constexpr std::string_view kWithoutTimes[TraceNotes::kKinds] = {
    " API calls without times", " commands without device times",
    " async copies without transfer times", " kernel dispatches without device times"};

}  // namespace

void TraceNotes::beginFile(std::string_view file) {
    m_file = std::string(file);
    for (uint64_t& count : m_unknown) count = 0;
    m_cutCalls = 0;
    m_cutLine = 0;
}

void TraceNotes::header(std::string_view key, std::string_view value,
                        const atp::SourceLocation& where) {
    if (key != atp::kApiCallsLeftOutKey) return;
    m_cutCalls = atp::apiCallsLeftOut(value).value_or(0);
    m_cutLine = where.line;
}

bool TraceNotes::usable(Kind kind, uint64_t start, uint64_t end, const atp::SourceLocation& where,
                        std::string_view name) {
    const atp::Times times = atp::timesOf(start, end);
    if (times == atp::Times::Known) return true;
    if (times == atp::Times::Unknown) {
        ++m_unknown[kind];
        ++m_totalUnknown;
        return false;
    }
    ++m_totalEndsBeforeStart;
    row(std::to_string(where.line), std::string(name) + ": " + std::string(kWhat[kind]) + " ends " +
                                        std::to_string(start - end) +
                                        " ns before it starts: left out");
    return false;
}

void TraceNotes::endFile(uint64_t leaksSkipped) {
    for (size_t kind = 0; kind < kKinds; ++kind) {
        if (m_unknown[kind] == 0) continue;
        row("", std::to_string(m_unknown[kind]) + std::string(kWithoutTimes[kind]) +
                    " (unknown), left out");
        m_unknown[kind] = 0;
    }
    if (m_cutCalls > 0) {
        row(std::to_string(m_cutLine),
            "the trace was cut at the API call cap: " + std::to_string(m_cutCalls) +
                " API calls after the cut are not in it; " + std::to_string(leaksSkipped) +
                " objects still alive at the cut are not reported as leaks (their release may "
                "lie after it)");
        m_cutCalls = 0;
    }
}

void TraceNotes::note(uint64_t line, std::string text) {
    row(line == 0 ? std::string() : std::to_string(line), std::move(text));
}

void TraceNotes::row(std::string line, std::string note) {
    if (m_rows.size() >= m_maxRows) {
        ++m_droppedRows;
        return;
    }
    m_rows.push_back({m_file, std::move(line), std::move(note)});
}

void TraceNotes::appendTable(std::vector<Table>& out) const {
    if (m_rows.empty() && m_droppedRows == 0) return;
    Table table{"TraceNotes", "Trace Notes Page", {"File", "Line", "Note"}, m_rows, {}};
    std::string leftOut;
    if (m_totalUnknown > 0) {
        leftOut = std::to_string(m_totalUnknown) + " records without times (unknown)";
    }
    if (m_totalEndsBeforeStart > 0) {
        if (!leftOut.empty()) leftOut += ", ";
        leftOut += std::to_string(m_totalEndsBeforeStart) + " records that end before they start";
    }
    if (!leftOut.empty()) table.notes.push_back("Left out of every page: " + leftOut);
    if (m_droppedRows > 0) {
        table.notes.push_back(std::to_string(m_droppedRows) + " more notes not listed");
    }
    out.push_back(std::move(table));
}

}  // namespace perfmarker::analysis
