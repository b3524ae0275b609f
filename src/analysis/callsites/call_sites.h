// Call sites of API calls, as the tools show them (docs/summary.md#call-sites): the lines of a
// trace's Stack Trace sections (docs/format.md#stack-trace-lines) joined with the API calls
// whose place they take. A Stack Trace section has the thread blocks of the API Trace section
// of its family, line for line, so a call and its call site are joined by their place: the
// family, the thread, which block of that thread (a thread id may have several blocks), and the
// position in the block. Nothing is joined by time.
//
// Used by the summary's Call Site pages, the report's timeline and the Perfetto export; the
// library (perfmarker_callsites) needs only the reader.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "atp/read/trace_events.h"

namespace perfmarker::callsites {

// "app.c:42 enqueue_twice" (the file's base name, the line, the function), or the module form
// as written ("libhelper.so+0x1a2b"). Parts that are unknown are left out: "app.c:42" (no
// function, or the original's "NA"), "app.c enqueue_twice" (line 0), "enqueue_twice" (symbols
// without debug information). Empty when the line names nothing (the bare API name, or "NA"
// with no file): such a call has no call site.
std::string callSiteLabel(const atp::StackEntry& entry);

// The place of a call or of a Stack Trace line in its section.
struct CallKey {
    atp::ApiFamily family = atp::ApiFamily::Ocl;
    uint64_t tid = 0;
    uint32_t block = 0;  // 0 for the thread's first block, 1 for its second, ...
    uint64_t index = 0;  // position in the block
};

// Numbers the blocks of each thread of a section, from records that come in file order: a
// record at position 0 of a thread seen before starts its next block.
class BlockCounter {
public:
    CallKey key(atp::ApiFamily family, uint64_t tid, uint64_t index);
    void clear() { m_blocks.clear(); }

private:
    std::map<std::pair<atp::ApiFamily, uint64_t>, uint32_t> m_blocks;
};

// What did not line up between a Stack Trace section and its API Trace section, with the line
// of the trace it is about (0 when it is about no line).
struct CallSiteProblem {
    uint64_t line = 0;
    std::string text;
};

// The call sites of one trace file: every line of its Stack Trace sections (8 bytes each; the
// labels and API names once each), then looked up by the calls.
class CallSiteIndex {
public:
    // Forgets the file.
    void clear();
    // A Stack Trace section starts at `line` (for the messages).
    void addSection(atp::ApiFamily family, uint64_t line);
    // A line of a Stack Trace section, in file order.
    void add(const atp::StackEntry& entry);
    bool hasSection(atp::ApiFamily family) const { return m_sections[slot(family)].seen; }

    // The call site of the call at `key`, named `api`: empty when it has none, when the
    // section has no line at its place, or when that line names another API. Each call of
    // the file should be looked up once (problems() counts them).
    std::string_view find(const CallKey& key, std::string_view api);

    // After every call of the file was looked up: the blocks whose line count differs from
    // their API block, threads without a block, lines naming another API, a section without
    // API calls. Empty when the file has no Stack Trace section.
    std::vector<CallSiteProblem> problems() const;

private:
    struct Line {
        uint32_t label;  // into m_labels; 0: none
        uint32_t api;    // into m_names
    };
    struct Block {
        uint64_t firstLine = 0;  // of its first line in the trace
        std::vector<Line> lines;
        uint64_t calls = 0;  // API calls looked up: the last position + 1
        uint64_t mismatches = 0;
        uint64_t firstMismatch = 0;  // position of the first line that names another API
        std::string mismatchApi;     // the API call at that position
    };
    struct Section {
        bool seen = false;
        uint64_t line = 0;
        uint64_t calls = 0;  // API calls of the family looked up
    };
    using BlockKey = std::tuple<atp::ApiFamily, uint64_t, uint32_t>;

    static size_t slot(atp::ApiFamily family) { return family == atp::ApiFamily::Hsa ? 1 : 0; }
    // The ids of a line.
    Line line(const atp::StackEntry& entry);
    static uint32_t intern(const std::string& text, std::vector<std::string>& strings,
                           std::unordered_map<std::string, uint32_t>& index);
    void blockProblems(const BlockKey& key, const Block& block,
                       std::vector<CallSiteProblem>& out) const;

    BlockCounter m_lineBlocks;
    std::map<BlockKey, Block> m_blocks;
    // Calls whose thread block has no Stack Trace block: per block, how many.
    std::map<BlockKey, uint64_t> m_missing;
    Section m_sections[2];
    std::vector<std::string> m_labels{std::string()};
    std::unordered_map<std::string, uint32_t> m_labelIndex{{std::string(), 0}};
    std::vector<std::string> m_names;
    std::unordered_map<std::string, uint32_t> m_nameIndex;
    // The label of each distinct call site by its fields as read (m_key: the key being
    // looked up), so that a call site repeated a million times is labelled once.
    std::unordered_map<std::string, uint32_t> m_siteIndex;
    std::string m_key;
};

}  // namespace perfmarker::callsites
