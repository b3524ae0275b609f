// The best-practice messages (docs/summary.md#best-practice-rules) and the reference counts two of
// the rules share.
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
    // order; then forgets the file.
    void finish(RuleLog& log, std::string_view rule);

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

}  // namespace perfmarker::analysis
