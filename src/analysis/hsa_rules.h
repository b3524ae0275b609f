// The HSA best-practice rules (docs/summary.md#best-practice-rules): HSARetCodeAnalyzer and
// HSARefTracker. Memory: one entry per live HSA object of the current file.
#pragma once

#include "analysis/rule_log.h"

namespace perfmarker::analysis {

class HsaRules {
public:
    void onCall(const atp::HsaApiCall& call, const CallRef& where, RuleLog& log);
    void endFile(RuleLog& log);

private:
    RefCounter m_refs;
};

}  // namespace perfmarker::analysis
