// Clock anchors and the host name in the .atp header (docs/format.md#clock-anchors): what only
// the traced machine knows, so that tools elsewhere can convert its CLOCK_MONOTONIC times to
// CLOCK_MONOTONIC_RAW (VTune) and put traces of several hosts on one CLOCK_REALTIME timeline.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace perfmarker::atp {

// One reading of the three clocks, in nanoseconds. CLOCK_MONOTONIC is read once, between the
// CLOCK_MONOTONIC_RAW and CLOCK_REALTIME reads, so each pair is read back to back.
struct ClockAnchor {
    int64_t monotonic = 0;
    int64_t monotonicRaw = 0;
    int64_t realtime = 0;

    int64_t rawOffset() const { return monotonicRaw - monotonic; }
    int64_t realtimeOffset() const { return realtime - monotonic; }
    bool operator==(const ClockAnchor& other) const {
        return monotonic == other.monotonic && monotonicRaw == other.monotonicRaw &&
               realtime == other.realtime;
    }
};

inline constexpr std::string_view kHostNameKey = "HostName";
inline constexpr std::string_view kClockAnchorStartKey = "ClockAnchorStart";
inline constexpr std::string_view kClockAnchorEndKey = "ClockAnchorEnd";

// The clocks now: the tightest of a few back-to-back readings (the one whose bracketing
// CLOCK_MONOTONIC_RAW reads lie closest together), so a preemption between two reads does not
// skew the pairs.
ClockAnchor readClockAnchor();

// "CLOCK_MONOTONIC=<ns>;CLOCK_MONOTONIC_RAW=<ns>;CLOCK_REALTIME=<ns>".
std::string formatClockAnchor(const ClockAnchor& anchor);

// The value formatClockAnchor writes, the three clocks in any order, each once. False with
// `error` ("expected CLOCK_MONOTONIC=<ns>;...") otherwise.
bool parseClockAnchor(std::string_view value, ClockAnchor& anchor, std::string& error);

// This machine's host name (gethostname), "localhost" when it has none.
std::string localHostName();

// The clock facts of one trace, as its header gives them.
struct RawConversion;

struct TraceClocks {
    std::string hostName;  // "" when the header has none (traces of older writers)
    std::optional<ClockAnchor> start;
    std::optional<ClockAnchor> end;

    // Reads the keys above (others are ignored); a malformed anchor is left out and named in
    // `problem` (the last one seen).
    void take(std::string_view key, std::string_view value, std::string& problem);

    // What is wrong with the anchors as a pair, "" when nothing (or when there is no pair): the
    // end before the start, or CLOCK_MONOTONIC_RAW or CLOCK_REALTIME running apart from
    // CLOCK_MONOTONIC by more than kMaxClockDrift (plus kClockReadSlackNs for the reads).
    std::string inconsistency() const;

    // The CLOCK_MONOTONIC -> CLOCK_MONOTONIC_RAW conversion the anchors give: interpolated
    // between the start and end anchors; the start's offset alone when the pair is inconsistent
    // or there is no end (the end's when there is no start). Requires `start` or `end`.
    struct RawConversion rawConversion() const;
};

// CLOCK_MONOTONIC_RAW - CLOCK_MONOTONIC at a CLOCK_MONOTONIC time: linear between two anchors,
// the nearest anchor's outside them.
struct RawConversion {
    int64_t startMonotonic = 0;
    int64_t startOffset = 0;
    int64_t endMonotonic = 0;
    int64_t endOffset = 0;

    int64_t offsetAt(int64_t monotonicNs) const;
};

inline constexpr double kMaxClockDrift = 0.001;       // 0.1%
inline constexpr int64_t kClockReadSlackNs = 10'000;  // two preempted reads, at worst

}  // namespace perfmarker::atp
