#include "record/clock.h"

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
        return cpuHasInvariantTsc();
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
    if (!m_points.empty()) {
        const Point& last = m_points.back();
        if (p.ticks <= last.ticks || p.ns < last.ns + m_minSpacingNs) return;
    }
    m_points.push_back(p);
    if (m_points.size() > kMaxPoints) m_points.pop_front();
}

uint64_t TickConverter::interpolate(const Point& a, const Point& b, uint64_t ticks) {
    // ns = a.ns + (ticks - a.ticks) * (b.ns - a.ns) / (b.ticks - a.ticks), signed for
    // extrapolation before a, in 128-bit to avoid overflow.
    __int128 dt = static_cast<__int128>(ticks) - static_cast<__int128>(a.ticks);
    __int128 ns = static_cast<__int128>(a.ns) +
                  dt * static_cast<__int128>(b.ns - a.ns) / static_cast<__int128>(b.ticks - a.ticks);
    return ns < 0 ? 0 : static_cast<uint64_t>(ns);
}

uint64_t TickConverter::toNs(uint64_t ticks) {
    if (!m_useTsc) return ticks;
    // Never extrapolate past the newest point: take a fresh one instead.
    if (m_points.size() < 2 || ticks >= m_points.back().ticks) calibrate();
    if (m_points.size() < 2) {
        // Within the first spacing: only one point, so no rate yet. Measure one against a
        // fresh sample without keeping it.
        Point a = m_points.back();
        Point b = samplePoint();
        if (b.ticks <= a.ticks || b.ns <= a.ns) return a.ns;
        return interpolate(a, b, ticks);
    }
    // Points are few and conversion runs shortly after recording: search from the newest end.
    size_t i = m_points.size() - 1;
    while (i > 1 && ticks < m_points[i - 1].ticks) --i;
    return interpolate(m_points[i - 1], m_points[i], ticks);
}

}  // namespace perfmarker::record
