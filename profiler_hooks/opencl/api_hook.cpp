#include "api_call_scope.h"

namespace perfmarker::cltrace {

// Placeholder: the API-trace record is written here (increment 2). Until then the agent only
// passes calls through and takes their timestamps.
void onApiCall(int funcTypeId, unsigned slot, uint64_t startNs, uint64_t endNs) noexcept {
    (void)funcTypeId;
    (void)slot;
    (void)startNs;
    (void)endNs;
}

}  // namespace perfmarker::cltrace
