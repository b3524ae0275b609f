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

void RefCounter::finish(RuleLog& log, std::string_view rule) {
    std::vector<const Object*> leaks;
    for (const auto& entry : m_objects) {
        if (entry.second.created && entry.second.refs > 0) leaks.push_back(&entry.second);
    }
    std::sort(leaks.begin(), leaks.end(),
              [](const Object* a, const Object* b) { return a->sequence < b->sequence; });
    for (const Object* object : leaks) {
        log.add(rule, kWarning, object->where,
                "Memory leak detected [Ref = " + std::to_string(object->refs) +
                    ", Handle = " + object->handle + "]: Object created by " + object->api);
    }
    m_objects.clear();
    m_sequence = 0;
}

}  // namespace perfmarker::analysis
