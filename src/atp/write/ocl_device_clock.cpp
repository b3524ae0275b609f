// The device clock of the OpenCL timestamp section (ocl_sections.h, docs/opencl-trace.md):
// device times normalized, a clock offset fitted per device, and times converted into order.
#include <algorithm>
#include <limits>

#include "atp/write/ocl_sections.h"

namespace perfmarker::atp {

bool normalizeDeviceTimes(uint64_t t[4]) {
    if (t[0] == 0) {
        for (size_t i = 1; i < 4 && t[0] == 0; ++i) t[0] = t[i];
        if (t[0] == 0) return false;
    }
    for (size_t i = 1; i < 4; ++i) {
        if (t[i] == 0) t[i] = t[i - 1];
    }
    return true;
}

void DeviceClockFit::add(uint64_t apiStart, uint64_t apiEnd, uint64_t deviceQueued) {
    const __int128 low = static_cast<__int128>(apiStart) - deviceQueued;
    const __int128 high = static_cast<__int128>(std::max(apiEnd, apiStart)) - deviceQueued;
    m_low = m_any ? std::max(m_low, low) : low;
    m_high = m_any ? std::min(m_high, high) : high;
    m_any = true;
}

int64_t DeviceClockFit::offset() const {
    if (!m_any) return 0;
    __int128 offset = m_high;  // inconsistent samples (drift): queued <= API end holds for all
    if (m_low <= m_high) {
        // The same clock as the host when that fits every command, else the middle of what fits.
        offset = (m_low <= 0 && 0 <= m_high) ? 0 : m_low + (m_high - m_low) / 2;
    }
    constexpr __int128 kMax = std::numeric_limits<int64_t>::max();
    return static_cast<int64_t>(std::clamp<__int128>(offset, -kMax, kMax));
}

bool convertDeviceTimes(const uint64_t device[4], int64_t offset, uint64_t apiStart,
                        uint64_t apiEnd, uint64_t host[4]) {
    apiEnd = std::max(apiEnd, apiStart);
    bool moved = false;
    uint64_t floor = apiStart;
    for (size_t i = 0; i < 4; ++i) {
        const __int128 converted = static_cast<__int128>(device[i]) + offset;
        const __int128 ceiling = i == 0 ? __int128{apiEnd} : __int128{UINT64_MAX};
        const __int128 clamped = std::clamp<__int128>(converted, floor, ceiling);
        moved = moved || clamped != converted;
        host[i] = static_cast<uint64_t>(clamped);
        floor = host[i];
    }
    return moved;
}

}  // namespace perfmarker::atp
