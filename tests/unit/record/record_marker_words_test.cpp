// Marker words in packed blocks (src/record/fragments/packed_block.h, docs/format.md#fragments):
// the writer's compact records come back as the records they stand for, among other records,
// and words that cannot be a record are damage.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "record/fragments/packed_block.h"

namespace perfmarker::record {
namespace {

using packed::kWordBegin;
using packed::kWordEnd;
using packed::kWordTimeMask;

struct WordRec {
    uint64_t time;
    RecordKind kind;
    std::string s0, s1, s2;
    bool operator==(const WordRec& o) const {
        return time == o.time && kind == o.kind && s0 == o.s0 && s1 == o.s1 && s2 == o.s2;
    }
};

// How the test's visitor takes marker words: a record at a time, or a run at a time as
// finalize's text does (record/collect.h): every valid word of a run, or only its first word
// (the unpacker delivers the others as records).
enum class Take { Records, Runs, FirstWord };
constexpr Take kTakes[] = {Take::Records, Take::Runs, Take::FirstWord};

const char* nameOf(Take take) {
    return take == Take::Records ? "records" : take == Take::Runs ? "runs" : "first word";
}

struct RunVisitor {
    std::vector<WordRec>& out;
    bool oneWord;
    uint32_t calls = 0;

    void operator()(const RecordView& r) {
        out.push_back(
            {r.time, r.kind, std::string(r.str0), std::string(r.str1), std::string(r.str2)});
    }
    // Takes the words up to the first that is not a marker (which the unpacker then reports).
    uint32_t words(const WordRun& run) {
        ++calls;
        uint32_t i = 0;
        for (; i < run.count && (!oneWord || i == 0); ++i) {
            uint64_t w;
            std::memcpy(&w, run.words + 8 * size_t{i}, sizeof w);
            const unsigned slot = (w >> packed::kWordSlotShift) & (packed::kWordSlots - 1);
            if ((w & packed::kWordTagMask) == kWordEnd) {
                out.push_back({w & kWordTimeMask, RecordKind::MarkerEnd, "", "", ""});
            } else if ((w & packed::kWordTagMask) == kWordBegin &&
                       ((run.slotsDefined >> slot) & 1) != 0) {
                out.push_back({w & kWordTimeMask, RecordKind::MarkerBegin,
                               std::string(run.slotName[slot]), std::string(run.slotGroup[slot]),
                               ""});
            } else {
                break;
            }
        }
        return i;
    }
};
static_assert(TakesWordRuns<RunVisitor>::value);
static_assert(!TakesWordRuns<void (*)(const RecordView&)>::value);

std::vector<WordRec> unpackWords(const unsigned char* p, size_t n, bool& damaged,
                                 Take take = Take::Records, uint32_t* runCalls = nullptr) {
    std::vector<WordRec> out;
    BlockUnpacker unpacker;
    uint32_t count = 0;
    if (take == Take::Records) {
        count = unpacker.unpack(
            p, n,
            [&](const RecordView& r) {
                out.push_back({r.time, r.kind, std::string(r.str0), std::string(r.str1),
                               std::string(r.str2)});
            },
            &damaged);
    } else {
        RunVisitor visitor{out, take == Take::FirstWord};
        count = unpacker.unpack(p, n, visitor, &damaged);
        if (runCalls != nullptr) *runCalls = visitor.calls;
    }
    EXPECT_EQ(count, out.size());
    return out;
}

uint64_t beginWord(unsigned slot, uint64_t time) {
    return kWordBegin | uint64_t{slot} << packed::kWordSlotShift | time;
}

TEST(record_MarkerWords, WordsComeBackAsTheRecordsTheyStandFor) {
    const std::string draw = "draw", render = "render", copy = "copy";
    BlockPacker packer;
    packer.begin();
    packer.addBeginWord(100, 3, draw, render);  // defines slot 3
    packer.addEndWord(150);
    packer.addBeginWord(200, 3, draw, render);
    RecordView api;
    api.time = 210;
    api.kind = RecordKind::ApiCall;
    api.str0 = "payload!";
    api.str1 = "clFinish";
    packer.add(api);  // a record between words
    packer.addEndWord(250);
    packer.forgetSlot(3);
    packer.addBeginWord(300, 3, copy, "");  // slot 3 again, with other strings
    packer.addEndWord(350);
    packer.addBeginWord(360, 0, "", "");  // an empty name and group
    packer.addEndWord(370);
    // Words written in the caller's loop, in the open run; then an empty batch, which leaves
    // no run behind.
    unsigned char* out = packer.openWords(2);
    const uint64_t words[2] = {beginWord(3, 400), kWordEnd | 450};
    std::memcpy(out, words, sizeof words);
    packer.closeWords(out + sizeof words, 450);
    const size_t before = packer.size();
    packer.closeWords(packer.openWords(4), 450);
    EXPECT_EQ(packer.size(), before);
    // Times past a word's 59 bits are records.
    packer.addBeginWord(kWordTimeMask + 5, 3, copy, "");
    packer.addEndWord(kWordTimeMask + 6);
    packer.addEndWord(kWordTimeMask + 7);

    const std::vector<WordRec> expected = {
        {100, RecordKind::MarkerBegin, "draw", "render", ""},
        {150, RecordKind::MarkerEnd, "", "", ""},
        {200, RecordKind::MarkerBegin, "draw", "render", ""},
        {210, RecordKind::ApiCall, "payload!", "clFinish", ""},
        {250, RecordKind::MarkerEnd, "", "", ""},
        {300, RecordKind::MarkerBegin, "copy", "", ""},
        {350, RecordKind::MarkerEnd, "", "", ""},
        {360, RecordKind::MarkerBegin, "", "", ""},
        {370, RecordKind::MarkerEnd, "", "", ""},
        {400, RecordKind::MarkerBegin, "copy", "", ""},
        {450, RecordKind::MarkerEnd, "", "", ""},
        {kWordTimeMask + 5, RecordKind::MarkerBegin, "copy", "", ""},
        {kWordTimeMask + 6, RecordKind::MarkerEnd, "", "", ""},
        {kWordTimeMask + 7, RecordKind::MarkerEnd, "", "", ""},
    };
    EXPECT_EQ(packer.records(), expected.size());
    for (const Take take : kTakes) {
        SCOPED_TRACE(nameOf(take));
        bool damaged = true;
        // The record after the run is a time difference from the run's last word.
        EXPECT_EQ(unpackWords(packer.data(), packer.size(), damaged, take), expected);
        EXPECT_FALSE(damaged);
    }
}

// A loop's pairs are 8 bytes a record, in one run.
TEST(record_MarkerWords, ALoopIsOneRunOfWords) {
    BlockPacker packer;
    packer.begin();
    packer.addBeginWord(1000, 5, "n", "g");
    const size_t start = packer.size();
    for (uint64_t i = 0; i < 1000; ++i) {
        packer.addEndWord(1010 + 20 * i);
        packer.addBeginWord(1020 + 20 * i, 5, "n", "g");
    }
    EXPECT_EQ(packer.size() - start, 2000u * 8);
    for (const Take take : kTakes) {
        SCOPED_TRACE(nameOf(take));
        bool damaged = true;
        uint32_t calls = 0;
        EXPECT_EQ(unpackWords(packer.data(), packer.size(), damaged, take, &calls).size(), 2001u);
        EXPECT_FALSE(damaged);
        // A visitor that takes runs gets the loop's words in one call: the first Begin and
        // the rest are one run.
        EXPECT_EQ(calls, take == Take::Records ? 0u : 1u);
    }
}

std::vector<unsigned char> wordRun(const std::vector<uint64_t>& words, uint32_t count) {
    std::vector<unsigned char> out = {packed::kWordRun, 0, 0, 0, 0};
    std::memcpy(&out[1], &count, sizeof count);
    for (uint64_t w : words) {
        const auto* b = reinterpret_cast<const unsigned char*>(&w);
        out.insert(out.end(), b, b + 8);
    }
    return out;
}

// A slot definition: slot 2 is "n" and "g" (both literals).
const std::vector<unsigned char> kSlot2 = {
    packed::kSlotDef | packed::kStringBit[0] | packed::kStringBit[1], 2, 2, 'n', 2, 'g'};

std::vector<unsigned char> joined(std::vector<unsigned char> a,
                                  const std::vector<unsigned char>& b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}

TEST(record_MarkerWords, WordsThatCannotBeARecordAreDamage) {
    struct Case {
        const char* what;
        std::vector<unsigned char> bytes;
        size_t whole;
        bool damaged;
    };
    const Case cases[] = {
        {"a defined slot's word", joined(kSlot2, wordRun({beginWord(2, 7), kWordEnd | 8}, 2)), 2,
         false},
        {"no tag", joined(kSlot2, wordRun({kWordEnd | 8, 9}, 2)), 1, true},
        {"both tag bits", joined(kSlot2, wordRun({(uint64_t{3} << 62) | 9}, 1)), 0, true},
        {"a slot never defined", joined(kSlot2, wordRun({beginWord(1, 7)}, 1)), 0, true},
        {"a slot number past the last", {packed::kSlotDef, 8}, 0, true},
        {"a user string in a slot", {packed::kSlotDef | packed::kStringBit[2], 1, 2, 'u'}, 0, true},
        {"fewer words than counted", joined(kSlot2, wordRun({kWordEnd | 8, kWordEnd | 9}, 3)), 2,
         false},
        {"a cut count", {packed::kWordRun, 1, 0}, 0, false},
        {"a cut slot definition", {kSlot2.begin(), kSlot2.begin() + 4}, 0, false},
    };
    for (const Case& c : cases) {
        for (const Take take : kTakes) {
            SCOPED_TRACE(std::string(c.what) + ", " + nameOf(take));
            bool damaged = !c.damaged;
            EXPECT_EQ(unpackWords(c.bytes.data(), c.bytes.size(), damaged, take).size(), c.whole);
            EXPECT_EQ(damaged, c.damaged);
        }
    }
    // The slots belong to their block.
    BlockUnpacker unpacker;
    const auto first = joined(kSlot2, wordRun({beginWord(2, 7)}, 1));
    const auto second = wordRun({beginWord(2, 7)}, 1);
    bool damaged = true;
    EXPECT_EQ(unpacker.unpack(
                  first.data(), first.size(), [](const RecordView&) {}, &damaged),
              1u);
    EXPECT_FALSE(damaged);
    EXPECT_EQ(unpacker.unpack(
                  second.data(), second.size(), [](const RecordView&) {}, &damaged),
              0u);
    EXPECT_TRUE(damaged);
}

}  // namespace
}  // namespace perfmarker::record
