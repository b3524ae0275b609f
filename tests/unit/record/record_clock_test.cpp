// TickConverter: ticks convert to CLOCK_MONOTONIC nanoseconds, accurately and monotonically.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include "record/clock.h"

namespace perfmarker::record {
namespace {

// Conversion error allowed against CLOCK_MONOTONIC, beyond the width of the bracket in which
// the reference pair was read.
constexpr uint64_t kToleranceNs = 20000;

void sleepMs(int ms) { std::this_thread::sleep_for(std::chrono::milliseconds(ms)); }

bool haveTsc() {
#if PERFMARKER_HAVE_TSC
    return true;
#else
    return false;
#endif
}

struct Sample {
    uint64_t ticks;
    uint64_t lo;  // monotonicNs just before the tick read
    uint64_t hi;  // and just after
};

Sample takeSample(bool useTsc) {
    Sample s;
    s.lo = monotonicNs();
    s.ticks = readTicks(useTsc);
    s.hi = monotonicNs();
    return s;
}

void expectNear(const Sample& s, uint64_t ns) {
    EXPECT_GE(ns + kToleranceNs, s.lo)
        << "converted " << ns << " is " << static_cast<int64_t>(s.lo - ns) << " ns early";
    EXPECT_LE(ns, s.hi + kToleranceNs)
        << "converted " << ns << " is " << static_cast<int64_t>(ns - s.hi) << " ns late";
}

TEST(record_Clock, MonotonicNsAdvances) {
    uint64_t a = monotonicNs();
    sleepMs(2);
    uint64_t b = monotonicNs();
    EXPECT_GE(b - a, 2000000u);
    EXPECT_LT(b - a, 2000000000u);
}

TEST(record_Clock, TicksAreTscIsStable) {
    const bool first = ticksAreTsc();
    EXPECT_EQ(first, ticksAreTsc());
    if (!haveTsc()) {
        EXPECT_FALSE(first);
    }
}

TEST(record_TickConverter, MonotonicModeIsIdentity) {
    TickConverter conv(false);
    EXPECT_FALSE(conv.useTsc());
    for (uint64_t v : {uint64_t{0}, uint64_t{1}, uint64_t{123456789}, monotonicNs(),
                       uint64_t{1} << 62, UINT64_MAX}) {
        EXPECT_EQ(conv.toNs(v), v);
    }
    uint64_t t = readTicks(false);
    conv.calibrate();
    EXPECT_EQ(conv.toNs(t), t);
}

TEST(record_TickConverter, TracksMonotonicAfterCalibration) {
    if (!haveTsc()) GTEST_SKIP() << "no TSC on this architecture";
    TickConverter conv(true);
    EXPECT_TRUE(conv.useTsc());
    std::vector<Sample> samples;
    for (int round = 0; round < 4; ++round) {
        samples.push_back(takeSample(true));
        sleepMs(3);
        conv.calibrate();
    }
    samples.push_back(takeSample(true));
    sleepMs(3);
    conv.calibrate();
    for (const Sample& s : samples) expectNear(s, conv.toNs(s.ticks));
}

TEST(record_TickConverter, TracksMonotonicWithSinglePoint) {
    // Converted within the first spacing: only one calibration point so far.
    if (!haveTsc()) GTEST_SKIP() << "no TSC on this architecture";
    TickConverter conv(true, 1000000000ull);  // later points at least 1 s apart
    sleepMs(1);
    Sample s = takeSample(true);
    sleepMs(3);
    expectNear(s, conv.toNs(s.ticks));
}

TEST(record_TickConverter, TracksMonotonicWhenConvertingFreshTicks) {
    // toNs takes a fresh point itself when the ticks are past the newest one.
    if (!haveTsc()) GTEST_SKIP() << "no TSC on this architecture";
    TickConverter conv(true);
    sleepMs(3);
    Sample s = takeSample(true);
    expectNear(s, conv.toNs(s.ticks));
}

TEST(record_TickConverter, MonotoneAcrossCalibrations) {
    // Ticks read over several calibration points, converted once they are covered, give a
    // non-decreasing sequence; a dense sweep over the whole range too.
    if (!haveTsc()) GTEST_SKIP() << "no TSC on this architecture";
    TickConverter conv(true);
    std::vector<uint64_t> ticks;
    std::vector<uint64_t> converted;
    const uint64_t first = readTicks(true);
    for (int round = 0; round < 6; ++round) {
        std::vector<uint64_t> batch;
        const uint64_t until = monotonicNs() + 1500000;  // 1.5 ms: past the point spacing
        while (monotonicNs() < until) batch.push_back(readTicks(true));
        conv.calibrate();
        for (uint64_t t : batch) {
            ticks.push_back(t);
            converted.push_back(conv.toNs(t));
        }
    }
    ASSERT_GT(ticks.size(), 100u);
    for (size_t i = 1; i < ticks.size(); ++i) {
        ASSERT_LE(ticks[i - 1], ticks[i]);
        ASSERT_LE(converted[i - 1], converted[i]) << "at " << i << " of " << ticks.size();
    }
    // Converting again (after more calibration) gives the same values: the segments that
    // covered them do not change.
    sleepMs(2);
    conv.calibrate();
    for (size_t i = 0; i < ticks.size(); i += ticks.size() / 50 + 1) {
        EXPECT_EQ(conv.toNs(ticks[i]), converted[i]) << i;
    }
    // Dense sweep from the first tick to the last, in equal steps.
    const uint64_t last = ticks.back();
    const uint64_t steps = 200000;
    const uint64_t stride = std::max<uint64_t>(1, (last - first) / steps);
    uint64_t prev = conv.toNs(first);
    for (uint64_t t = first + stride; t <= last; t += stride) {
        uint64_t ns = conv.toNs(t);
        ASSERT_LE(prev, ns) << "tick " << t;
        prev = ns;
    }
    // Single-tick steps over the end of the range.
    prev = conv.toNs(last - 20000);
    for (uint64_t t = last - 19999; t <= last; ++t) {
        uint64_t ns = conv.toNs(t);
        ASSERT_LE(prev, ns) << "tick " << t;
        prev = ns;
    }
}

TEST(record_TickConverter, SameTicksSameValueWhateverWasConvertedBefore) {
    // The converter keeps the segment it used last; converting ticks of other segments in
    // between (newest, oldest, alternating) must not change any value.
    if (!haveTsc()) GTEST_SKIP() << "no TSC on this architecture";
    TickConverter conv(true);
    std::vector<uint64_t> ticks;
    for (int round = 0; round < 4; ++round) {
        const uint64_t until = monotonicNs() + 1300000;
        while (monotonicNs() < until) ticks.push_back(readTicks(true));
        conv.calibrate();
    }
    sleepMs(2);
    conv.calibrate();
    std::vector<uint64_t> forward;
    for (uint64_t t : ticks) forward.push_back(conv.toNs(t));
    for (size_t k = 0; k < ticks.size(); ++k) {
        // Jump between both ends: every conversion lands on another segment than the last.
        const size_t i = (k % 2 == 0) ? k / 2 : ticks.size() - 1 - k / 2;
        ASSERT_EQ(conv.toNs(ticks[i]), forward[i]) << "tick " << i << " of " << ticks.size();
    }
    for (size_t i = ticks.size(); i-- > 0;) ASSERT_EQ(conv.toNs(ticks[i]), forward[i]) << i;
}

TEST(record_TickConverter, RateMatchesMonotonic) {
    // Over a longer interval, converted tick differences match CLOCK_MONOTONIC differences.
    if (!haveTsc()) GTEST_SKIP() << "no TSC on this architecture";
    TickConverter conv(true);
    Sample a = takeSample(true);
    sleepMs(20);
    Sample b = takeSample(true);
    sleepMs(2);
    conv.calibrate();
    const uint64_t na = conv.toNs(a.ticks);
    const uint64_t nb = conv.toNs(b.ticks);
    ASSERT_LT(na, nb);
    const uint64_t elapsed = nb - na;
    EXPECT_GE(elapsed + kToleranceNs, b.lo - a.hi);
    EXPECT_LE(elapsed, b.hi - a.lo + kToleranceNs);
}

}  // namespace
}  // namespace perfmarker::record
