// What the chaos tests share (docs/session.md#chaos-tests): the paths of the programs they
// run, and counting the marker pairs of an output the way a user's tools see it, through the
// product's reader (.atp and .clperfmarker files alike), never through the recorder's fragments.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "atp/format/perfmarker_section.h"
#include "atp_document.h"

#ifndef PERFMARKER_CHAOS_APP_PATH
#error "PERFMARKER_CHAOS_APP_PATH must name tests/chaos/chaos_app.c's program"
#endif

namespace perfmarker::chaos {

inline const std::string kChaosApp = PERFMARKER_CHAOS_APP_PATH;

// The marker pairs of a file. A pair is a begin followed by its end on the same thread; markers
// are never nested by chaos_app, so anything else is a malformed pair.
struct PairCount {
    size_t threads = 0;
    size_t pairs = 0;
    size_t openTails = 0;  // threads whose last marker is a begin without its end
    std::string problem;   // the first malformed marker, empty when every pair is whole
};

inline PairCount countPairs(const atp::PerfmarkerFile& file) {
    PairCount count;
    count.threads = file.threads.size();
    for (const atp::ThreadMarkers& thread : file.threads) {
        const size_t n = thread.markers.size();
        for (size_t i = 0; i < n; i += 2) {
            const atp::Marker& begin = thread.markers[i];
            if (begin.kind != atp::MarkerKind::Begin || begin.group != "chaos") {
                if (count.problem.empty()) {
                    count.problem = "thread " + std::to_string(thread.tid) + ", marker " +
                                    std::to_string(i) + ": expected a begin of group chaos";
                }
                break;
            }
            if (i + 1 == n) {
                ++count.openTails;
                break;
            }
            if (thread.markers[i + 1].kind != atp::MarkerKind::End) {
                if (count.problem.empty()) {
                    count.problem = "thread " + std::to_string(thread.tid) + ", marker " +
                                    std::to_string(i + 1) + ": expected an end";
                }
                break;
            }
            ++count.pairs;
        }
    }
    return count;
}

// The pairs of a .clperfmarker file, or of the Perfmarker section of an .atp (by extension).
inline ::testing::AssertionResult readPairs(const std::string& path, PairCount& out) {
    std::string error;
    atp::PerfmarkerFile markers;
    const bool atp = path.size() > 4 && path.compare(path.size() - 4, 4, ".atp") == 0;
    if (atp) {
        atp::AtpDocument document;
        if (!atp::loadAtpFile(path, document, error)) {
            return ::testing::AssertionFailure() << "cannot read " << path << ": " << error;
        }
        markers = std::move(document.markers);
    } else if (!atp::readPerfmarkerFile(path, markers, error)) {
        return ::testing::AssertionFailure() << "cannot read " << path << ": " << error;
    }
    out = countPairs(markers);
    return ::testing::AssertionSuccess();
}

}  // namespace perfmarker::chaos
