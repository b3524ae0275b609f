#include "analysis/callsites/call_sites.h"

#include <algorithm>

#include "atp/format/atp_header.h"
#include "atp/format/perfmarker_section.h"
#include "atp/format/stack_lines.h"

namespace perfmarker::callsites {
namespace {

std::string sectionOf(atp::ApiFamily family) {
    return std::string(atp::sectionName(family == atp::ApiFamily::Hsa
                                            ? atp::SectionKind::HsaStackTrace
                                            : atp::SectionKind::OclStackTrace));
}

std::string threadOf(uint64_t tid, uint32_t block) {
    std::string text = "thread " + std::to_string(tid);
    if (block > 0) text += " (its block " + std::to_string(block + 1) + ")";
    return text;
}

}  // namespace

std::string callSiteLabel(const atp::StackEntry& entry) {
    if (!entry.address.empty()) return atp::unescapeToken(entry.address);
    // The original wrote "NA" where it had no function name
    // (docs/call-sites.md#the-lines-we-write).
    const std::string_view function =
        entry.symbol == atp::kUnknownFunction ? std::string_view() : entry.symbol;
    const std::string_view file = entry.file.empty() ? "" : atp::moduleFileName(entry.file);
    std::string label(file);
    if (!file.empty() && entry.sourceLine != 0) label += ":" + std::to_string(entry.sourceLine);
    if (!function.empty()) {
        if (!label.empty()) label += ' ';
        label += function;
    }
    return label;
}

CallKey BlockCounter::key(atp::ApiFamily family, uint64_t tid, uint64_t index) {
    auto [it, inserted] = m_blocks.try_emplace(std::make_pair(family, tid), 0);
    if (!inserted && index == 0) ++it->second;
    return CallKey{family, tid, it->second, index};
}

void CallSiteIndex::clear() { *this = CallSiteIndex{}; }

uint32_t CallSiteIndex::intern(const std::string& text, std::vector<std::string>& strings,
                               std::unordered_map<std::string, uint32_t>& index) {
    const auto found = index.find(text);
    if (found != index.end()) return found->second;
    const auto id = static_cast<uint32_t>(strings.size());
    index.emplace(text, id);
    strings.push_back(text);
    return id;
}

void CallSiteIndex::addSection(atp::ApiFamily family, uint64_t line) {
    Section& section = m_sections[slot(family)];
    if (section.seen) return;
    section.seen = true;
    section.line = line;
}

void CallSiteIndex::add(const atp::StackEntry& entry) {
    addSection(entry.family, entry.line.line);
    const CallKey key = m_lineBlocks.key(entry.family, entry.tid, entry.index);
    Block& block = m_blocks[BlockKey{key.family, key.tid, key.block}];
    if (block.lines.empty()) block.firstLine = entry.line.line;
    block.lines.push_back(line(entry));
}

// The key holds each field with its length, so that no two call sites share one.
CallSiteIndex::Line CallSiteIndex::line(const atp::StackEntry& entry) {
    m_key.clear();
    for (const std::string_view field :
         {std::string_view(entry.symbol), std::string_view(entry.file), entry.address}) {
        m_key += std::to_string(field.size());
        m_key += ':';
        m_key += field;
    }
    m_key += std::to_string(entry.sourceLine);
    Line line{0, 0};
    const auto found = m_siteIndex.find(m_key);
    if (found != m_siteIndex.end()) {
        line.label = found->second;
    } else {
        line.label = intern(callSiteLabel(entry), m_labels, m_labelIndex);
        m_siteIndex.emplace(m_key, line.label);
    }
    m_key.assign(entry.apiName);
    line.api = intern(m_key, m_names, m_nameIndex);
    return line;
}

std::string_view CallSiteIndex::find(const CallKey& key, std::string_view api) {
    Section& section = m_sections[slot(key.family)];
    ++section.calls;
    if (!section.seen) return {};
    const BlockKey blockKey{key.family, key.tid, key.block};
    auto it = m_blocks.find(blockKey);
    if (it == m_blocks.end()) {
        ++m_missing[blockKey];
        return {};
    }
    Block& block = it->second;
    block.calls = std::max(block.calls, key.index + 1);
    if (key.index >= block.lines.size()) return {};
    const Line& line = block.lines[key.index];
    if (m_names[line.api] != api) {
        if (block.mismatches++ == 0) {
            block.firstMismatch = key.index;
            block.mismatchApi = std::string(api);
        }
        return {};
    }
    return m_labels[line.label];
}

// One block of a Stack Trace section against the API Trace block at its place.
void CallSiteIndex::blockProblems(const BlockKey& key, const Block& block,
                                  std::vector<CallSiteProblem>& out) const {
    const auto& [family, tid, number] = key;
    const std::string where = sectionOf(family) + ", " + threadOf(tid, number) + ": ";
    const uint64_t lines = block.lines.size();
    if (block.calls == 0) {
        out.push_back({block.firstLine,
                       where + std::to_string(lines) + " line(s) for no API call: left out"});
    } else if (lines > block.calls) {
        out.push_back({block.firstLine, where + std::to_string(lines) + " line(s) for " +
                                            std::to_string(block.calls) +
                                            " API call(s): the last " +
                                            std::to_string(lines - block.calls) +
                                            " line(s) name no call and are left out"});
    } else if (lines < block.calls) {
        out.push_back({block.firstLine,
                       where + std::to_string(lines) + " line(s) for " +
                           std::to_string(block.calls) + " API call(s): the last " +
                           std::to_string(block.calls - lines) + " call(s) have no call site"});
    }
    if (block.mismatches == 0) return;
    const Line& first = block.lines[block.firstMismatch];
    out.push_back({block.firstLine, where + "line " + std::to_string(block.firstMismatch + 1) +
                                        " of the block names " + m_names[first.api] +
                                        " where the API call is " + block.mismatchApi + "; " +
                                        std::to_string(block.mismatches) +
                                        " line(s) of the block name another API than their "
                                        "call: those calls have no call site"});
}

std::vector<CallSiteProblem> CallSiteIndex::problems() const {
    std::vector<CallSiteProblem> out;
    uint64_t lines[2] = {0, 0};
    for (const auto& [key, block] : m_blocks) lines[slot(std::get<0>(key))] += block.lines.size();
    for (const atp::ApiFamily family : {atp::ApiFamily::Ocl, atp::ApiFamily::Hsa}) {
        const Section& section = m_sections[slot(family)];
        if (!section.seen || section.calls > 0) continue;
        const std::string api = family == atp::ApiFamily::Hsa ? "HSA" : "OpenCL";
        out.push_back({section.line, sectionOf(family) + ": the trace has no " + api +
                                         " API calls: its " + std::to_string(lines[slot(family)]) +
                                         " line(s) are left out"});
    }
    for (const auto& [key, block] : m_blocks) {
        if (m_sections[slot(std::get<0>(key))].calls > 0) blockProblems(key, block, out);
    }
    for (const auto& [key, calls] : m_missing) {
        const auto& [family, tid, number] = key;
        out.push_back({m_sections[slot(family)].line,
                       sectionOf(family) + " has no block for " + threadOf(tid, number) + " (" +
                           std::to_string(calls) + " API call(s)): they have no call site"});
    }
    std::stable_sort(
        out.begin(), out.end(),
        [](const CallSiteProblem& a, const CallSiteProblem& b) { return a.line < b.line; });
    return out;
}

}  // namespace perfmarker::callsites
