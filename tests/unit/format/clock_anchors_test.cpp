// Clock anchors and the host name in the header (src/atp/format/clock_anchors.h,
// docs/format.md#clock-anchors): reading the clocks, the value's text both ways, the
// consistency check and the CLOCK_MONOTONIC -> CLOCK_MONOTONIC_RAW conversion.
#include "atp/format/clock_anchors.h"

#include <gtest/gtest.h>
#include <time.h>
#include <unistd.h>

#include <sstream>

#include "atp/format/atp_header.h"

namespace perfmarker::atp {
namespace {

int64_t nowNs(clockid_t clock) {
    timespec now{};
    clock_gettime(clock, &now);
    return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

TEST(ClockAnchors, ReadingPairsTheClocksBackToBack) {
    const int64_t monotonicBefore = nowNs(CLOCK_MONOTONIC);
    const int64_t realtimeBefore = nowNs(CLOCK_REALTIME);
    const ClockAnchor anchor = readClockAnchor();
    const int64_t realtimeAfter = nowNs(CLOCK_REALTIME);
    const int64_t monotonicAfter = nowNs(CLOCK_MONOTONIC);
    EXPECT_LE(monotonicBefore, anchor.monotonic);
    EXPECT_LE(anchor.monotonic, monotonicAfter);
    EXPECT_LE(realtimeBefore, anchor.realtime);
    EXPECT_LE(anchor.realtime, realtimeAfter);
    // The offsets of two readings agree to within the readings' own time (plus slew).
    const ClockAnchor again = readClockAnchor();
    EXPECT_LT(std::llabs(again.rawOffset() - anchor.rawOffset()), 5'000'000);
    EXPECT_LT(std::llabs(again.realtimeOffset() - anchor.realtimeOffset()), 5'000'000);
}

TEST(ClockAnchors, TextRoundTripsAndBadTextIsRefused) {
    const ClockAnchor anchor{123, 456, 1'700'000'000'000'000'789};
    const std::string text = formatClockAnchor(anchor);
    EXPECT_EQ(text,
              "CLOCK_MONOTONIC=123;CLOCK_MONOTONIC_RAW=456;CLOCK_REALTIME=1700000000000000789");
    ClockAnchor parsed;
    std::string error;
    ASSERT_TRUE(parseClockAnchor(text, parsed, error)) << error;
    EXPECT_EQ(parsed, anchor);
    ASSERT_TRUE(parseClockAnchor("CLOCK_REALTIME=3;CLOCK_MONOTONIC=1;CLOCK_MONOTONIC_RAW=2", parsed,
                                 error));
    EXPECT_EQ(parsed, (ClockAnchor{1, 2, 3}));
    for (const char* bad : {"", "CLOCK_MONOTONIC=1;CLOCK_MONOTONIC_RAW=2",
                            "CLOCK_MONOTONIC=1;CLOCK_MONOTONIC_RAW=2;CLOCK_REALTIME=x",
                            "CLOCK_MONOTONIC=1;CLOCK_MONOTONIC_RAW=2;CLOCK_REALTIME=-3",
                            "CLOCK_MONOTONIC=1;CLOCK_MONOTONIC=1;CLOCK_MONOTONIC_RAW=2",
                            "CLOCK_MONOTONIC=1;CLOCK_MONOTONIC_RAW=2;CLOCK_REALTIME=3;CLOCK_TAI=4",
                            "CLOCK_MONOTONIC=1;CLOCK_MONOTONIC_RAW=2;CLOCK_REALTIME=3 ",
                            "CLOCK_MONOTONIC=99999999999999999999;CLOCK_MONOTONIC_RAW=2;"
                            "CLOCK_REALTIME=3"}) {
        error.clear();
        parsed = ClockAnchor{7, 7, 7};
        EXPECT_FALSE(parseClockAnchor(bad, parsed, error)) << bad;
        EXPECT_NE(error.find("expected CLOCK_MONOTONIC=<ns>"), std::string::npos) << bad;
        EXPECT_EQ(parsed, (ClockAnchor{7, 7, 7})) << "left untouched: " << bad;
    }
}

TEST(ClockAnchors, HeaderCarriesHostAndAnchorsAfterOurOtherKeys) {
    AtpHeader header;
    header.processId = 42;
    header.hostName = "node7";
    header.clockStart = ClockAnchor{1, 2, 3};
    header.clockEnd = ClockAnchor{4, 5, 6};
    std::istringstream in(formatAtpHeader(header));
    std::vector<std::string> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    ASSERT_EQ(lines.size(), 14u);
    EXPECT_EQ(lines[8], "ClockDomain=CLOCK_MONOTONIC");
    EXPECT_EQ(lines[9], "ProcessId=42");
    EXPECT_EQ(lines[10], "HostName=node7");
    EXPECT_EQ(lines[11],
              "ClockAnchorStart=CLOCK_MONOTONIC=1;CLOCK_MONOTONIC_RAW=2;CLOCK_REALTIME=3");
    EXPECT_EQ(lines[12], "ClockAnchorEnd=CLOCK_MONOTONIC=4;CLOCK_MONOTONIC_RAW=5;CLOCK_REALTIME=6");
    EXPECT_EQ(lines[13], "CLExcludedAPIs=");
}

TEST(ClockAnchors, TraceClocksTakeTheirKeysAndNameMalformedOnes) {
    TraceClocks clocks;
    std::string problem;
    clocks.take("HostName", "gpu-node-3", problem);
    clocks.take("ClockAnchorStart", "CLOCK_MONOTONIC=1;CLOCK_MONOTONIC_RAW=2;CLOCK_REALTIME=3",
                problem);
    clocks.take("ClockDomain", "CLOCK_MONOTONIC", problem);
    EXPECT_TRUE(problem.empty()) << problem;
    EXPECT_EQ(clocks.hostName, "gpu-node-3");
    ASSERT_TRUE(clocks.start.has_value());
    EXPECT_FALSE(clocks.end.has_value());
    clocks.take("ClockAnchorEnd", "garbage", problem);
    EXPECT_FALSE(clocks.end.has_value());
    EXPECT_EQ(problem.rfind("ClockAnchorEnd=garbage: expected", 0), 0u) << problem;
}

TEST(ClockAnchors, InconsistentPairsAreNamed) {
    TraceClocks clocks;
    clocks.start = ClockAnchor{1'000'000'000, 1'000'000'500, 9'000'000'000};
    clocks.end = ClockAnchor{2'000'000'000, 2'000'000'600, 10'000'000'000};
    EXPECT_EQ(clocks.inconsistency(), "");                 // 100 ns apart in a second: fine
    clocks.end->monotonicRaw = 2'000'000'500 + 2'000'000;  // 0.2% in a second
    EXPECT_NE(clocks.inconsistency().find("CLOCK_MONOTONIC_RAW ran 2000000 ns apart"),
              std::string::npos)
        << clocks.inconsistency();
    clocks.end->monotonicRaw = 2'000'000'500;
    clocks.end->realtime = 10'000'000'000 + 5'000'000;  // a realtime step during the run
    EXPECT_NE(clocks.inconsistency().find("CLOCK_REALTIME ran"), std::string::npos);
    clocks.end->monotonic = 500;
    EXPECT_EQ(clocks.inconsistency(), "the end anchor is before the start anchor");
    clocks.end.reset();
    EXPECT_EQ(clocks.inconsistency(), "");
}

TEST(ClockAnchors, RawConversionInterpolatesBetweenTheAnchors) {
    TraceClocks clocks;
    clocks.start = ClockAnchor{1000, 1100, 5};   // offset 100
    clocks.end = ClockAnchor{2000, 2104, 1005};  // offset 104
    const RawConversion conversion = clocks.rawConversion();
    EXPECT_EQ(conversion.offsetAt(0), 100);  // before the start: the start's
    EXPECT_EQ(conversion.offsetAt(1000), 100);
    EXPECT_EQ(conversion.offsetAt(1500), 102);
    EXPECT_EQ(conversion.offsetAt(1800), 103);  // 103.2
    EXPECT_EQ(conversion.offsetAt(1875), 104);  // 103.5 rounds away from zero
    EXPECT_EQ(conversion.offsetAt(2000), 104);
    EXPECT_EQ(conversion.offsetAt(9000), 104);  // after the end: the end's
    clocks.end->monotonic = 10;                 // inconsistent: the start alone
    EXPECT_EQ(clocks.rawConversion().offsetAt(1500), 100);
    clocks.start.reset();  // the end alone
    EXPECT_EQ(clocks.rawConversion().offsetAt(1500), 2094);
}

TEST(ClockAnchors, HostNameIsThisMachines) {
    char name[256] = {};
    ASSERT_EQ(gethostname(name, sizeof name - 1), 0);
    EXPECT_EQ(localHostName(), name[0] != '\0' ? std::string(name) : "localhost");
}

}  // namespace
}  // namespace perfmarker::atp
