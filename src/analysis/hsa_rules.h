// The HSA best-practice rules (docs/summary.md#best-practice-rules): HSARetCodeAnalyzer and
// HSARefTracker. Memory: one entry per live HSA object of the current file.
#pragma once

#include "analysis/rule_log.h"

namespace perfmarker::analysis {

class HsaRules {
public:
    void onCall(const atp::HsaApiCall& call, const CallRef& where, RuleLog& log);
    // As OclRules::endFile().
    uint64_t endFile(RuleLog& log, bool cut = false);

private:
    RefCounter m_refs;
};

}  // namespace perfmarker::analysis
