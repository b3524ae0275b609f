// Clock anchors and the host name (docs/format.md#clock-anchors).
#include "atp/format/clock_anchors.h"

#include <time.h>
#include <unistd.h>

#include <array>
#include <charconv>
#include <cstdlib>

namespace perfmarker::atp {
namespace {

constexpr int kReadings = 5;

struct ClockName {
    std::string_view name;
    int64_t ClockAnchor::*field;
};

constexpr std::array<ClockName, 3> kClocks = {{
    {"CLOCK_MONOTONIC", &ClockAnchor::monotonic},
    {"CLOCK_MONOTONIC_RAW", &ClockAnchor::monotonicRaw},
    {"CLOCK_REALTIME", &ClockAnchor::realtime},
}};

int64_t nowNs(clockid_t clock) {
    timespec now{};
    clock_gettime(clock, &now);
    return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

// |a - b| as a magnitude (the differences here are far below overflow).
int64_t distance(int64_t a, int64_t b) { return a > b ? a - b : b - a; }

// How far `other` ran apart from CLOCK_MONOTONIC between the anchors, as a message, or "".
std::string drift(std::string_view clock, int64_t monotonicSpan, int64_t otherSpan) {
    const auto allowed = static_cast<int64_t>(static_cast<double>(monotonicSpan) * kMaxClockDrift) +
                         kClockReadSlackNs;
    const int64_t apart = distance(otherSpan, monotonicSpan);
    if (apart <= allowed) return {};
    return std::string(clock) + " ran " + std::to_string(apart) +
           " ns apart from CLOCK_MONOTONIC in " + std::to_string(monotonicSpan) +
           " ns (more than 0.1%)";
}

}  // namespace

ClockAnchor readClockAnchor() {
    ClockAnchor best;
    int64_t bestSpan = -1;
    for (int i = 0; i < kReadings; ++i) {
        ClockAnchor anchor;
        anchor.monotonicRaw = nowNs(CLOCK_MONOTONIC_RAW);
        anchor.monotonic = nowNs(CLOCK_MONOTONIC);
        anchor.realtime = nowNs(CLOCK_REALTIME);
        const int64_t span = nowNs(CLOCK_MONOTONIC_RAW) - anchor.monotonicRaw;
        if (bestSpan < 0 || span < bestSpan) {
            best = anchor;
            bestSpan = span;
        }
    }
    return best;
}

std::string formatClockAnchor(const ClockAnchor& anchor) {
    std::string out;
    for (const ClockName& clock : kClocks) {
        if (!out.empty()) out.push_back(';');
        out.append(clock.name);
        out.push_back('=');
        out.append(std::to_string(anchor.*clock.field));
    }
    return out;
}

bool parseClockAnchor(std::string_view value, ClockAnchor& anchor, std::string& error) {
    std::array<bool, kClocks.size()> seen{};
    ClockAnchor parsed;
    bool ok = true;
    while (ok && !value.empty()) {
        const size_t end = value.find(';');
        const std::string_view item = value.substr(0, end);
        value = end == std::string_view::npos ? std::string_view() : value.substr(end + 1);
        const size_t eq = item.find('=');
        ok = false;
        for (size_t i = 0; i < kClocks.size() && eq != std::string_view::npos; ++i) {
            if (item.substr(0, eq) != kClocks[i].name || seen[i]) continue;
            const std::string_view digits = item.substr(eq + 1);
            int64_t number = 0;
            const auto [ptr, ec] =
                std::from_chars(digits.data(), digits.data() + digits.size(), number);
            ok = ec == std::errc() && ptr == digits.data() + digits.size() && !digits.empty() &&
                 number >= 0;
            parsed.*kClocks[i].field = number;
            seen[i] = true;
        }
    }
    for (const bool s : seen) ok = ok && s;
    if (!ok) {
        error = "expected CLOCK_MONOTONIC=<ns>;CLOCK_MONOTONIC_RAW=<ns>;CLOCK_REALTIME=<ns>";
        return false;
    }
    anchor = parsed;
    return true;
}

std::string localHostName() {
    std::array<char, 256> name{};
    if (gethostname(name.data(), name.size() - 1) != 0 || name[0] == '\0') return "localhost";
    return name.data();
}

void TraceClocks::take(std::string_view key, std::string_view value, std::string& problem) {
    if (key == kHostNameKey) {
        hostName = std::string(value);
        return;
    }
    std::optional<ClockAnchor>* target = key == kClockAnchorStartKey ? &start
                                         : key == kClockAnchorEndKey ? &end
                                                                     : nullptr;
    if (target == nullptr) return;
    ClockAnchor anchor;
    std::string error;
    if (parseClockAnchor(value, anchor, error)) {
        *target = anchor;
    } else {
        target->reset();
        problem = std::string(key) + "=" + std::string(value) + ": " + error;
    }
}

std::string TraceClocks::inconsistency() const {
    if (!start || !end) return {};
    const int64_t span = end->monotonic - start->monotonic;
    if (span < 0) return "the end anchor is before the start anchor";
    std::string problem =
        drift("CLOCK_MONOTONIC_RAW", span, end->monotonicRaw - start->monotonicRaw);
    if (problem.empty()) problem = drift("CLOCK_REALTIME", span, end->realtime - start->realtime);
    return problem;
}

RawConversion TraceClocks::rawConversion() const {
    const ClockAnchor& first = start ? *start : *end;
    const ClockAnchor& last = end && start && inconsistency().empty() ? *end : first;
    return {first.monotonic, first.rawOffset(), last.monotonic, last.rawOffset()};
}

int64_t RawConversion::offsetAt(int64_t monotonicNs) const {
    if (monotonicNs <= startMonotonic || endMonotonic <= startMonotonic) return startOffset;
    if (monotonicNs >= endMonotonic) return endOffset;
    const double fraction = static_cast<double>(monotonicNs - startMonotonic) /
                            static_cast<double>(endMonotonic - startMonotonic);
    const auto change = static_cast<double>(endOffset - startOffset);
    return startOffset + static_cast<int64_t>(change * fraction + (change < 0 ? -0.5 : 0.5));
}

}  // namespace perfmarker::atp
