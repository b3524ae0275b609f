// The per-thread recorder: round trips on one thread, in place payloads, and append after
// stop. Helpers and the RecorderModeTest fixture are in record_recorder_support.h.
#include "record_recorder_support.h"

#include <chrono>
#include <cstdint>
#include <cstring>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace perfmarker::record {
namespace {

using namespace recorder_test;

// ---- single thread round trip ---------------------------------------------------------------

std::string megabyteString() {
    std::string s(1 << 20, '\0');
    for (size_t i = 0; i < s.size(); ++i) s[i] = static_cast<char>((i * 131 + i / 977) & 0xff);
    return s;
}

TEST_P(RecorderModeTest, SingleThreadRoundTrip) {
    TempDir dir;
    ASSERT_FALSE(dir.path().empty());
    const std::string big = megabyteString();
    const std::vector<std::string> strings = {
        "",
        "hello world",
        "two\nlines\r\nand\ttabs",
        std::string("nul\0in\0the middle\0", 19),
        std::string("\0", 1),
        "\xff\xfe\xc0\x80 not utf-8 \xed\xa0\x80",
        "\xe2\x82",  // a cut multibyte sequence
        "x",
        "seven..",
        "eight...",
        std::string(300, 'q'),
    };
    const size_t n = scaled(6000, 2000);

    Recorder rec(options(GetParam(), dir.path()));
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    EXPECT_EQ(rec.threadLog(), log);

    std::vector<Rec> expected;
    std::vector<std::pair<uint64_t, uint64_t>> window;  // monotonicNs around each tick read
    const size_t ns = strings.size();
    for (size_t i = 0; i < n; ++i) {
        Rec r;
        r.kind = static_cast<RecordKind>(1 + i % 3);
        r.s0 = strings[i % ns];
        r.s1 = strings[(i / ns) % ns];
        r.s2 = strings[(i * 7 + 3) % ns];
        if (i == n / 3) r.s0 = big;  // oversize records, in each string position
        if (i == n / 2) r.s1 = big;
        if (i == 2 * n / 3) {
            r.s0 = big;
            r.s2 = big;
        }
        const uint64_t lo = monotonicNs();
        const uint64_t ticks = rec.now();
        const uint64_t hi = monotonicNs();
        ASSERT_TRUE(rec.append(log, r.kind, ticks, r.s0, r.s1, r.s2)) << i;
        expected.push_back(std::move(r));
        window.emplace_back(lo, hi);
    }

    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    EXPECT_FALSE(rec.degraded());
    ASSERT_EQ(c.groups.size(), 1u);
    EXPECT_EQ(c.groups[0].tid, gettidNow());
    ASSERT_EQ(c.recs.size(), n);
    uint64_t prevTime = 0;
    for (size_t i = 0; i < n; ++i) {
        const Rec& got = c.recs[i];
        const Rec& want = expected[i];
        ASSERT_EQ(got.kind, want.kind) << i;
        ASSERT_TRUE(got.s0 == want.s0)
            << i << ": s0 of size " << got.s0.size() << " vs " << want.s0.size();
        ASSERT_TRUE(got.s1 == want.s1) << i;
        ASSERT_TRUE(got.s2 == want.s2) << i;
        ASSERT_GE(got.time, prevTime) << "time went backwards at " << i;
        prevTime = got.time;
        ASSERT_GE(got.time + kTimeToleranceNs, window[i].first)
            << i << ": " << (window[i].first - got.time) << " ns early";
        ASSERT_LE(got.time, window[i].second + kTimeToleranceNs)
            << i << ": " << (got.time - window[i].second) << " ns late";
    }
    // Timeout mode streamed them into this thread's fragment; cached mode wrote no file.
    EXPECT_EQ(fragFilesIn(dir.path()).size(), GetParam() == FlushMode::Timeout ? 1u : 0u);
    rec.removeFragments();
    EXPECT_TRUE(fragFilesIn(dir.path()).empty());
}

// Agent records (kind ApiCall) carry an end time as the first 8 payload bytes: the writer
// converts it like the header's time; other kinds' payloads are left alone.
TEST_P(RecorderModeTest, ApiCallEndTimeIsConverted) {
    TempDir dir;
    Recorder rec(options(GetParam(), dir.path()));
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    const uint64_t lo = monotonicNs();
    const uint64_t start = rec.now();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    const uint64_t end = rec.now();
    const uint64_t hi = monotonicNs();
    std::string payload(16, '\0');
    std::memcpy(payload.data(), &end, 8);
    std::memcpy(payload.data() + 8, &end, 8);  // a copy of the raw ticks, left as is
    ASSERT_TRUE(rec.append(log, RecordKind::ApiCall, start, payload));
    ASSERT_TRUE(rec.append(log, RecordKind::DeviceTimes, start, payload));
    // Payloads of three words and more take the writer's in-line path (recorder_writer.cpp):
    // the second one differs from the first in its end time alone.
    std::string longer = payload + std::string(24, '\x5a');
    ASSERT_TRUE(rec.append(log, RecordKind::ApiCall, start, longer));
    const uint64_t later = end + (end - start);
    std::memcpy(longer.data(), &later, 8);
    ASSERT_TRUE(rec.append(log, RecordKind::ApiCall, end, longer));
    const uint64_t hiLater = hi + (hi - lo) + kTimeToleranceNs;
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    ASSERT_EQ(c.recs.size(), 4u);
    for (size_t i : {0, 2, 3}) {
        uint64_t convertedEnd = 0, rawCopy = 0;
        std::memcpy(&convertedEnd, c.recs[i].s0.data(), 8);
        std::memcpy(&rawCopy, c.recs[i].s0.data() + 8, 8);
        EXPECT_EQ(rawCopy, end) << i;
        EXPECT_GE(convertedEnd, c.recs[i].time + 1000000)
            << i << ": end less than 1 ms after start";
        EXPECT_GE(c.recs[i].time + kTimeToleranceNs, lo) << i;
        EXPECT_LE(convertedEnd, (i == 3 ? hiLater : hi) + kTimeToleranceNs) << i;
        EXPECT_EQ(c.recs[i].s0.substr(16), std::string(c.recs[i].s0.size() - 16, '\x5a')) << i;
    }
    EXPECT_EQ(c.recs[1].kind, RecordKind::DeviceTimes);
    EXPECT_EQ(c.recs[1].s0, payload) << "a DeviceTimes payload is not converted";
    uint64_t end2 = 0, end3 = 0;
    std::memcpy(&end2, c.recs[2].s0.data(), 8);
    std::memcpy(&end3, c.recs[3].s0.data(), 8);
    EXPECT_GE(end3, end2 + 1000000) << "the second end time is 2 ms after the first";
}

// The writer packs a run of API calls that differ in their end time alone in one loop
// (RecordWriter::packApiRun). Runs broken every way it stops for (an equal end time, a word
// changed in the middle or last, another size, 2 and 64 words, another kind, a marker record,
// a string after the payload) and an end before the start, across chunks of 4 KB, come back as
// written: the payload but for the end time, the end time converted, the starts in order.
TEST_P(RecorderModeTest, RunsOfApiCallsComeBackAsWritten) {
    TempDir dir;
    Recorder rec(options(GetParam(), dir.path(), 4096));
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    std::string base(80, '\0');
    for (size_t b = 8; b < base.size(); ++b) base[b] = static_cast<char>('a' + b % 26);
    struct Wanted {
        RecordKind kind;
        std::string payload;  // word 0 (the end ticks) aside
        std::string tail;     // str1
        bool sameEnd;         // the start and end ticks of the ApiCall before
        bool endFirst;        // end ticks before the start: the end comes back as the start
    };
    std::vector<Wanted> wanted;
    const uint64_t lo = monotonicNs();
    uint64_t lastStart = 0, lastEnd = 0;
    for (size_t i = 0; i < 3000; ++i) {
        Wanted w{RecordKind::ApiCall, base, {}, false, false};
        const size_t k = i % 50;
        if (k == 7) w.sameEnd = lastEnd != 0;
        if (k == 13) w.payload[40] ^= 1;          // a middle word
        if (k == 21) w.payload.back() ^= 0x40;    // the last word
        if (k == 25) w.payload.resize(88, 'z');   // another size
        if (k == 29) w.payload.resize(16);        // two words: never in line
        if (k == 31) w.payload.resize(512, 'q');  // 64 words: never in line
        if (k == 37) w.kind = RecordKind::DeviceTimes;
        if (k == 41) w.tail = "a string after the payload";
        if (k == 43) w = Wanted{RecordKind::MarkerBegin, "a marker", {}, false, false};
        if (k == 47) w.endFirst = true;
        // The call before once more (its start and end), else calls at least 100 ns apart, so
        // that no two end times convert to the same value.
        const uint64_t start = w.sameEnd ? lastStart : rec.now();
        for (const uint64_t t = monotonicNs(); monotonicNs() < t + 100;) {
        }
        const uint64_t end = w.sameEnd ? lastEnd : w.endFirst ? start - 1000 : rec.now();
        std::string payload = w.payload;
        if (w.kind == RecordKind::ApiCall) {
            std::memcpy(payload.data(), &end, 8);
            lastStart = start;
            lastEnd = end;
        }
        ASSERT_TRUE(rec.append(log, w.kind, start, payload, w.tail)) << i;
        wanted.push_back(std::move(w));
    }
    const uint64_t hi = monotonicNs();
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    ASSERT_EQ(c.recs.size(), wanted.size());
    uint64_t previousEnd = 0;
    for (size_t i = 0; i < wanted.size(); ++i) {
        const Rec& got = c.recs[i];
        const Wanted& w = wanted[i];
        ASSERT_EQ(got.kind, w.kind) << i;
        EXPECT_EQ(got.s1, w.tail) << i;
        ASSERT_GE(got.time + kTimeToleranceNs, lo) << i;
        ASSERT_LE(got.time, hi + kTimeToleranceNs) << i;
        if (i > 0) {
            ASSERT_GE(got.time, c.recs[i - 1].time) << i << ": a start before the last";
        }
        if (w.kind != RecordKind::ApiCall) {
            EXPECT_EQ(got.s0, w.payload) << i;
            continue;
        }
        ASSERT_EQ(got.s0.size(), w.payload.size()) << i;
        EXPECT_EQ(got.s0.substr(8), w.payload.substr(8)) << i;
        uint64_t end = 0;
        std::memcpy(&end, got.s0.data(), 8);
        EXPECT_GE(end, got.time) << i;
        EXPECT_LE(end, hi + kTimeToleranceNs) << i;
        if (w.endFirst) {
            EXPECT_EQ(end, got.time) << i << ": an end before the start";
        }
        if (w.sameEnd) {
            EXPECT_EQ(end, previousEnd) << i << ": the end time of the call before";
        } else {
            EXPECT_GT(end, previousEnd) << i;
        }
        previousEnd = end;
    }
}

// reserve()/commitReserved() write a payload in place: the same record as append() would
// make, across chunk rotations and for payloads larger than a chunk.
TEST_P(RecorderModeTest, ReservedPayloadsRoundTrip) {
    TempDir dir;
    Recorder rec(options(GetParam(), dir.path(), 4096));
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    std::vector<std::string> payloads;
    for (size_t i = 0; i < 300; ++i) {
        const size_t words = i == 150 ? 1024 : 1 + i % 40;  // one payload of 8 KB
        std::string p(words * 8, '\0');
        for (size_t b = 0; b < p.size(); ++b) p[b] = static_cast<char>('a' + (i + b) % 26);
        unsigned char* out = rec.reserve(log, RecordKind::ApiCall, rec.now(), p.size());
        ASSERT_NE(out, nullptr) << i;
        std::memcpy(out, p.data(), p.size());
        rec.commitReserved(log, p.size());
        payloads.push_back(std::move(p));
    }
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    ASSERT_EQ(c.recs.size(), payloads.size());
    for (size_t i = 0; i < payloads.size(); ++i) {
        EXPECT_EQ(c.recs[i].kind, RecordKind::ApiCall);
        // The first word is the end time, converted by the writer; the rest is untouched.
        ASSERT_EQ(c.recs[i].s0.size(), payloads[i].size()) << i;
        EXPECT_EQ(c.recs[i].s0.substr(8), payloads[i].substr(8)) << i;
        EXPECT_TRUE(c.recs[i].s1.empty() && c.recs[i].s2.empty());
    }
}

TEST_P(RecorderModeTest, EmptyRecorderDeliversNothing) {
    TempDir dir;
    Recorder rec(options(GetParam(), dir.path()));
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    EXPECT_TRUE(c.groups.empty());
    EXPECT_TRUE(c.recs.empty());
}

TEST_P(RecorderModeTest, AppendAfterStopFails) {
    TempDir dir;
    Recorder rec(options(GetParam(), dir.path(), 4096));
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    ASSERT_TRUE(rec.append(log, RecordKind::MarkerBegin, rec.now(), "before"));
    std::string error;
    ASSERT_TRUE(rec.stop(error)) << error;
    // The current chunk may still take a few records, but not a chunk's worth.
    bool failed = false;
    for (int i = 0; i < 1000 && !failed; ++i) {
        failed = !rec.append(log, RecordKind::MarkerBegin, rec.now(), "after stop, padding...");
    }
    EXPECT_TRUE(failed);
    Collector c;
    ASSERT_TRUE(rec.collect(c, error)) << error;
    c.expectWellFramed();
    ASSERT_FALSE(c.recs.empty());
    EXPECT_EQ(c.recs[0].s0, "before");
    for (size_t i = 1; i < c.recs.size(); ++i) {
        EXPECT_EQ(c.recs[i].s0, "after stop, padding...");
    }
}

}  // namespace
}  // namespace perfmarker::record
