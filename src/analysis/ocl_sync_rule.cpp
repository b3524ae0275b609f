// SyncAnalyzer (docs/summary.md#best-practice-rules): host synchronizations between two enqueues
// that the in-order queue already implies. Simplified against the original: the dependency of the
// next enqueue is only on the same queue's chain of earlier enqueues (see docs/summary.md).
#include <algorithm>

#include "analysis/ocl_rules.h"
#include "analysis/params.h"

namespace perfmarker::analysis {
namespace {

constexpr size_t kMaxChainEvents = 64;

bool contains(std::string_view text, std::string_view part) {
    return text.find(part) != std::string_view::npos;
}

// A command after which the next one on the queue does not implicitly wait for it: reads,
// maps and unmaps complete on the host side, GL/D3D releases hand the objects away.
bool breaksChain(const atp::OclApiCall& call) {
    const std::string_view name = call.name;
    return contains(name, "Read") || contains(name, "Map") || contains(name, "Unmap") ||
           contains(name, "Release");
}

}  // namespace

void OclRules::sync(const atp::OclApiCall& call, const CallRef& where, RuleLog& log) {
    const OclParams& params = oclParams();
    const std::string_view name = call.name;
    if (name == "clFinish" && call.returnValue == "CL_SUCCESS") {
        m_pendingSyncs[call.tid].push_back(PendingSync{
            SyncKind::Finish, "clFinish", where, normalizeHandle(params.queue.in(call)), {}});
        return;
    }
    if (name == "clWaitForEvents" && call.returnValue == "CL_SUCCESS") {
        PendingSync wait{SyncKind::WaitForEvents, "clWaitForEvents", where, {}, {}};
        for (std::string_view event : splitList(stripBrackets(params.waitEvents.in(call)))) {
            wait.events.push_back(normalizeHandle(event));
        }
        m_pendingSyncs[call.tid].push_back(std::move(wait));
        return;
    }
    if (name == "clGetEventInfo" && contains(call.comment, "consecutive calls")) {
        m_pendingSyncs[call.tid].push_back(
            PendingSync{SyncKind::BusyWait,
                        "clGetEventInfo",
                        where,
                        {},
                        {normalizeHandle(params.infoEvent.in(call))}});
        return;
    }
    if (!call.hasCommand) return;
    const std::string queue = normalizeHandle(params.queue.in(call));
    QueueChain& chain = m_chains[queue];
    checkPendingSyncs(queue, chain, call.tid, log);
    if (breaksChain(call)) chain.events.clear();
    const std::string event = normalizeHandle(enqueueOutputEvent(call));
    if (!event.empty()) chain.events.push_back(event);
    if (chain.events.size() > kMaxChainEvents) chain.events.pop_front();
    chain.hasPrevious = true;
    chain.previousBreaks = breaksChain(call);
}

// Called at an enqueue on `queue` by thread `tid`: flags that thread's syncs since its previous
// enqueue that the new command already implies, then forgets them.
void OclRules::checkPendingSyncs(const std::string& queue, const QueueChain& chain, uint64_t tid,
                                 RuleLog& log) {
    auto pending = m_pendingSyncs.find(tid);
    if (pending == m_pendingSyncs.end()) return;
    const bool implied = chain.hasPrevious && !chain.previousBreaks && isInOrder(queue);
    for (const PendingSync& sync : pending->second) {
        const bool inChain =
            std::any_of(sync.events.begin(), sync.events.end(), [&](const std::string& event) {
                return std::find(chain.events.begin(), chain.events.end(), event) !=
                       chain.events.end();
            });
        const bool redundant =
            implied && (sync.kind == SyncKind::Finish ? sync.queue == queue : inChain);
        if (redundant) {
            log.add("SyncAnalyzer", kBestPractices, sync.where,
                    "Redundant synchronization detected. Synchronization API = " + sync.api);
        }
    }
    m_pendingSyncs.erase(pending);
}

}  // namespace perfmarker::analysis
