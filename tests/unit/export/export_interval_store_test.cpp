// Intervals with payloads in bounded memory (src/export/interval_store.h, docs/export.md#memory):
// spilled in sorted runs and merged back, a location reads the same intervals and payloads in
// the same order as a stable sort of all of them; the temporary file is never named in the
// directory; a file that cannot be made or written is reported, and the store then keeps
// nothing more.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "export/interval_store.h"
#include "export_test_support.h"
#include "file_size_limit.h"

namespace perfmarker::exporter::test {
namespace {

using perfmarker::test::ExportScratch;
using perfmarker::test::filesIn;
using perfmarker::test::FileSizeLimit;

struct Item {
    Interval interval;
    std::string payload;
};

// The payload goes in two pieces, as an exporter gives it field by field.
void add(IntervalStore& store, uint32_t location, const Item& item) {
    const size_t half = item.payload.size() / 2;
    store.payload(item.payload.data(), half);
    store.payload(item.payload.data() + half, item.payload.size() - half);
    store.add(location, item.interval);
}

std::vector<Item> readAll(IntervalStore& store, uint32_t location) {
    std::vector<Item> items;
    IntervalStore::Reader reader = store.read(location);
    while (const Interval* interval = reader.next()) {
        const auto* payload = reinterpret_cast<const char*>(reader.payload());
        items.push_back({*interval, std::string(payload, interval->payloadBytes)});
    }
    return items;
}

// Many equal starts, ends and ranks, so that the order of ties is tested; the payload starts
// with the item's number, so that each item is told apart, and is up to 300 bytes long (one in
// eight is empty).
std::vector<std::vector<Item>> randomItems(size_t locations, size_t perLocation, unsigned seed) {
    std::mt19937_64 random(seed);
    std::vector<std::vector<Item>> items(locations);
    uint64_t serial = 0;
    for (size_t n = 0; n < perLocation * locations; ++n) {
        Item item;
        item.interval.start = random() % 50;
        item.interval.end = item.interval.start + random() % 5;
        item.interval.region = static_cast<uint32_t>(random() % 7);
        item.interval.rank = static_cast<uint32_t>(random() % 3);
        if (random() % 8 != 0) {
            item.payload = std::to_string(serial) + ":";
            item.payload.append(random() % 300, static_cast<char>('a' + random() % 26));
        }
        ++serial;
        items[random() % locations].push_back(item);
    }
    return items;
}

void expectSameItems(const std::vector<Item>& actual, const std::vector<Item>& expected) {
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
        SCOPED_TRACE(i);
        EXPECT_EQ(actual[i].interval.start, expected[i].interval.start);
        EXPECT_EQ(actual[i].interval.end, expected[i].interval.end);
        EXPECT_EQ(actual[i].interval.region, expected[i].interval.region);
        EXPECT_EQ(actual[i].interval.rank, expected[i].interval.rank);
        EXPECT_EQ(actual[i].interval.payloadBytes, expected[i].payload.size());
        EXPECT_EQ(actual[i].payload, expected[i].payload);
    }
}

TEST(IntervalStore, SpilledRunsReadBackAsOneStableSort) {
    ExportScratch scratch;
    const std::vector<std::vector<Item>> items = randomItems(5, 2000, 7);
    // 600 bytes: a run every few intervals, hundreds of runs per location.
    for (const size_t budget : {size_t{600}, size_t{64} << 10, size_t{1} << 30}) {
        SCOPED_TRACE(budget);
        IntervalStore store(scratch.path(), budget);
        // Interleaved over the locations, as a trace gives them.
        std::vector<size_t> next(items.size(), 0);
        for (size_t added = 0, total = 5 * 2000; added < total;) {
            for (size_t location = 0; location < items.size(); ++location) {
                if (next[location] == items[location].size()) continue;
                add(store, static_cast<uint32_t>(location), items[location][next[location]++]);
                ++added;
            }
        }
        EXPECT_EQ(store.spills() > 0, budget < (size_t{1} << 20)) << store.spills();
        for (size_t location = 0; location < items.size(); ++location) {
            SCOPED_TRACE(location);
            std::vector<Item> expected = items[location];
            std::stable_sort(expected.begin(), expected.end(), [](const Item& a, const Item& b) {
                return nestsBefore(a.interval, b.interval);
            });
            expectSameItems(readAll(store, static_cast<uint32_t>(location)), expected);
        }
        EXPECT_TRUE(readAll(store, 99).empty());  // a location never added to
        EXPECT_FALSE(store.failed()) << store.error();
        // The temporary file has no name in the directory.
        EXPECT_TRUE(filesIn(scratch.path()).empty());
    }
}

TEST(IntervalStore, ClearForgetsEverythingAndTheStoreIsUsedAgain) {
    ExportScratch scratch;
    IntervalStore store(scratch.path(), 200);
    const std::vector<std::vector<Item>> first = randomItems(2, 300, 1);
    for (size_t location = 0; location < 2; ++location) {
        for (const Item& item : first[location]) add(store, static_cast<uint32_t>(location), item);
    }
    const uint64_t spills = store.spills();
    EXPECT_GT(spills, 0u);
    store.clear();
    EXPECT_TRUE(readAll(store, 0).empty());
    EXPECT_TRUE(readAll(store, 1).empty());

    std::vector<Item> second = randomItems(1, 100, 2)[0];
    for (const Item& item : second) add(store, 1, item);
    EXPECT_GT(store.spills(), spills);
    std::stable_sort(second.begin(), second.end(), [](const Item& a, const Item& b) {
        return nestsBefore(a.interval, b.interval);
    });
    expectSameItems(readAll(store, 1), second);
    EXPECT_TRUE(readAll(store, 0).empty());
    EXPECT_FALSE(store.failed()) << store.error();
}

TEST(IntervalStore, ADirectoryThatCannotHoldTheFileIsReported) {
    ExportScratch scratch;
    const std::string missing = scratch.file("gone");
    IntervalStore store(missing, 0);  // every add spills
    Item item;
    item.payload = "42";
    add(store, 0, item);
    ASSERT_TRUE(store.failed());
    EXPECT_EQ(store.error(), "cannot create the temporary file of intervals in " + missing +
                                 ": No such file or directory");
    // Nothing more is kept, and reading gives nothing rather than part of the intervals.
    add(store, 0, item);
    EXPECT_TRUE(readAll(store, 0).empty());
}

// A full disk, simulated with a file-size limit (EFBIG: the same path as ENOSPC).
TEST(IntervalStore, AWriteThatFailsIsReported) {
    ExportScratch scratch;
    IntervalStore store(scratch.path(), 1000);
    const std::vector<Item> items = randomItems(1, 2000, 3)[0];
    {
        FileSizeLimit limit(4096);
        ASSERT_TRUE(limit.set());
        for (const Item& item : items) add(store, 0, item);
    }
    ASSERT_TRUE(store.failed());
    EXPECT_EQ(store.error(), "cannot write the temporary file of intervals in " + scratch.path() +
                                 ": File too large");
    EXPECT_TRUE(filesIn(scratch.path()).empty());
}

}  // namespace
}  // namespace perfmarker::exporter::test
