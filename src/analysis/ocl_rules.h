// The OpenCL best-practice rules (docs/summary.md#best-practice-rules): RetCodeAnalyzer,
// RefTracker, BlockingWrite, BadWorkGroupSize, DataTransferAnalyzer (persistent-memory maps
// only), SyncAnalyzer and DeprecatedFunctionAnalyzer. They read the printed parameters
// (docs/format.md#parameters) by name (params.h: oclParams()).
//
// Memory, per file: one entry per live object (RefTracker), per out-of-order queue, per buffer
// created with CL_MEM_USE_PERSISTENT_MEM_AMD, per queue (the events of at most
// kMaxChainEvents recent enqueues) and the host syncs of each thread since its last enqueue.
#pragma once

#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "analysis/rule_log.h"

namespace perfmarker::analysis {

// The event an enqueue returned ("[0x...]" -> "0x..."), "" when the application passed NULL.
std::string_view enqueueOutputEvent(const atp::OclApiCall& call);

class OclRules {
public:
    void onCall(const atp::OclApiCall& call, const CallRef& where, RuleLog& log);
    // `cut`: the trace ends at the API call cap, leaks are not reported (RefCounter::finish);
    // returns the objects alive at the end.
    uint64_t endFile(RuleLog& log, bool cut = false);

private:
    enum class SyncKind { Finish, WaitForEvents, BusyWait };
    struct PendingSync {
        SyncKind kind;
        std::string api;
        CallRef where;
        std::string queue;
        std::vector<std::string> events;
    };
    struct QueueChain {
        bool hasPrevious = false;
        bool previousBreaks = false;  // the previous enqueue is no implicit dependency
        std::deque<std::string> events;
    };

    void retCode(const atp::OclApiCall& call, const CallRef& where, RuleLog& log);
    void trackRefs(const atp::OclApiCall& call, const CallRef& where);
    void trackQueues(const atp::OclApiCall& call);
    void blockingWrite(const atp::OclApiCall& call, const CallRef& where, RuleLog& log);
    void workGroupSize(const atp::OclApiCall& call, const CallRef& where, RuleLog& log);
    void dataTransfer(const atp::OclApiCall& call, const CallRef& where, RuleLog& log);
    void deprecated(const atp::OclApiCall& call, const CallRef& where, RuleLog& log);
    void sync(const atp::OclApiCall& call, const CallRef& where, RuleLog& log);
    void checkPendingSyncs(const std::string& queue, const QueueChain& chain, uint64_t tid,
                           RuleLog& log);
    bool isInOrder(const std::string& queue) const;

    RefCounter m_refs;
    std::set<std::string> m_outOfOrderQueues;
    std::set<std::string> m_persistentBuffers;
    std::map<std::string, QueueChain> m_chains;
    std::map<uint64_t, std::vector<PendingSync>> m_pendingSyncs;  // per thread
};

}  // namespace perfmarker::analysis
