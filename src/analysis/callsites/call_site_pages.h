// The Call Site pages of the summary (docs/summary.md#call-sites): per API family, per API name
// and call site ("app.c:42 enqueue_twice", "libhelper.so+0x1a2b"), the calls and their host
// time. A family's page is there when a trace had a Stack Trace section of that family.
//
// Memory: the Stack Trace section of a file comes after its API sections, so each API call of
// the current file is kept as 16 bytes (duration, API name, count) and each Stack Trace line as
// 8 (callsites::CallSiteIndex) until the end of the file; aggregates only after that, one entry
// per API name and call site.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/callsites/call_sites.h"
#include "analysis/rule_log.h"
#include "analysis/summary.h"

namespace perfmarker::analysis {

class CallSitePages {
public:
    void onSection(atp::SectionKind kind, uint64_t line);
    void onStackEntry(const atp::StackEntry& entry);
    // An API call at position `index` of its thread block; `ns` its host duration when
    // `timed` (docs/format.md#unknown-times: a call without usable times is on no page, its
    // count included); `times` > 1 for a collapsed clGetEventInfo line.
    void onCall(atp::ApiFamily family, uint64_t tid, uint64_t index, std::string_view name,
                bool timed, uint64_t ns, uint32_t times);
    // Joins the file's calls with their call sites, puts what did not line up on the notes
    // page, and forgets the file.
    void endFile(TraceNotes& notes);
    // The family's page: "CLCallSiteSummary" or "HSACallSiteSummary".
    std::optional<Table> table(atp::ApiFamily family) const;

private:
    struct Call {
        uint64_t ns = 0;
        uint32_t api = 0;    // into m_apis
        uint32_t times = 0;  // 0: no call at this position; kUntimed: times not usable
    };
    struct Stats {
        uint64_t calls = 0;
        uint64_t totalNs = 0;
    };
    struct Family {
        bool seen = false;  // a trace had a Stack Trace section of the family
        std::map<std::pair<std::string, std::string>, Stats> sites;  // API name, call site
        uint64_t withoutSite = 0;  // calls with usable times but no call site
    };
    using BlockKey = std::tuple<atp::ApiFamily, uint64_t, uint32_t>;
    static constexpr uint32_t kUntimed = UINT32_MAX;

    Family& family(atp::ApiFamily family) {
        return m_families[family == atp::ApiFamily::Hsa ? 1 : 0];
    }
    const Family& family(atp::ApiFamily family) const {
        return m_families[family == atp::ApiFamily::Hsa ? 1 : 0];
    }

    Family m_families[2];
    // The current file.
    callsites::BlockCounter m_blocks;
    callsites::CallSiteIndex m_index;
    std::map<BlockKey, std::vector<Call>> m_calls;
    std::vector<std::string> m_apis;
    std::unordered_map<std::string, uint32_t> m_apiIndex;
};

}  // namespace perfmarker::analysis
