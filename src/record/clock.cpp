#include "record/clock.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace perfmarker::record {
namespace {

bool cpuHasInvariantTsc() {
#if PERFMARKER_HAVE_TSC
    // The kernel reports constant_tsc + nonstop_tsc for a TSC that runs at a fixed rate in all
    // power states; only then is a linear mapping to CLOCK_MONOTONIC sound.
    std::ifstream cpuinfo("/proc/cpuinfo");
    std::string line;
    while (std::getline(cpuinfo, line)) {
        if (line.rfind("flags", 0) == 0) {
            return line.find(" constant_tsc") != std::string::npos &&
                   line.find(" nonstop_tsc") != std::string::npos;
        }
    }
#endif
    return false;
}

}  // namespace

bool ticksAreTsc() {
    static const bool kTsc = [] {
        const char* force = std::getenv("PERFMARKER_CLOCK");
        if (force != nullptr && std::strcmp(force, "monotonic") == 0) return false;
        // A chunk's record headers keep their top two bits clear (record_format.h, compact
        // records): a TSC that far (24 years of 3 GHz ticks, only a hypervisor's offset could
        // do it) is not used.
        return cpuHasInvariantTsc() && readTicks(true) < (uint64_t{1} << 61);
    }();
    return kTsc;
}

TickConverter::TickConverter(bool useTsc, uint64_t minSpacingNs)
    : m_useTsc(useTsc), m_minSpacingNs(minSpacingNs) {
    calibrate();
}

TickConverter::Point TickConverter::samplePoint() const {
    if (!m_useTsc) {
        uint64_t now = monotonicNs();
        return {now, now};
    }
    // Bracket the clock read between two tick reads and keep the tightest of a few tries, so
    // the pair is accurate to a fraction of a clock_gettime call.
    Point best{0, 0};
    uint64_t bestWidth = UINT64_MAX;
    for (int i = 0; i < 5; ++i) {
        uint64_t t0 = readTicks(true);
        uint64_t ns = monotonicNs();
        uint64_t t1 = readTicks(true);
        if (t1 - t0 < bestWidth) {
            bestWidth = t1 - t0;
            best = {t0 + (t1 - t0) / 2, ns};
        }
    }
    return best;
}

void TickConverter::calibrate() {
    Point p = samplePoint();
    m_seen = std::max(m_seen, p.ticks);
    if (!m_points.empty()) {
        const Point& last = m_points.back();
        if (p.ticks <= last.ticks || p.ns < last.ns + m_minSpacingNs) {
            // Not kept. With a single point the line runs through the newest sample, which
            // moves: drop the fast segment. With more, the last segment's line is extended
            // as far as this sample when next asked for.
            if (m_points.size() == 1 && p.ticks > last.ticks && p.ns > last.ns) {
                m_probe = p;
                m_fast = Segment{};
            }
            return;
        }
    }
    m_points.push_back(p);
    if (m_points.size() > kMaxPoints) m_points.pop_front();
    m_fast = Segment{};
}

uint64_t TickConverter::interpolate(const Point& a, const Point& b, uint64_t ticks) {
    // ns = a.ns + (ticks - a.ticks) * (b.ns - a.ns) / (b.ticks - a.ticks), signed for
    // extrapolation before a, in 128-bit to avoid overflow.
    __int128 dt = static_cast<__int128>(ticks) - static_cast<__int128>(a.ticks);
    __int128 ns = static_cast<__int128>(a.ns) +
                  dt * static_cast<__int128>(b.ns - a.ns) / static_cast<__int128>(b.ticks - a.ticks);
    return ns < 0 ? 0 : static_cast<uint64_t>(ns);
}

uint64_t TickConverter::along(const Point& a, const Point& b, uint64_t ticks, uint64_t until) {
    // rate = (b.ns - a.ns) / (b.ticks - a.ticks) in fixed point; it fits 64 bits for any
    // counter faster than 250 MHz. dt * rate / 2^62 is the exact quotient rounded down or one
    // below it, and is the same for the same ticks as long as the segment is.
    const unsigned __int128 rate =
        (static_cast<unsigned __int128>(b.ns - a.ns) << kRateShift) / (b.ticks - a.ticks);
    if ((rate >> 64) != 0) return interpolate(a, b, ticks);
    m_fast.ticks = a.ticks;
    m_fast.span = until - a.ticks;
    m_fast.ns = a.ns;
    m_fast.rate = static_cast<uint64_t>(rate);
    return a.ns + scale(ticks - a.ticks, m_fast.rate);
}

uint64_t TickConverter::toNsSlow(uint64_t ticks) {
    // Never extrapolate past the newest sample: take a fresh one instead.
    if (m_points.size() < 2 || ticks >= m_seen) calibrate();
    if (m_points.size() < 2) {
        // Within the first spacing: one point, no rate yet. Take the rate against the newest
        // sample, which is not kept.
        const Point a = m_points.back();
        if (m_probe.ticks <= a.ticks || m_probe.ns <= a.ns) {
            m_probe = samplePoint();
            m_seen = std::max(m_seen, m_probe.ticks);
            if (m_probe.ticks <= a.ticks || m_probe.ns <= a.ns) return a.ns;
        }
        if (ticks < a.ticks) return interpolate(a, m_probe, ticks);
        return along(a, m_probe, ticks, std::max(m_seen, m_probe.ticks));
    }
    // Points are few and conversion runs shortly after recording: search from the newest end.
    size_t i = m_points.size() - 1;
    while (i > 1 && ticks < m_points[i - 1].ticks) --i;
    const Point& a = m_points[i - 1];
    const Point& b = m_points[i];
    if (ticks < a.ticks) return interpolate(a, b, ticks);  // before the first point
    const bool newest = i == m_points.size() - 1;
    return along(a, b, ticks, newest ? std::max(m_seen, b.ticks) : b.ticks);
}

}  // namespace perfmarker::record
