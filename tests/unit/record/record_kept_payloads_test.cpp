// Kept payloads in packed blocks (src/record/fragments/packed_block.h, docs/format.md#fragments):
// each call of a loop is written against its own previous one, whatever mix of calls, kinds
// and changes; a rank that names no kept payload is damage.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "packed_block_support.h"
#include "record/fragments/packed_block.h"

namespace perfmarker::record {
namespace {

using namespace packed_test;

// A loop that calls several APIs (a launch loop: arguments set, then the kernel enqueued): each
// call is written against its own previous one among the kind's kept payloads, wherever it is
// in the loop, by add() and by the writer's in-line path alike. A call whose end time alone changed
// costs its tag, its time, the rank and the difference; one that also changed an argument costs its
// changed words and is kept besides the one it was written against, which stays for the next round.
// With more distinct calls than the kind keeps, calls are written against others or out, and come
// back all the same.
TEST(record_PackedBlock, EachCallOfALoopIsWrittenAgainstItsOwnPreviousOne) {
    for (const size_t calls : {size_t{1}, size_t{4}, size_t{8}, size_t{9}, size_t{12}}) {
        SCOPED_TRACE(std::to_string(calls) + " calls a round");
        std::vector<Rec> records;
        uint64_t time = 1000;
        for (uint64_t round = 0; round < 40; ++round) {
            for (size_t c = 0; c < calls; ++c) {
                time += 40;
                // Calls 0 and 1 differ in every word but their size; call 2 changes word 3 (an
                // argument's value) every round; call 3 is longer.
                std::string payload = payloadOf(c == 3 ? 15 : 10, 100 * c, 3, c == 2 ? round : 9);
                const uint64_t end = time + 20;
                std::memcpy(&payload[0], &end, sizeof end);
                records.push_back({time, RecordKind::ApiCall, payload, "", ""});
            }
            // Another kind between the rounds keeps payloads of its own.
            records.push_back({time + 1, RecordKind::DeviceTimes, payloadOf(6, round), "", ""});
        }
        const auto bytes = pack(records);
        bool damaged = true;
        EXPECT_EQ(unpack(bytes, bytes.size(), &damaged), records);
        EXPECT_FALSE(damaged);
        // The writer's in-line path (the last payload, then the rank where the kind's last call
        // found its own) writes add()'s bytes.
        BlockPacker inLine;
        EXPECT_EQ(packInLine(inLine, records), bytes);
        const std::vector<size_t> costs = costsOf(records);
        size_t written = 0;  // every payload written out: its tag, time, size and bytes
        for (size_t i = 0; i < records.size(); ++i) written += 2 + 1 + records[i].s0.size();
        EXPECT_LT(bytes.size(), written);
        if (calls > packed::kKeptPayloads) continue;
        for (size_t i = calls + 1; i < records.size(); ++i) {
            if (records[i].kind != RecordKind::ApiCall) continue;
            const size_t c = i % (calls + 1);
            // Tag 1, time 1; the rank 2 (none where the call is its own previous one); then
            // the flag and a 1-byte difference, or the form, the 2-byte mask and two words.
            const size_t rank = calls == 1 ? 0 : 2;
            EXPECT_EQ(costs[i], 2 + rank + (c == 2 ? 1 + 2 + 16 : 2)) << i;
        }
    }
}

// An older kept payload named where none is: the rank 0 (the last payload needs none), a rank
// past the kept ones, a rank with no payload kept there, bytes written out after a rank; and a
// record cut after the rank's flag.
TEST(record_PackedBlock, ARankWithoutItsKeptPayloadIsDamage) {
    const std::vector<unsigned char> first = {0x10 | 0x20, 0x00, 0x10, 1, 2, 3, 4, 5, 6, 7, 8};
    const auto withSecond = [&first](std::vector<unsigned char> form) {
        std::vector<unsigned char> bytes = first;        // an ApiCall of one word, written out
        bytes.insert(bytes.end(), {0x10 | 0x20, 0x02});  // ApiCall with str0, time + 1
        bytes.insert(bytes.end(), form.begin(), form.end());
        return bytes;
    };
    struct Case {
        const char* what;
        std::vector<unsigned char> bytes;
        bool damage;
    };
    const Case cases[] = {
        {"rank 0", withSecond({0x00, 0x00, 0x01, 0x05}), true},
        {"a rank past the kept payloads",
         withSecond({0x00, static_cast<unsigned char>(packed::kKeptPayloads), 0x01, 0x05}), true},
        {"a rank with no payload kept", withSecond({0x00, 0x01, 0x01, 0x05}), true},
        {"bytes written out after a rank", withSecond({0x00, 0x01, 0x10, 1, 2, 3, 4, 5, 6, 7, 8}),
         true},
        {"cut after the flag", withSecond({0x00}), false},
        {"cut after the rank", withSecond({0x00, 0x01}), false},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        bool damaged = !c.damage;
        const auto got = unpack(c.bytes, c.bytes.size(), &damaged);
        EXPECT_EQ(damaged, c.damage);
        ASSERT_EQ(got.size(), 1u);  // the first record
        EXPECT_EQ(got[0].s0, std::string("\x01\x02\x03\x04\x05\x06\x07\x08", 8));
    }
    // Two payloads kept: rank 1 names the first, and the record comes back from it.
    std::vector<unsigned char> two = first;
    two.insert(two.end(), {0x10 | 0x20, 0x02, 0x10, 9, 9, 9, 9, 9, 9, 9, 9});
    two.insert(two.end(), {0x10 | 0x20, 0x02, 0x00, 0x01, 0x01, 0x05});
    bool damaged = true;
    const auto got = unpack(two, two.size(), &damaged);
    EXPECT_FALSE(damaged);
    ASSERT_EQ(got.size(), 3u);
    const uint64_t end = got[2].time + 5;
    EXPECT_EQ(got[2].s0, std::string(reinterpret_cast<const char*>(&end), 8));
}

// Random loops (a fixed seed): calls drawn from a dozen of 1 to 20 words and one of 70 (past the
// 64 compared), of two kinds, each call changing its end time (now and then to before its
// start), sometimes another word, rarely every word; loops of 1 to 12 calls, in turn or drawn
// at random, blocks of 1 to 400 records. Every record comes back as it went in, and the writer's
// way (an API call of whole words in line, anything else through add()) writes add()'s bytes.
TEST(record_KeptPayloads, RandomLoopsComeBackAsTheyWentIn) {
    std::mt19937_64 random(20261130);
    struct Call {
        RecordKind kind;
        std::string payload;
    };
    std::vector<Call> calls;
    for (size_t c = 0; c < 13; ++c) {
        const size_t words = c == 12 ? 70 : 1 + random() % 20;
        calls.push_back({c % 4 == 3 ? RecordKind::DeviceTimes : RecordKind::ApiCall,
                         payloadOf(words, 1000 * c)});
    }
    BlockPacker writer;
    for (int block = 0; block < 60; ++block) {
        SCOPED_TRACE(block);
        const size_t loop = 1 + random() % 12;
        const size_t length = 1 + random() % 400;
        std::vector<Rec> records;
        uint64_t time = 1000 + random() % 1000;
        for (size_t i = 0; i < length; ++i) {
            // In turn in the even blocks, drawn at random in the odd ones.
            const size_t pick = block % 2 == 0 ? i % loop : random() % loop;
            Call& call = calls[(pick + static_cast<size_t>(block)) % calls.size()];
            std::string& payload = call.payload;
            const size_t words = payload.size() / 8;
            time += 1 + random() % 300;
            const uint64_t end =
                random() % 8 == 0 ? time - 1 - random() % 50 : time + random() % 200;
            std::memcpy(&payload[0], &end, sizeof end);
            if (words > 1 && random() % 4 == 0) {  // an argument: mostly one of the first two
                const size_t w = 1 + random() % std::min<size_t>(words - 1, random() % 2 ? 2 : 64);
                const uint64_t value = random() % 2 ? random() : atp::load8(&payload[8 * w]) + 1;
                std::memcpy(&payload[8 * w], &value, sizeof value);
            }
            if (random() % 50 == 0) {
                for (size_t w = 0; w < words; ++w) {
                    const uint64_t value = random();
                    std::memcpy(&payload[8 * w], &value, sizeof value);
                }
            }
            records.push_back({time, call.kind, payload, "", ""});
        }
        const auto bytes = pack(records);
        bool damaged = true;
        EXPECT_EQ(unpack(bytes, bytes.size(), &damaged), records);
        EXPECT_FALSE(damaged);
        writer.begin();
        for (const Rec& r : records) {
            if (r.kind == RecordKind::ApiCall && r.s0.size() % 8 == 0 && r.s0.size() >= 24) {
                writer.addPayloadRecord(static_cast<uint32_t>(r.kind), r.time, r.s0);
            } else {
                RecordView v;
                v.time = r.time;
                v.kind = r.kind;
                v.str0 = r.s0;
                writer.add(v);
            }
        }
        EXPECT_EQ(std::vector<unsigned char>(writer.data(), writer.data() + writer.size()), bytes);
    }
}

}  // namespace
}  // namespace perfmarker::record
