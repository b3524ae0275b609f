#include "analysis/callsites/call_site_pages.h"

#include <algorithm>

#include "analysis/format.h"

namespace perfmarker::analysis {

void CallSitePages::onSection(atp::SectionKind kind, uint64_t line) {
    if (kind == atp::SectionKind::OclStackTrace) m_index.addSection(atp::ApiFamily::Ocl, line);
    if (kind == atp::SectionKind::HsaStackTrace) m_index.addSection(atp::ApiFamily::Hsa, line);
}

void CallSitePages::onStackEntry(const atp::StackEntry& entry) { m_index.add(entry); }

void CallSitePages::onCall(atp::ApiFamily family, uint64_t tid, uint64_t index,
                           std::string_view name, bool timed, uint64_t ns, uint32_t times) {
    const callsites::CallKey key = m_blocks.key(family, tid, index);
    std::vector<Call>& calls = m_calls[BlockKey{family, tid, key.block}];
    if (calls.size() <= index) calls.resize(index + 1);
    auto [it, inserted] = m_apiIndex.try_emplace(std::string(name), 0);
    if (inserted) {
        it->second = static_cast<uint32_t>(m_apis.size());
        m_apis.push_back(it->first);
    }
    calls[index] =
        Call{timed ? ns : 0, it->second, timed ? std::max<uint32_t>(times, 1) : kUntimed};
}

// Every call of the file is looked up once: the index counts them for its problems().
void CallSitePages::endFile(TraceNotes& notes) {
    for (const auto& [key, calls] : m_calls) {
        const auto& [familyId, tid, block] = key;
        if (!m_index.hasSection(familyId)) continue;
        Family& pages = family(familyId);
        for (uint64_t index = 0; index < calls.size(); ++index) {
            const Call& call = calls[index];
            if (call.times == 0) continue;
            const std::string_view site =
                m_index.find(callsites::CallKey{familyId, tid, block, index}, m_apis[call.api]);
            if (call.times == kUntimed) continue;
            if (site.empty()) {
                pages.withoutSite += call.times;
                continue;
            }
            Stats& stats = pages.sites[{m_apis[call.api], std::string(site)}];
            stats.calls += call.times;
            stats.totalNs += call.ns;
        }
    }
    for (const atp::ApiFamily familyId : {atp::ApiFamily::Ocl, atp::ApiFamily::Hsa}) {
        if (m_index.hasSection(familyId)) family(familyId).seen = true;
    }
    for (const callsites::CallSiteProblem& problem : m_index.problems()) {
        notes.note(problem.line, problem.text);
    }
    m_blocks.clear();
    m_index.clear();
    m_calls.clear();
    m_apis.clear();
    m_apiIndex.clear();
}

std::optional<Table> CallSitePages::table(atp::ApiFamily familyId) const {
    const Family& pages = family(familyId);
    if (!pages.seen) return std::nullopt;
    Table table{familyId == atp::ApiFamily::Hsa ? "HSACallSiteSummary" : "CLCallSiteSummary",
                "Call Site Summary Page",
                {"API Name", "Call Site", "# of Calls", "Total Time(ms)", "Avg Time(ms)"},
                {},
                {}};
    std::vector<const std::pair<const std::pair<std::string, std::string>, Stats>*> order;
    for (const auto& entry : pages.sites) order.push_back(&entry);
    std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) {
        return a->second.totalNs > b->second.totalNs;
    });
    for (const auto* entry : order) {
        const Stats& stats = entry->second;
        table.rows.push_back({entry->first.first, entry->first.second, std::to_string(stats.calls),
                              formatMs(stats.totalNs), formatMsMean(stats.totalNs, stats.calls)});
    }
    if (pages.withoutSite > 0) {
        table.notes.push_back(std::to_string(pages.withoutSite) +
                              " call(s) without a call site are not listed");
    }
    return table;
}

}  // namespace perfmarker::analysis
