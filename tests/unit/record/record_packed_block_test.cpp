// Packed blocks (src/record/fragments/packed_block.h, docs/format.md#fragments): records come back
// as they went in, repeated strings cost a reference, a payload like the one before costs its
// changed words, and cut or damaged bytes stop the reading at the last whole record.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "packed_block_support.h"
#include "record/fragments/packed_block.h"

namespace perfmarker::record {
namespace {

using namespace packed_test;

TEST(record_PackedBlock, RecordsComeBackAsTheyWentIn) {
    const std::string payload("\x00\x01\x02\xff binary", 11);
    const std::vector<Rec> records = {
        {1'700'000'000'000'000'000ULL, RecordKind::MarkerBegin, "frame", "render", ""},
        {1'700'000'000'000'000'040ULL, RecordKind::MarkerBegin, "draw", "render", "user=1"},
        {1'700'000'000'000'000'090ULL, RecordKind::MarkerEnd, "", "", ""},
        // An agent record earlier than the one before it (times nest): a negative delta.
        {1'699'999'999'999'999'000ULL, RecordKind::ApiCall, payload, "clFinish", ""},
        {1'700'000'000'000'000'100ULL, RecordKind::ApiCall, payload, "clFinish", "clFinish"},
        {0, RecordKind::ObjectInfo, "x", "", "frame"},
        {UINT64_MAX, RecordKind::MarkerEndEx, "frame", "render", ""},
    };
    const auto bytes = pack(records);
    bool damaged = true;
    EXPECT_EQ(unpack(bytes, bytes.size(), &damaged), records);
    EXPECT_FALSE(damaged);
}

TEST(record_PackedBlock, RepeatedStringsAreReferences) {
    std::vector<Rec> pairs;
    for (uint64_t i = 0; i < 1000; ++i) {
        pairs.push_back({1000 + 100 * i, RecordKind::MarkerBegin, "a fairly long marker name",
                         "a group name", ""});
        pairs.push_back({1050 + 100 * i, RecordKind::MarkerEnd, "", "", ""});
    }
    const auto bytes = pack(pairs);
    // A begin after the first is a tag and a 1-2 byte delta (it repeats the one before); an
    // end a tag and a delta.
    EXPECT_LT(bytes.size(), 1000u * 6 + 64);
    bool damaged = true;
    EXPECT_EQ(unpack(bytes, bytes.size(), &damaged), pairs);
    EXPECT_FALSE(damaged);
}

// A Begin with the name and group of the block's previous Begin is its tag and time. A user
// string, another name or group, or the start of a block breaks the repetition.
TEST(record_PackedBlock, ABeginLikeThePreviousOneIsItsTagAndTime) {
    const std::vector<unsigned char> two = pack({{100, RecordKind::MarkerBegin, "a", "g", ""},
                                                 {150, RecordKind::MarkerBegin, "a", "g", ""}});
    // tag (Begin, str0, str1), zigzag(100) = 200 as a varint, "a" and "g" as literals; then
    // kRepeatBegin and zigzag(50).
    const std::vector<unsigned char> expected = {
        0x61, 0xc8, 0x01, 0x02, 'a', 0x02, 'g', packed::kRepeatBegin, 0x64};
    EXPECT_EQ(two, expected);

    const std::vector<Rec> records = {
        {1, RecordKind::MarkerBegin, "a", "g", ""},
        {2, RecordKind::MarkerEnd, "", "", ""},
        {3, RecordKind::MarkerBegin, "a", "g", ""},    // repeats
        {4, RecordKind::MarkerEndEx, "b", "h", ""},    // does not break it
        {5, RecordKind::MarkerBegin, "a", "g", ""},    // repeats
        {6, RecordKind::MarkerBegin, "a", "g", "u"},   // a user string: not a repeat
        {7, RecordKind::MarkerBegin, "a", "g", ""},    // the one before had a user string
        {8, RecordKind::MarkerBegin, "a", "g2", ""},   // another group
        {9, RecordKind::MarkerBegin, "a2", "g2", ""},  // another name
        {10, RecordKind::MarkerBegin, "a2", "g2", ""},
        {11, RecordKind::MarkerBegin, "", "", ""},  // empty name and group
        {12, RecordKind::MarkerBegin, "", "", ""},
        {13, RecordKind::ApiCall, std::string(8, 'p'), "clFinish", ""},
        {14, RecordKind::MarkerBegin, "", "", ""},
    };
    const auto bytes = pack(records);
    bool damaged = true;
    EXPECT_EQ(unpack(bytes, bytes.size(), &damaged), records);
    EXPECT_FALSE(damaged);
    size_t repeats = 0;
    for (unsigned char b : bytes) repeats += b == packed::kRepeatBegin;
    EXPECT_GE(repeats, 5u);  // records 3, 5, 10, 12 and 14 (other bytes may equal the tag)

    // A repetition with no Begin before it in the block, or after a Begin with a user string.
    const std::vector<unsigned char> first = {packed::kRepeatBegin, 0x02};
    damaged = false;
    EXPECT_TRUE(unpack(first, first.size(), &damaged).empty());
    EXPECT_TRUE(damaged);
    auto afterUser = pack({{1, RecordKind::MarkerBegin, "a", "g", "u"}});
    afterUser.insert(afterUser.end(), {packed::kRepeatBegin, 0x02});
    damaged = false;
    EXPECT_EQ(unpack(afterUser, afterUser.size(), &damaged).size(), 1u);
    EXPECT_TRUE(damaged);
    // A repetition with string bits set is no tag.
    auto withBits = two;
    withBits[7] = packed::kRepeatBegin | packed::kStringBit[0];
    damaged = false;
    EXPECT_EQ(unpack(withBits, withBits.size(), &damaged).size(), 1u);
    EXPECT_TRUE(damaged);
}

// More distinct strings than the packer's table holds: the rest are written out each time.
TEST(record_PackedBlock, ManyDistinctStringsStillComeBack) {
    std::vector<Rec> records;
    for (int round = 0; round < 2; ++round) {
        for (int i = 0; i < 3000; ++i) {
            records.push_back({static_cast<uint64_t>(i), RecordKind::MarkerBegin,
                               "name" + std::to_string(i), std::string(i % 7, 'g'), ""});
        }
    }
    records.push_back({1, RecordKind::MarkerBegin, std::string(5000, 'L'), "", ""});
    records.push_back({2, RecordKind::MarkerBegin, std::string(5000, 'L'), "", ""});
    const auto bytes = pack(records);
    EXPECT_EQ(unpack(bytes, bytes.size(), nullptr), records);
}

// A string that repeats its place's last one is a reference even once the packer's table is
// full; equal bytes elsewhere in memory, and a string moving between places, come back right.
TEST(record_PackedBlock, RepeatsAreReferencesAfterTheTableIsFull) {
    std::vector<Rec> records;
    for (int i = 0; i < 600; ++i) {  // more distinct names than the table takes
        records.push_back({static_cast<uint64_t>(i), RecordKind::MarkerBegin,
                           "distinct" + std::to_string(i), "", ""});
    }
    const size_t before = pack(records).size();
    for (int i = 0; i < 100; ++i) {
        // A new copy of the bytes each time: the packer compares bytes, not addresses.
        records.push_back({static_cast<uint64_t>(1000 + i), RecordKind::MarkerBegin,
                           std::string("late name"), std::string("late group"), ""});
    }
    const auto bytes = pack(records);
    // The first writes both strings (a tag, a 2-byte delta, 10 and 11 bytes); the other 99 are a
    // tag, a 1-byte delta and two 2-byte references (string numbers past 600). Written out,
    // they would take 23 bytes each.
    EXPECT_LE(bytes.size() - before, 1u + 2 + 10 + 11 + 99 * 6);
    EXPECT_EQ(unpack(bytes, bytes.size(), nullptr), records);

    const std::vector<Rec> moving = {
        {1, RecordKind::MarkerBegin, "x", "y", ""},  {2, RecordKind::MarkerBegin, "y", "x", ""},
        {3, RecordKind::MarkerEndEx, "y", "y", ""},  {4, RecordKind::ObjectInfo, "x", "y", "y"},
        {5, RecordKind::MarkerBegin, "yy", "y", ""},
    };
    const auto moved = pack(moving);
    EXPECT_EQ(unpack(moved, moved.size(), nullptr), moving);
}

// A visit that returns false ends the block's reading after that record; a void one reads on.
TEST(record_PackedBlock, AVisitThatReturnsFalseStopsTheBlock) {
    std::vector<Rec> records;
    for (uint64_t i = 0; i < 10; ++i) records.push_back({i, RecordKind::MarkerBegin, "n", "g", ""});
    const auto bytes = pack(records);
    BlockUnpacker unpacker;
    uint64_t seen = 0;
    bool damaged = true;
    EXPECT_EQ(
        unpacker.unpack(
            bytes.data(), bytes.size(), [&](const RecordView&) { return ++seen < 3; }, &damaged),
        3u);
    EXPECT_EQ(seen, 3u);
    EXPECT_TRUE(unpacker.stopped());
    EXPECT_FALSE(damaged);
    EXPECT_EQ(unpacker.unpack(bytes.data(), bytes.size(), [&](const RecordView&) { ++seen; }), 10u);
    EXPECT_EQ(seen, 13u);
    EXPECT_FALSE(unpacker.stopped());
}

// A new block forgets the strings of the last one: each block reads on its own.
TEST(record_PackedBlock, EveryBlockStandsAlone) {
    BlockPacker packer;
    RecordView v;
    v.kind = RecordKind::MarkerBegin;
    v.str0 = "same";
    v.time = 5;
    packer.begin();
    packer.add(v);
    packer.add(v);
    const std::vector<unsigned char> first(packer.data(), packer.data() + packer.size());
    packer.begin(3);  // with headroom: the block starts after it
    packer.add(v);
    EXPECT_EQ(packer.records(), 1u);
    const std::vector<unsigned char> second(packer.data() + 3, packer.data() + packer.size());
    const std::vector<Rec> one = {{5, RecordKind::MarkerBegin, "same", "", ""}};
    EXPECT_EQ(unpack(second, second.size(), nullptr), one);
    EXPECT_EQ(unpack(first, first.size(), nullptr).size(), 2u);
}

TEST(record_PackedBlock, CutBytesGiveTheWholeRecordsBeforeThem) {
    const std::vector<Rec> records = {
        {100, RecordKind::MarkerBegin, "outer", "g", ""},
        {200, RecordKind::MarkerBegin, "inner", "g", ""},
        {300, RecordKind::MarkerEnd, "", "", ""},
    };
    const auto bytes = pack(records);
    const auto whole = [&](size_t n) {
        bool damaged = true;
        const auto got = unpack(bytes, n, &damaged);
        EXPECT_FALSE(damaged) << n;
        return got.size();
    };
    EXPECT_EQ(whole(0), 0u);
    EXPECT_EQ(whole(1), 0u);
    // The first record: tag, time 100 (2 bytes), "outer" (6), "g" (2).
    EXPECT_EQ(whole(10), 0u);
    EXPECT_EQ(whole(11), 1u);
    EXPECT_EQ(whole(bytes.size() - 1), 2u);
    EXPECT_EQ(whole(bytes.size()), 3u);
}

TEST(record_PackedBlock, DamagedBytesStopTheReading) {
    const std::vector<Rec> records = {
        {100, RecordKind::MarkerBegin, "outer", "g", ""},
        {200, RecordKind::MarkerBegin, "inner", "g", ""},
    };
    const auto good = pack(records);
    struct Case {
        const char* what;
        size_t at;
        unsigned char value;
        size_t whole;
    };
    // The second record starts at byte 11: its tag, time (2 bytes), "inner" (6), then "g" as
    // a reference (string 1: 0x03) at byte 20. The block's strings are numbered 0-2.
    const Case cases[] = {
        {"unknown kind", 11, 0x0f, 1},
        {"unknown kind in the first record", 0, 0x00, 0},
        {"reference to no string", 20, 0x07, 1},
        {"empty literal", 14, 0x00, 1},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        auto bytes = good;
        ASSERT_LT(c.at, bytes.size());
        bytes[c.at] = c.value;
        bool damaged = false;
        EXPECT_EQ(unpack(bytes, bytes.size(), &damaged).size(), c.whole);
        EXPECT_TRUE(damaged);
    }
    // A varint longer than ten bytes.
    std::vector<unsigned char> endless = {0x01};
    endless.insert(endless.end(), 12, 0x80);
    bool damaged = false;
    EXPECT_TRUE(unpack(endless, endless.size(), &damaged).empty());
    EXPECT_TRUE(damaged);
}

// An agent's calls repeat most of their payload (the API, its handles and sizes): a payload
// the size of the one before of its kind is written as the words that changed, kinds apart.
TEST(record_PackedBlock, PayloadsLikeTheOneBeforeAreTheirChangedWords) {
    std::vector<Rec> records;
    for (uint64_t i = 0; i < 1000; ++i) {
        records.push_back(
            {1000 + 40 * i, RecordKind::ApiCall, payloadOf(8, 7, 0, 5000 + 40 * i), "", ""});
        if (i % 10 == 0) {
            records.push_back({1010 + 40 * i, RecordKind::DeviceTimes, payloadOf(5, i), "", ""});
        }
    }
    records.push_back({90000, RecordKind::ApiCall, payloadOf(9, 7), "", ""});          // longer
    records.push_back({90001, RecordKind::ApiCall, payloadOf(9, 7), "", ""});          // the same
    records.push_back({90002, RecordKind::ApiCall, payloadOf(9, 7) + "odd", "", ""});  // not words
    records.push_back({90003, RecordKind::ApiCall, payloadOf(9, 100), "", ""});  // all changed
    records.push_back({90004, RecordKind::ObjectInfo, payloadOf(80, 1), "queue", ""});  // large
    records.push_back({90005, RecordKind::ObjectInfo, payloadOf(80, 1, 3, 9), "queue", ""});
    // The longest payload compared (64 words, a full mask), changed in its last and first word.
    records.push_back({90006, RecordKind::DeviceTimes, payloadOf(64, 1), "", ""});
    records.push_back({90007, RecordKind::DeviceTimes, payloadOf(64, 1, 63, 5), "", ""});
    records.push_back({90008, RecordKind::DeviceTimes, payloadOf(64, 1, 0, 5), "", ""});
    const auto bytes = pack(records);
    // A call: tag, time delta (1 byte), the form (1), the mask (1) and one word; a DeviceTimes
    // record every tenth call, all its words changed: written out; the 64-word payload once.
    EXPECT_LT(bytes.size(), 1000u * 12 + 100u * 44 + 2600);
    bool damaged = true;
    EXPECT_EQ(unpack(bytes, bytes.size(), &damaged), records);
    EXPECT_FALSE(damaged);
    // Cut anywhere, the whole records before the cut come back as they went in.
    for (size_t n = bytes.size() - 40; n < bytes.size(); ++n) {
        damaged = true;
        const auto got = unpack(bytes, n, &damaged);
        EXPECT_FALSE(damaged) << n;
        ASSERT_LT(got.size(), records.size());
        EXPECT_TRUE(std::equal(got.begin(), got.end(), records.begin())) << n;
    }
}

// Every payload size the comparison takes (1 to 64 words: word 0, its steps of eight words, its
// pairs and its last single word), a word changed in its low half, in its high half, or two words
// at once: the second payload costs exactly its changed words (a word
// missed would not come back, a word taken for changed would cost 8 bytes more). The records'
// times are past every word, so that word 0 alone changed is not its difference from the time.
TEST(record_PackedBlock, EveryChangedWordIsFoundAndNoOther) {
    constexpr uint64_t kLate = uint64_t{1} << 62;
    for (size_t words = 1; words <= 64; ++words) {
        const std::string base = payloadOf(words, 100);
        const auto packedBytes = [&](const std::vector<size_t>& at, uint64_t flip) {
            std::string second = base;
            for (size_t i : at) {
                uint64_t w;
                std::memcpy(&w, &second[8 * i], 8);
                w ^= flip;
                std::memcpy(&second[8 * i], &w, 8);
            }
            const std::vector<Rec> records = {{kLate, RecordKind::ApiCall, base, "", ""},
                                              {kLate + 1, RecordKind::ApiCall, second, "", ""}};
            const auto bytes = pack(records);
            bool damaged = true;
            EXPECT_EQ(unpack(bytes, bytes.size(), &damaged), records) << words;
            EXPECT_FALSE(damaged);
            return bytes.size();
        };
        const size_t unchanged = packedBytes({}, 0);
        const size_t maskBytes = (words + 7) / 8;
        if (maskBytes + 8 >= 8 * words) continue;  // one changed word: written out whole
        for (size_t i = 0; i < words; ++i) {
            for (const uint64_t flip : {uint64_t{1} << 3, uint64_t{1} << 45}) {
                EXPECT_EQ(packedBytes({i}, flip), unchanged + 8) << words << " words, word " << i;
            }
            if (i + 1 < words && maskBytes + 16 < 8 * words) {
                EXPECT_EQ(packedBytes({i, words - 1}, uint64_t{1} << 60), unchanged + 16)
                    << words << " words, words " << i << " and " << words - 1;
            }
        }
    }
}

// A block whose first record is an API call in the end-time form (time 0, flag, difference 5):
// there is no payload of its kind before it to take the other words from.
std::vector<unsigned char> orphanEndTime() {
    return {static_cast<unsigned char>(static_cast<unsigned>(RecordKind::ApiCall) | 0x20), 0x00,
            0x01, 0x05};
}

// A payload like the block's previous one of its kind but for word 0, which is at least the
// record's time (an API call's end time), is a flag and the difference: 2 to 11 bytes, whatever
// its size up to the 64 words compared, after 3 bytes of tag and time. Word 0 below the time
// costs its mask and word; past 64 words the payload is written out.
TEST(record_PackedBlock, AnEndTimeAloneChangedIsItsDifferenceFromTheTime) {
    constexpr uint64_t kTime = 1000000;
    for (size_t words : {size_t{1}, size_t{2}, size_t{3}, size_t{10}, size_t{64}, size_t{65}}) {
        for (const uint64_t difference : {uint64_t{0}, uint64_t{1}, uint64_t{127}, uint64_t{128},
                                          uint64_t{1} << 40, ~uint64_t{0} - kTime}) {
            SCOPED_TRACE(std::to_string(words) + " words, difference " +
                         std::to_string(difference));
            const std::string first = payloadOf(words, 7);
            const std::string second = payloadOf(words, 7, 0, kTime + difference);
            const std::vector<Rec> records = {{kTime - 200, RecordKind::ApiCall, first, "", ""},
                                              {kTime, RecordKind::ApiCall, second, "", ""}};
            const auto bytes = pack(records);
            const auto alone = pack({records[0]});
            bool damaged = true;
            EXPECT_EQ(unpack(bytes, bytes.size(), &damaged), records);
            EXPECT_FALSE(damaged);
            size_t varint = 1;
            for (uint64_t v = difference; v >= 0x80; v >>= 7) ++varint;
            // The second record: its tag, its time (200 later: 2 bytes zigzagged), the payload.
            const size_t payload = words <= 64 ? 1 + varint : 2 + 8 * words;
            EXPECT_EQ(bytes.size(), alone.size() + 3 + payload);
            // Cut inside the difference: the first record alone, not damage.
            if (words <= 64) {
                damaged = true;
                EXPECT_EQ(unpack(bytes, bytes.size() - 1, &damaged).size(), 1u);
                EXPECT_FALSE(damaged);
            }
        }
    }
    // Word 0 below the time: the count, its mask (10 words: two bytes) and the word.
    const std::vector<Rec> below = {{5000, RecordKind::ApiCall, payloadOf(10, 7), "", ""},
                                    {5200, RecordKind::ApiCall, payloadOf(10, 7, 0, 4999), "", ""}};
    const auto bytes = pack(below);
    EXPECT_EQ(bytes.size(), pack({below[0]}).size() + 3 + 1 + 2 + 8);
    bool damaged = true;
    EXPECT_EQ(unpack(bytes, bytes.size(), &damaged), below);
    EXPECT_FALSE(damaged);
    // The form with no payload of the kind before it in the block is damage.
    const std::vector<unsigned char> orphan = orphanEndTime();
    damaged = false;
    EXPECT_TRUE(unpack(orphan, orphan.size(), &damaged).empty());
    EXPECT_TRUE(damaged);
}

// A loop's calls: after the first difference (which rebuilds the payload), the unpacker takes a
// one-byte difference in place (BlockUnpacker::next); a longer one, another kind between, and a
// cut inside the run come back as well. One unpacker reads the blocks in turn: a block that opens
// with the form is damage, whatever the block before it rebuilt.
TEST(record_PackedBlock, ALoopsEndTimesComeBackFromOneUnpacker) {
    std::vector<Rec> records;
    uint64_t time = 5000;
    for (uint64_t i = 0; i < 300; ++i) {
        time += 90;
        const uint64_t duration = i % 7 == 3 ? 200 + i : 10 + i % 100;  // 200+: two bytes
        records.push_back(
            {time, RecordKind::ApiCall, payloadOf(10, 7, 0, time + duration), "", ""});
        if (i % 50 == 49) {
            records.push_back({time + 1, RecordKind::DeviceTimes, payloadOf(5, i), "", ""});
        }
    }
    const auto bytes = pack(records);
    BlockUnpacker unpacker;
    const auto readWith = [&unpacker](const std::vector<unsigned char>& block, size_t n,
                                      bool* damaged) {
        std::vector<Rec> out;
        unpacker.unpack(
            block.data(), n,
            [&](const RecordView& r) {
                out.push_back({r.time, r.kind, std::string(r.str0), std::string(r.str1),
                               std::string(r.str2)});
            },
            damaged);
        return out;
    };
    bool damaged = true;
    EXPECT_EQ(readWith(bytes, bytes.size(), &damaged), records);
    EXPECT_FALSE(damaged);
    // The block again, cut in its last record's difference: the records before it.
    const auto cut = readWith(bytes, bytes.size() - 1, &damaged);
    EXPECT_FALSE(damaged);
    ASSERT_EQ(cut.size(), records.size() - 1);
    EXPECT_TRUE(std::equal(cut.begin(), cut.end(), records.begin()));
    // Then a block that opens with the form, as if it followed the first one.
    const std::vector<unsigned char> orphan = orphanEndTime();
    damaged = false;
    EXPECT_TRUE(readWith(orphan, orphan.size(), &damaged).empty());
    EXPECT_TRUE(damaged);
}

// The writer packs an API call's record in line (addPayloadRecord) where add() would find only
// its payload's word 0 changed: the bytes are add()'s, whatever word or byte changed, however
// long the payload (3 to 64 words, the most compared, and 65), an end time before or after the
// call's time, kinds apart, and block after block.
TEST(record_PackedBlock, APayloadPackedInLineIsWhatAddWrites) {
    BlockPacker packer;
    size_t inLine = 0;
    for (size_t words = 3; words <= 65; ++words) {
        std::vector<Rec> records;
        uint64_t time = 1000;
        const auto call = [&](RecordKind kind, std::string payload) {
            time += 37 + words;
            records.push_back({time, kind, std::move(payload), "", ""});
        };
        const std::string base = payloadOf(words, 7);
        call(RecordKind::ApiCall, base);
        for (size_t i = 0; i < words; ++i) {
            for (size_t byte : {size_t{0}, size_t{3}, size_t{7}}) {
                std::string next = payloadOf(words, 7, 0, 5000 + time);  // a new end time
                next[8 * i + byte] = static_cast<char>(next[8 * i + byte] ^ 0x40);
                call(RecordKind::ApiCall, next);
                call(RecordKind::ApiCall, payloadOf(words, 7, 0, 6000 + time));
                ++inLine;
            }
            call(RecordKind::DeviceTimes, payloadOf(words, i));  // another kind between
            call(RecordKind::ApiCall, payloadOf(words, 7, 0, 7000 + time));
            call(RecordKind::ApiCall, payloadOf(words, 7, 0, 7000 + time));  // nothing changed
        }
        call(RecordKind::ApiCall, payloadOf(words + 1, 7));  // another size
        call(RecordKind::ApiCall, payloadOf(words, 7, 0, 1));
        const auto bytes = pack(records);
        // Twice on one packer: the second block knows nothing of the first's payloads.
        for (int block = 0; block < 2; ++block) {
            ASSERT_EQ(packInLine(packer, records), bytes) << words << " words, block " << block;
        }
        bool damaged = true;
        EXPECT_EQ(unpack(bytes, bytes.size(), &damaged), records) << words;
        EXPECT_FALSE(damaged);
    }
    EXPECT_GT(inLine, 0u);
}

TEST(record_PackedBlock, ChangedWordsWithoutTheirPayloadAreDamage) {
    const auto apiCallWith = [](std::vector<unsigned char> form) {
        std::vector<unsigned char> bytes = {0x10 | 0x20, 0x00};  // ApiCall with str0, time 0
        bytes.insert(bytes.end(), form.begin(), form.end());
        return bytes;
    };
    const std::vector<unsigned char> word(8, 0xab);
    struct Case {
        const char* what;
        std::vector<unsigned char> bytes;
    };
    std::vector<unsigned char> noBase = apiCallWith({0x03, 0x01});  // 1 word, word 0 changed
    noBase.insert(noBase.end(), word.begin(), word.end());
    // A literal of one word, then two words changed in it.
    std::vector<unsigned char> wrongSize = apiCallWith({0x10});
    wrongSize.insert(wrongSize.end(), word.begin(), word.end());
    const auto second = apiCallWith({0x05, 0x01});
    wrongSize.insert(wrongSize.end(), second.begin(), second.end());
    wrongSize.insert(wrongSize.end(), word.begin(), word.end());
    // A literal of one word, then a mask naming word 1 of it.
    std::vector<unsigned char> beyond = apiCallWith({0x10});
    beyond.insert(beyond.end(), word.begin(), word.end());
    const auto third = apiCallWith({0x03, 0x02});
    beyond.insert(beyond.end(), third.begin(), third.end());
    beyond.insert(beyond.end(), word.begin(), word.end());
    const Case cases[] = {
        {"changed words before any payload of the kind", noBase},
        {"more words than the payload before", wrongSize},
        {"a changed word past the payload's end", beyond},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        bool damaged = false;
        const auto got = unpack(c.bytes, c.bytes.size(), &damaged);
        EXPECT_TRUE(damaged);
        EXPECT_EQ(got.size(), c.bytes == noBase ? 0u : 1u);
    }
}

}  // namespace
}  // namespace perfmarker::record
