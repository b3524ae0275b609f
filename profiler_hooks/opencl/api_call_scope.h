// What every generated wrapper does around the call into the next layer: an RAII scope that
// takes the start and end timestamps and hands them to onApiCall.
#pragma once

#include <cstdint>

#include "control.h"
#include "record/clock.h"

namespace perfmarker::cltrace {

// THE HOOK POINT (api_hook.cpp). Called on the calling thread after every intercepted API call
// that started while the agent was not paused, with the call's CL_FUNC_TYPE id (-1 when the
// format has none), its dispatch slot and its start and end on the trace clock
// (CLOCK_MONOTONIC nanoseconds). Must not throw and must not call OpenCL.
void onApiCall(int funcTypeId, unsigned slot, uint64_t startNs, uint64_t endNs) noexcept;

// The timestamp source of the wrappers: the trace clock of the whole project.
inline uint64_t apiTimestamp() { return record::monotonicNs(); }

class ApiCallScope {
public:
    // While paused: one relaxed load and one branch here, one branch in the destructor.
    ApiCallScope(int funcTypeId, unsigned slot) noexcept
        : m_active(!isPaused()), m_funcTypeId(funcTypeId), m_slot(slot) {
        if (m_active) m_startNs = apiTimestamp();
    }
    ~ApiCallScope() {
        if (m_active) onApiCall(m_funcTypeId, m_slot, m_startNs, apiTimestamp());
    }
    ApiCallScope(const ApiCallScope&) = delete;
    ApiCallScope& operator=(const ApiCallScope&) = delete;

private:
    bool m_active;
    int m_funcTypeId;
    unsigned m_slot;
    uint64_t m_startNs = 0;
};

}  // namespace perfmarker::cltrace
