// The per-thread recorder: the fragment file written and removed, its blocks read back by
// thread, and the listing of fragments. Helpers are in record_recorder_support.h.
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "record_recorder_support.h"

namespace perfmarker::record {
namespace {

using namespace recorder_test;

// ---- fragments --------------------------------------------------------------------------------

size_t countFragmentRecords(const std::string& path, std::vector<std::string>* s0 = nullptr,
                            bool* truncated = nullptr) {
    size_t count = 0;
    std::string error;
    bool ok = readFragment(
        path,
        [&](const RecordView& r) {
            ++count;
            if (s0 != nullptr) s0->emplace_back(r.str0);
        },
        error, truncated);
    EXPECT_TRUE(ok) << error;
    return count;
}

TEST(record_Fragments, WrittenOnFlushNowAndRemoved) {
    TempDir dir;
    RecorderOptions o = options(FlushMode::Timeout, dir.path());
    o.intervalMs = 3600000;  // only flushNow() flushes
    Recorder rec(o);
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    for (int i = 0; i < 100; ++i) {
        ASSERT_TRUE(rec.append(log, RecordKind::MarkerBegin, rec.now(), "r" + std::to_string(i),
                               "second", ""));
    }
    rec.flushNow();

    const uint64_t tid = gettidNow();
    auto frags = listFragments(dir.path(), pidNow(), kTag);
    ASSERT_EQ(frags.size(), 1u);
    EXPECT_EQ(frags[0].pid, pidNow());
    EXPECT_EQ(frags[0].path, dir.path() + "/" + fragmentFileName(pidNow(), frags[0].index, kTag));
    EXPECT_EQ(fragFilesIn(dir.path()),
              std::vector<std::string>{std::to_string(pidNow()) + "_" +
                                       std::to_string(frags[0].index) + "." + kTag + ".frag"});
    std::vector<FragmentStream> streams;
    std::string error;
    ASSERT_TRUE(scanFragment(frags[0].path, streams, error)) << error;
    ASSERT_EQ(streams.size(), 1u);
    EXPECT_EQ(streams[0].tid, tid);
    EXPECT_EQ(streams[0].serial, 0u);

    std::vector<std::string> names;
    bool truncated = true;
    EXPECT_EQ(countFragmentRecords(frags[0].path, &names, &truncated), 100u);
    EXPECT_FALSE(truncated);
    ASSERT_EQ(names.size(), 100u);
    for (int i = 0; i < 100; ++i) {
        EXPECT_EQ(names[i], "r" + std::to_string(i));
    }

    // Appending more and flushing again extends the same fragment.
    for (int i = 100; i < 150; ++i) {
        ASSERT_TRUE(rec.append(log, RecordKind::MarkerEnd, rec.now(), "r" + std::to_string(i)));
    }
    rec.flushNow();
    EXPECT_EQ(listFragments(dir.path(), pidNow(), kTag).size(), 1u);
    EXPECT_EQ(countFragmentRecords(frags[0].path), 150u);
    // Another recorder tag or process id sees nothing.
    EXPECT_TRUE(listFragments(dir.path(), pidNow(), "othertag").empty());
    EXPECT_TRUE(listFragments(dir.path(), pidNow() + 1, kTag).empty());

    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    ASSERT_EQ(c.recs.size(), 150u);
    for (int i = 0; i < 150; ++i) {
        EXPECT_EQ(c.recs[i].s0, "r" + std::to_string(i));
    }

    rec.removeFragments();
    EXPECT_TRUE(listFragments(dir.path(), pidNow(), kTag).empty());
    EXPECT_TRUE(fragFilesIn(dir.path()).empty());
}

TEST(record_Fragments, WrittenAfterInterval) {
    TempDir dir;
    RecorderOptions o = options(FlushMode::Timeout, dir.path());
    o.intervalMs = 20;
    Recorder rec(o);
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    for (int i = 0; i < 10; ++i) {
        ASSERT_TRUE(rec.append(log, RecordKind::MarkerBegin, rec.now(), "tick"));
    }
    // No flushNow(): the writer's interval timer must flush them.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(3);
    size_t count = 0;
    while (std::chrono::steady_clock::now() < deadline) {
        auto frags = listFragments(dir.path(), pidNow(), kTag);
        if (frags.size() == 1) {
            std::string error;
            count = 0;
            readFragment(
                frags[0].path, [&](const RecordView&) { ++count; }, error);
            if (count == 10) break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    EXPECT_EQ(count, 10u);
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    EXPECT_EQ(c.recs.size(), 10u);
    rec.removeFragments();
    EXPECT_TRUE(fragFilesIn(dir.path()).empty());
}

TEST(record_Fragments, CachedModeWritesNoFragment) {
    TempDir dir;
    RecorderOptions o = options(FlushMode::Cached, dir.path(), 4096);
    o.intervalMs = 5;
    Recorder rec(o);
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    for (int i = 0; i < 2000; ++i) {  // many chunks
        ASSERT_TRUE(rec.append(log, RecordKind::MarkerBegin, rec.now(), "cached record", "s1"));
    }
    rec.flushNow();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));  // a few intervals
    EXPECT_TRUE(fragFilesIn(dir.path()).empty());
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    EXPECT_EQ(c.recs.size(), 2000u);
    EXPECT_TRUE(fragFilesIn(dir.path()).empty());
    EXPECT_TRUE(fs::is_empty(dir.path()));
}

// ---- fragment read-back ---------------------------------------------------------------------

// Records `n` records into a fragment and returns its path.
std::string makeFragment(const std::string& dir, size_t n) {
    RecorderOptions o = options(FlushMode::Timeout, dir);
    o.intervalMs = 3600000;
    Recorder rec(o);
    ThreadLog* log = rec.threadLog();
    EXPECT_NE(log, nullptr);
    if (log == nullptr) return {};
    for (size_t i = 0; i < n; ++i) {
        // Lengths chosen so the last record has no padding (3 + 5 = 8 bytes of strings).
        EXPECT_TRUE(rec.append(log, RecordKind::MarkerEndEx, rec.now(),
                               "r" + std::to_string(i % 10) + "x", "abcde"));
    }
    std::string error;
    EXPECT_TRUE(rec.stop(error)) << error;
    auto frags = listFragments(dir, pidNow(), kTag);
    EXPECT_EQ(frags.size(), 1u);
    return frags.empty() ? std::string() : frags[0].path;
}

TEST(record_ReadFragment, WholeFragment) {
    TempDir dir;
    const std::string path = makeFragment(dir.path(), 10);
    ASSERT_FALSE(path.empty());
    // One block: stop() flushes the chunk once. Packed: ten names, the group once and nine
    // references to it, a tag and a time each; far less than the chunk's 10 x 32 bytes.
    const auto size = fs::file_size(path);
    EXPECT_GT(size, sizeof(FragmentHeader) + sizeof(BlockHeader) + 10 * (1 + 1 + 4) + 6);
    EXPECT_LT(size, sizeof(FragmentHeader) + sizeof(BlockHeader) + 10 * recordSize(3, 5, 0) / 2);
    std::vector<std::string> names;
    bool truncated = true;
    EXPECT_EQ(countFragmentRecords(path, &names, &truncated), 10u);
    EXPECT_FALSE(truncated);
    ASSERT_EQ(names.size(), 10u);
    EXPECT_EQ(names[9], "r9x");

    // The header names the process and the recorder, the block the thread.
    FragmentHeader h{};
    BlockHeader b{};
    std::ifstream in(path, std::ios::binary);
    in.read(reinterpret_cast<char*>(&h), sizeof h);
    in.read(reinterpret_cast<char*>(&b), sizeof b);
    EXPECT_EQ(std::memcmp(h.magic, kFragmentMagic, sizeof h.magic), 0);
    EXPECT_EQ(h.pid, pidNow());
    EXPECT_EQ(h.index, listFragments(dir.path(), pidNow(), kTag).at(0).index);
    EXPECT_EQ(b.tid, gettidNow());
    EXPECT_EQ(b.serial, 0u);
    EXPECT_EQ(b.bytes, size - sizeof h - sizeof b);
    EXPECT_EQ(b.records, 10u);
}

TEST(record_ReadFragment, TruncatedMidRecord) {
    TempDir dir;
    const std::string path = makeFragment(dir.path(), 10);
    ASSERT_FALSE(path.empty());
    const auto size = fs::file_size(path);
    // The last record is a tag, a time, "r9x" (4 bytes) and a reference to "abcde": cutting
    // 1-4 bytes cuts it and only it.
    for (uintmax_t cut : {uintmax_t{1}, uintmax_t{2}, uintmax_t{3}, uintmax_t{4}}) {
        const std::string copy = dir.path() + "/cut" + std::to_string(cut);
        fs::copy_file(path, copy);
        fs::resize_file(copy, size - cut);
        std::vector<std::string> names;
        bool truncated = false;
        EXPECT_EQ(countFragmentRecords(copy, &names, &truncated), 9u) << "cut " << cut;
        EXPECT_TRUE(truncated) << "cut " << cut;
        ASSERT_EQ(names.size(), 9u);
        EXPECT_EQ(names[8], "r8x");
    }
    // Cut into the first record's time, into the block header, and to the file header.
    for (size_t at :
         {sizeof(FragmentHeader) + sizeof(BlockHeader) + 2, sizeof(FragmentHeader) + 10}) {
        fs::resize_file(path, at);
        bool truncated = false;
        EXPECT_EQ(countFragmentRecords(path, nullptr, &truncated), 0u) << at;
        EXPECT_TRUE(truncated) << at;
    }
    fs::resize_file(path, sizeof(FragmentHeader));
    bool truncated = false;
    truncated = true;
    EXPECT_EQ(countFragmentRecords(path, nullptr, &truncated), 0u);
    EXPECT_FALSE(truncated);
}

// A visit that returns false stops the reading there: no more records, and no truncation.
TEST(record_ReadFragment, AVisitThatReturnsFalseStopsTheReading) {
    TempDir dir;
    const std::string path = makeFragment(dir.path(), 10);
    ASSERT_FALSE(path.empty());
    std::vector<FragmentStream> streams;
    std::string error;
    ASSERT_TRUE(scanFragment(path, streams, error)) << error;
    ASSERT_EQ(streams.size(), 1u);
    for (size_t wanted : {size_t{1}, size_t{4}, size_t{10}}) {
        std::vector<std::string> names;
        bool truncated = true;
        const auto visit = [&](const RecordView& r) {
            names.emplace_back(r.str0);
            return names.size() < wanted;
        };
        ASSERT_TRUE(readStream(streams[0], visit, error, &truncated)) << error;
        EXPECT_FALSE(truncated) << wanted;
        ASSERT_EQ(names.size(), wanted);
        EXPECT_EQ(names.back(), "r" + std::to_string(wanted - 1) + "x");
    }
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(record_ReadFragment, CorruptRecordStopsReading) {
    TempDir dir;
    const std::string path = makeFragment(dir.path(), 10);
    ASSERT_FALSE(path.empty());
    // Record 5's name "r5x" (a literal: its length 3 written as 6) becomes a reference to a
    // string the block does not have.
    {
        std::string bytes = readFile(path);
        const size_t at = bytes.find("\x06r5x");
        ASSERT_NE(at, std::string::npos);
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(static_cast<std::streamoff>(at));
        f.put('\x7f');
    }
    bool truncated = false;
    EXPECT_EQ(countFragmentRecords(path, nullptr, &truncated), 5u);
    EXPECT_TRUE(truncated);
}

// A block whose header counts more records than its bytes hold is damaged: its records are
// read, and the thread's stream ends there, reported as truncated.
TEST(record_ReadFragment, BlockCountingMoreRecordsThanItHoldsEndsTheStream) {
    TempDir dir;
    const std::string path = makeFragment(dir.path(), 10);
    ASSERT_FALSE(path.empty());
    BlockHeader b{};
    {
        std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
        f.seekg(static_cast<std::streamoff>(sizeof(FragmentHeader)));
        f.read(reinterpret_cast<char*>(&b), sizeof b);
        ASSERT_EQ(b.records, 10u);
        b.records = 11;
        f.seekp(static_cast<std::streamoff>(sizeof(FragmentHeader)));
        f.write(reinterpret_cast<const char*>(&b), sizeof b);
    }
    bool truncated = false;
    EXPECT_EQ(countFragmentRecords(path, nullptr, &truncated), 10u);
    EXPECT_TRUE(truncated);
}

void writeFile(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

void expectNotAFragment(const std::string& path) {
    std::string error;
    size_t visited = 0;
    bool truncated = true;
    EXPECT_FALSE(readFragment(
        path, [&](const RecordView&) { ++visited; }, error, &truncated))
        << path;
    EXPECT_EQ(visited, 0u);
    EXPECT_NE(error.find(path), std::string::npos) << error;
}

TEST(record_ReadFragment, BadMagicShortOrMissing) {
    TempDir dir;
    const std::string bad = dir.path() + "/1_2.t.frag";
    writeFile(bad, std::string(200, 'X'));
    expectNotAFragment(bad);

    // A real fragment with one byte of its magic changed.
    const std::string real = makeFragment(dir.path(), 3);
    ASSERT_FALSE(real.empty());
    {
        std::fstream f(real, std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(7);
        f.put('9');
    }
    expectNotAFragment(real);

    const std::string shortFile = dir.path() + "/short.frag";
    writeFile(shortFile, std::string(kFragmentMagic, sizeof kFragmentMagic) + "0123456789");
    expectNotAFragment(shortFile);

    const std::string empty = dir.path() + "/empty.frag";
    writeFile(empty, "");
    expectNotAFragment(empty);

    expectNotAFragment(dir.path() + "/missing.frag");
}

// Fragments of the versions before (PMFRAG06: no payload against an older kept one; PMFRAG05:
// nor a first payload word as a difference from the time; PMFRAG04: nor repeated Begins or
// marker words; PMFRAG03: nor payloads as changed words) read as they did; their records are a
// subset of today's.
TEST(record_ReadFragment, TheVersionsBeforeStillRead) {
    for (const char* magic :
         {kFragmentMagicV6, kFragmentMagicV5, kFragmentMagicV4, kFragmentMagicV3}) {
        SCOPED_TRACE(std::string(magic, sizeof kFragmentMagic));
        TempDir dir;
        const std::string path = makeFragment(dir.path(), 10);
        ASSERT_FALSE(path.empty());
        {
            std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
            f.write(magic, sizeof kFragmentMagic);
        }
        std::vector<std::string> names;
        bool truncated = true;
        EXPECT_EQ(countFragmentRecords(path, &names, &truncated), 10u);
        EXPECT_FALSE(truncated);
        ASSERT_EQ(names.size(), 10u);
        EXPECT_EQ(names[3], "r3x");
    }
}

// Threads share the file: each flush writes one block per thread with records, and a thread's
// blocks read back in order, separately from the other thread's.
TEST(record_Fragments, ThreadsShareOneFileInBlocks) {
    TempDir dir;
    RecorderOptions o = options(FlushMode::Timeout, dir.path());
    o.intervalMs = 3600000;  // only flushNow() flushes
    Recorder rec(o);
    uint64_t otherTid = 0;
    for (int round = 0; round < 3; ++round) {
        ThreadLog* log = rec.threadLog();
        ASSERT_NE(log, nullptr);
        ASSERT_TRUE(
            rec.append(log, RecordKind::MarkerBegin, rec.now(), "main" + std::to_string(round)));
        std::thread([&] {
            ThreadLog* other = rec.threadLog();
            ASSERT_NE(other, nullptr);
            otherTid = gettidNow();
            for (int i = 0; i < 2; ++i) {
                ASSERT_TRUE(rec.append(other, RecordKind::MarkerBegin, rec.now(),
                                       "t" + std::to_string(round) + std::to_string(i)));
            }
        }).join();
        rec.flushNow();
    }
    auto frags = listFragments(dir.path(), pidNow(), kTag);
    ASSERT_EQ(frags.size(), 1u);
    EXPECT_EQ(countFragmentRecords(frags[0].path), 9u);
    FragmentReader file;
    std::string error;
    ASSERT_TRUE(file.open(frags[0].path, error)) << error;
    bool cut = true;
    auto streams = file.streams(&cut);
    EXPECT_FALSE(cut);
    // The main thread (serial 0) and three threads that came and went (serials 1-3; the kernel
    // may give them the same tid).
    ASSERT_EQ(streams.size(), 4u);
    std::vector<std::string> mainNames;
    std::vector<std::string> otherNames;
    for (const FragmentStream& s : streams) {
        const bool isMain = s.tid == gettidNow() && s.serial == 0;
        if (!isMain) {
            EXPECT_EQ(s.extents.size(), 1u);
        }
        file.read(s, [&](const RecordView& r) {
            (isMain ? mainNames : otherNames).emplace_back(r.str0);
        });
    }
    EXPECT_EQ(mainNames, (std::vector<std::string>{"main0", "main1", "main2"}));
    std::sort(otherNames.begin(), otherNames.end());
    EXPECT_EQ(otherNames, (std::vector<std::string>{"t00", "t01", "t10", "t11", "t20", "t21"}));
    (void)otherTid;
    Collector c;
    ASSERT_TRUE(stopAndCollect(rec, c));
    EXPECT_EQ(c.recs.size(), 9u);
    rec.removeFragments();
    EXPECT_TRUE(fragFilesIn(dir.path()).empty());
}

// A fragment file damaged behind the recorder's back (here cut short) fails collect() with the
// path and the thread, instead of delivering fewer records than the thread announced.
TEST(record_Fragments, DamagedFileFailsCollect) {
    TempDir dir;
    RecorderOptions o = options(FlushMode::Timeout, dir.path());
    o.intervalMs = 3600000;
    Recorder rec(o);
    ThreadLog* log = rec.threadLog();
    ASSERT_NE(log, nullptr);
    for (int i = 0; i < 10; ++i) {
        ASSERT_TRUE(rec.append(log, RecordKind::MarkerBegin, rec.now(), "r" + std::to_string(i)));
    }
    std::string error;
    ASSERT_TRUE(rec.stop(error)) << error;
    const auto frags = listFragments(dir.path(), pidNow(), kTag);
    ASSERT_EQ(frags.size(), 1u);
    fs::resize_file(frags[0].path, fs::file_size(frags[0].path) - 40);
    Collector c;
    EXPECT_FALSE(rec.collect(c, error));
    EXPECT_NE(error.find(frags[0].path), std::string::npos) << error;
    EXPECT_NE(error.find("thread " + std::to_string(gettidNow())), std::string::npos) << error;
    EXPECT_LT(c.recs.size(), 10u);
    rec.removeFragments();
}

TEST(record_ListFragments, MatchesPidAndTagSortedByIndex) {
    TempDir dir;
    const std::string d = dir.path();
    for (const char* name :
         {"123_5.tag.frag", "123_4.tag.frag", "123_10.tag.frag",
          // foreign: another pid, another tag, malformed, other suffixes
          "124_1.tag.frag", "12_1.tag.frag", "1234_1.tag.frag", "123_1.other.frag",
          "123_1.tagx.frag", "123_1.xtag.frag", "123_1.tag.frag.bak", "123_1.tag", "123_x.tag.frag",
          "123.tag.frag", "123_.tag.frag", "123_1_0.tag.frag", "_123_1.tag.frag", "123_-1.tag.frag",
          ".tag.frag", "readme.txt"}) {
        writeFile(d + "/" + name, "x");
    }
    auto frags = listFragments(d, 123, "tag");
    std::vector<std::pair<uint64_t, std::string>> got;
    for (const auto& f : frags) {
        EXPECT_EQ(f.pid, 123u);
        got.emplace_back(f.index, f.path);
    }
    const std::vector<std::pair<uint64_t, std::string>> want = {
        {4, d + "/123_4.tag.frag"}, {5, d + "/123_5.tag.frag"}, {10, d + "/123_10.tag.frag"}};
    EXPECT_EQ(got, want);

    EXPECT_EQ(listFragments(d, 124, "tag").size(), 1u);
    EXPECT_EQ(listFragments(d, 123, "other").size(), 1u);
    EXPECT_TRUE(listFragments(d, 999, "tag").empty());
    EXPECT_TRUE(listFragments(d + "/nonexistent", 123, "tag").empty());
}

TEST(record_ListFragments, FileNameFormat) {
    EXPECT_EQ(fragmentFileName(12, 34, "clperfmarker"), "12_34.clperfmarker.frag");
    EXPECT_EQ(fragmentFileName(0, 0, "t"), "0_0.t.frag");
}

}  // namespace
}  // namespace perfmarker::record
