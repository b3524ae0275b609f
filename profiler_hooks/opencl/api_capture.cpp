#include "api_capture.h"

namespace perfmarker::cltrace::capture {

// Out of line: only the context, queue, sampler and pipe creators pass property lists.
size_t propertyBytes(uint64_t address) noexcept {
    const auto* values = reinterpret_cast<const uint64_t*>(address);
    for (size_t i = 0; i < atp::ocl::kMaxPropertyValues; i += 2) {
        if (values[i] == 0) return (i + 1) * 8;  // with the terminator
    }
    return atp::ocl::kMaxPropertyValues * 8;  // cut: no terminator
}

}  // namespace perfmarker::cltrace::capture
