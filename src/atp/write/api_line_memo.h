// Recent API lines by their call's payload, for the section writers (docs/performance.md, the
// merge's API lines). An API line is a function of its record's payload but for the end time and
// the enqueue id (record/api_record.h, ApiCallHead: the Timestamp section has those) and of its
// count of collapsed calls. A program's loops repeat their calls' arguments, so a line formatted
// once is copied the next times. One per section writer.
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
template <unsigned IndexBits>
class BasicApiLineMemo {
public:
    // Appends the line kept for `call` and `count` to `out`; false when none is kept.
    bool append(const record::ApiCallView& call, uint32_t count, std::string& out) {
        const std::string_view p = call.payload;
        if (p.size() < kHead) return false;
        const Entry& e = m_entries[indexOf(p, count)];
        if (e.count != count || e.key.size() != keySize(p) ||
            std::memcmp(e.key.data(), p.data() + kFrom, kTo - kFrom) != 0 ||
            std::memcmp(e.key.data() + (kTo - kFrom), p.data() + kHead, p.size() - kHead) != 0) {
            return false;
        }
        out.append(e.line);
        return true;
    }

    // Keeps `line` as the line of `call` and `count`, in place of the one its entry held.
    void keep(const record::ApiCallView& call, uint32_t count, std::string_view line) {
        const std::string_view p = call.payload;
        if (p.size() < kHead) return;
        Entry& e = m_entries[indexOf(p, count)];
        e.key.assign(p.data() + kFrom, kTo - kFrom).append(p.data() + kHead, p.size() - kHead);
        e.count = count;
        e.line.assign(line);
    }

private:
    // The key: the head's words 1 and 2 (API, slot, argument count; the result), then all
    // after the head.
    static constexpr size_t kFrom = offsetof(record::ApiCallHead, apiId);
    static constexpr size_t kTo = offsetof(record::ApiCallHead, enqueueId);
    static constexpr size_t kHead = sizeof(record::ApiCallHead);
    static_assert(kFrom == 8 && kTo == 24 && kHead == 32, "the head's words in memory order");
    static size_t keySize(std::string_view p) { return (kTo - kFrom) + (p.size() - kHead); }

    // Count 0 is no line: every line has at least its own call.
    struct Entry {
        std::string key;
        uint32_t count = 0;
        std::string line;
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

// 256 entries: a loop's distinct calls, several times over.
using ApiLineMemo = BasicApiLineMemo<8>;

}  // namespace perfmarker::atp
