// What the section writers make of a call, kept by the call's payload (docs/architecture.md,
// merging; the figures in docs/performance.md). An API line, and the fields a timestamp line
// takes from the arguments, are a function of the record's payload but for the end time and the
// enqueue id (record/api_record.h, ApiCallHead: the Timestamp section has those) and of the
// count of collapsed calls. A program's loops repeat their calls' arguments, so what is made of a
// call once is copied the next times.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "record/api_record.h"

namespace perfmarker::atp {

// 2^IndexBits entries by a hash of the key; one entry (0 bits) for the tests of the comparison.
template <typename Value, unsigned IndexBits>
class PayloadMemo {
public:
    // The value kept for `call` and `count`, or null.
    const Value* find(const record::ApiCallView& call, uint32_t count = 1) const {
        const std::string_view p = call.payload;
        if (p.size() < kHead) return nullptr;
        const Entry& e = m_entries[indexOf(p, count)];
        if (e.count != count || e.key.size() != keySize(p) ||
            std::memcmp(e.key.data(), p.data() + kFrom, kTo - kFrom) != 0 ||
            std::memcmp(e.key.data() + (kTo - kFrom), p.data() + kHead, p.size() - kHead) != 0) {
            return nullptr;
        }
        return &e.value;
    }

    // The entry of `call` and `count`, taken from the call it held, for the caller to set; null
    // when the payload is too short to be kept.
    Value* keep(const record::ApiCallView& call, uint32_t count = 1) {
        const std::string_view p = call.payload;
        if (p.size() < kHead) return nullptr;
        Entry& e = m_entries[indexOf(p, count)];
        e.key.assign(p.data() + kFrom, kTo - kFrom).append(p.data() + kHead, p.size() - kHead);
        e.count = count;
        return &e.value;
    }

private:
    // The key: the head's words 1 and 2 (API, slot, argument count; the result), then all
    // after the head.
    static constexpr size_t kFrom = offsetof(record::ApiCallHead, apiId);
    static constexpr size_t kTo = offsetof(record::ApiCallHead, enqueueId);
    static constexpr size_t kHead = sizeof(record::ApiCallHead);
    static_assert(kFrom == 8 && kTo == 24 && kHead == 32, "the head's words in memory order");
    static size_t keySize(std::string_view p) { return (kTo - kFrom) + (p.size() - kHead); }

    // Count 0 is no call: every line has at least its own.
    struct Entry {
        std::string key;
        uint32_t count = 0;
        Value value{};
    };

    static uint64_t mix(uint64_t h, const char* p) {
        uint64_t w;
        std::memcpy(&w, p, 8);
        return (h ^ w) * 0x9e3779b97f4a7c15u;
    }

    static size_t indexOf(std::string_view p, uint32_t count) {
        uint64_t h = mix(mix(count, p.data() + kFrom), p.data() + kFrom + 8);
        size_t at = kHead;
        for (; at + 8 <= p.size(); at += 8) h = mix(h, p.data() + at);
        if (at < p.size()) {
            char tail[8] = {};
            std::memcpy(tail, p.data() + at, p.size() - at);
            h = mix(h, tail);
        }
        if constexpr (IndexBits == 0) {
            return 0;
        } else {
            return static_cast<size_t>(h >> (64 - IndexBits));
        }
    }

    std::array<Entry, size_t{1} << IndexBits> m_entries;
};

// API lines: 256, a loop's distinct calls several times over.
using ApiLineMemo = PayloadMemo<std::string, 8>;

}  // namespace perfmarker::atp
