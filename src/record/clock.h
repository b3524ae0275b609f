// One clock for the whole trace: CLOCK_MONOTONIC nanoseconds (the clock of the original tools,
// and the one the tracing agents convert device times into). The hot path reads a raw tick
// counter (rdtsc where the CPU has an invariant TSC, CLOCK_MONOTONIC otherwise); the writer
// converts ticks to nanoseconds off the hot path with TickConverter.
#pragma once

#include <cstdint>
#include <ctime>
#include <deque>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define PERFMARKER_HAVE_TSC 1
#else
#define PERFMARKER_HAVE_TSC 0
#endif

namespace perfmarker::record {

// CLOCK_MONOTONIC in nanoseconds: the trace clock.
inline uint64_t monotonicNs() {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000000ull + static_cast<uint64_t>(ts.tv_nsec);
}

// True when ticks come from an invariant TSC (decided once, at first use).
bool ticksAreTsc();

// Raw ticks of the hot path: TSC when invariant, else CLOCK_MONOTONIC nanoseconds.
inline uint64_t readTicks(bool useTsc) {
#if PERFMARKER_HAVE_TSC
    if (useTsc) return __rdtsc();
#endif
    (void)useTsc;
    return monotonicNs();
}

// readTicks(true), for a caller that has checked that ticks are the TSC.
inline uint64_t readTsc() {
#if PERFMARKER_HAVE_TSC
    return __rdtsc();
#else
    return monotonicNs();
#endif
}

// Converts ticks into trace-clock nanoseconds by piecewise-linear interpolation between
// calibration points (tick, ns) taken by the writer thread. The mapping is continuous and
// monotonic, so per-thread order survives conversion. Owned by one thread (the writer).
//
// The writer converts every record it flushes, so a conversion is a range check and one
// 64x64-bit multiply on the segment used last (its rate kept in fixed point); choosing a segment,
// and the rare case that needs a division, happen only when the ticks leave that segment.
class TickConverter {
public:
    // Points closer than `minSpacingNs` are not kept, so segments stay long enough for an
    // accurate rate; old points are dropped beyond kMaxPoints.
    explicit TickConverter(bool useTsc, uint64_t minSpacingNs = 1000000);
    // Takes a calibration point now; call before converting ticks read up to now.
    void calibrate();
    uint64_t toNs(uint64_t ticks) {
        if (!m_useTsc) return ticks;
        const uint64_t dt = ticks - m_fast.ticks;
        if (dt < m_fast.span) return m_fast.ns + scale(dt, m_fast.rate);
        return toNsSlow(ticks);
    }
    bool useTsc() const { return m_useTsc; }

    // The segment of the last conversion as values, for a caller's loop that stores through
    // char pointers (after which the compiler reloads every member toNs() reads): convert()
    // gives toNs()'s result, or false outside the segment (then call toNs()).
    struct Fast {
        uint64_t ticks, span, ns, rate;
        bool identity;
        bool convert(uint64_t t, uint64_t& out) const {
            if (identity) {
                out = t;
                return true;
            }
            return convertInSegment(t, out);
        }
        // convert() when not `identity`.
        bool convertInSegment(uint64_t t, uint64_t& out) const {
            const uint64_t dt = t - ticks;
            if (dt >= span) return false;
            out = ns + scale(dt, rate);
            return true;
        }
    };
    Fast fast() const { return {m_fast.ticks, m_fast.span, m_fast.ns, m_fast.rate, !m_useTsc}; }

private:
    struct Point {
        uint64_t ticks;
        uint64_t ns;
    };
    // The segment of the last conversion: ticks in [ticks, ticks + span) map to
    // ns + dt * rate / 2^kRateShift. span 0 means none.
    struct Segment {
        uint64_t ticks = 0;
        uint64_t span = 0;
        uint64_t ns = 0;
        uint64_t rate = 0;
    };
    static constexpr unsigned kRateShift = 62;
    static uint64_t scale(uint64_t dt, uint64_t rate) {
        return static_cast<uint64_t>((static_cast<unsigned __int128>(dt) * rate) >> kRateShift);
    }
    Point samplePoint() const;
    uint64_t toNsSlow(uint64_t ticks);
    // Converts ticks >= a.ticks on the line through a and b, and keeps that line as the fast
    // segment for ticks below `until`.
    uint64_t along(const Point& a, const Point& b, uint64_t ticks, uint64_t until);
    static uint64_t interpolate(const Point& a, const Point& b, uint64_t ticks);

    static constexpr size_t kMaxPoints = 4096;
    bool m_useTsc;
    uint64_t m_minSpacingNs;
    std::deque<Point> m_points;  // increasing in both fields; bounded
    uint64_t m_seen = 0;         // ticks of the newest sample taken, kept or not
    Point m_probe{0, 0};         // newest sample while only one point is kept
    Segment m_fast;
};

}  // namespace perfmarker::record
