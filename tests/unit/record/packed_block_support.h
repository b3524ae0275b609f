// Helpers of the packed-block tests (record_packed_block_test.cpp, record_kept_payloads_test.cpp):
// records as the tests write them, packed by add() or the writer's in-line path and read back.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "record/fragments/packed_block.h"

namespace perfmarker::record::packed_test {

struct Rec {
    uint64_t time;
    RecordKind kind;
    std::string s0, s1, s2;
    bool operator==(const Rec& o) const {
        return time == o.time && kind == o.kind && s0 == o.s0 && s1 == o.s1 && s2 == o.s2;
    }
};

inline std::vector<unsigned char> pack(const std::vector<Rec>& records) {
    BlockPacker packer;
    packer.begin();
    for (const Rec& r : records) {
        RecordView v;
        v.time = r.time;
        v.kind = r.kind;
        v.str0 = r.s0;
        v.str1 = r.s1;
        v.str2 = r.s2;
        packer.add(v);
    }
    EXPECT_EQ(packer.records(), records.size());
    return std::vector<unsigned char>(packer.data(), packer.data() + packer.size());
}

inline std::vector<Rec> unpack(const std::vector<unsigned char>& bytes, size_t n, bool* damaged) {
    std::vector<Rec> out;
    BlockUnpacker unpacker;
    const uint32_t count = unpacker.unpack(
        bytes.data(), n,
        [&](const RecordView& r) {
            out.push_back(
                {r.time, r.kind, std::string(r.str0), std::string(r.str1), std::string(r.str2)});
        },
        damaged);
    EXPECT_EQ(count, out.size());
    return out;
}

// `words` 8-byte words: word i is `base + i`, and word `changed` (if any) is `value` instead.
inline std::string payloadOf(size_t words, uint64_t base, size_t changed = SIZE_MAX,
                             uint64_t value = 0) {
    std::string out(words * 8, '\0');
    for (size_t i = 0; i < words; ++i) {
        const uint64_t w = i == changed ? value : base + i;
        std::memcpy(&out[8 * i], &w, 8);
    }
    return out;
}

// Every record through the writer's in-line path (BlockPacker::addPayloadRecord).
inline std::vector<unsigned char> packInLine(BlockPacker& packer, const std::vector<Rec>& records) {
    packer.begin();
    for (const Rec& r : records) {
        packer.addPayloadRecord(static_cast<uint32_t>(r.kind), r.time, r.s0);
    }
    return std::vector<unsigned char>(packer.data(), packer.data() + packer.size());
}

// What each record of `records` adds to the block, packed one after the other.
inline std::vector<size_t> costsOf(const std::vector<Rec>& records) {
    BlockPacker packer;
    packer.begin();
    std::vector<size_t> costs;
    for (const Rec& r : records) {
        RecordView v;
        v.time = r.time;
        v.kind = r.kind;
        v.str0 = r.s0;
        const size_t before = packer.size();
        packer.add(v);
        costs.push_back(packer.size() - before);
    }
    return costs;
}

}  // namespace perfmarker::record::packed_test
