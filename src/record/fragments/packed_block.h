// Packed blocks: how a fragment's block (and the writer's memory in cached mode) holds records
// (docs/format.md#fragments). A block is self-contained: times are deltas from the previous
// record of the block, and a string seen before in the block is a reference to it. A marker pair
// takes 4-10 bytes as records, 16 as marker words (the writer's compact records), where the
// chunk layout (record_format.h) takes 64 or 16.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "atp/format/short_bytes.h"
#include "record/record_format.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace perfmarker::record {

// Layout of a packed record (docs/format.md#fragments):
//   tag      1 byte: the kind in bits 0-4, bit 5/6/7 set when str0/str1/str2 is not empty; or
//            kRepeatBegin: a MarkerBegin with the name and group of the block's previous
//            MarkerBegin record (which had no user string), no strings follow; or
//            kWordRun: a 4-byte count follows, then that many marker words (below), no time;
//            or kSlotDef with bit 5/6 set when its name/group is not empty: a slot number byte,
//            then the name and group as strings; no time, not a record
// A marker word (8 bytes, little-endian) is a MarkerEnd (kWordEnd) or a MarkerBegin with the
// name and group of the block's kSlotDef for the slot in bits 59-61 (kWordBegin), its time in
// bits 0-58 in nanoseconds (not a difference); the writer packs its compact records so.
//   time     varint of the zigzagged difference from the previous record's time (0 first)
//   strings  for each one present: varint v; v odd: the block's string number v >> 1;
//            v even: v >> 1 bytes follow, and they are the block's next string number (except
//            the binary payload, str0 of kinds 16 and up, which is never numbered; for it, v odd
//            says: v >> 1 words of 8 bytes, as the block's previous payload of the same kind,
//            except those set in the bit mask that follows (one bit per word, (words + 7) / 8
//            bytes), whose new values follow in order; and v = 1 says: the block's previous
//            payload of the same kind but for word 0, which is the record's time plus the
//            varint that follows: an API call's end time, mostly one byte; and v = 0 says: a
//            byte follows, the rank r (1 to kKeptPayloads - 1) of a payload of the kind kept
//            before the last one, and an odd v as above, against that payload instead)
// The kept payloads of a kind are its last kKeptPayloads ones in the block, the most recent
// first. Each payload becomes the most recent: one whose word 0 alone changed (or none), the
// same call again, in the place of the payload it was written against; any other in the place
// of the oldest. A loop that calls several APIs finds each call's previous one among them.
// The coding is here, inline, so that packing a chunk (the writer) and unpacking a block
// (finalize, the merge) are each one loop in their caller.
namespace packed {
inline constexpr unsigned kKindBits = 0x1f;
inline constexpr unsigned kStringBit[3] = {0x20, 0x40, 0x80};
inline constexpr uint32_t kFirstAgentKind = 16;
// Not record kinds (record_format.h), so no other tag has these values.
inline constexpr unsigned char kRepeatBegin = 4;
inline constexpr unsigned char kWordRun = 5;
inline constexpr unsigned char kSlotDef = 6;
inline constexpr uint64_t kWordEnd = uint64_t{1} << 62;
inline constexpr uint64_t kWordBegin = uint64_t{2} << 62;
inline constexpr uint64_t kWordTagMask = uint64_t{3} << 62;
inline constexpr unsigned kWordSlotShift = 59;
inline constexpr uint64_t kWordTimeMask = (uint64_t{1} << kWordSlotShift) - 1;
inline constexpr unsigned kWordSlots = 8;

inline uint64_t unzigzag(uint64_t v) { return (v >> 1) ^ (~(v & 1) + 1); }
inline uint64_t zigzag(uint64_t delta) {
    const auto d = static_cast<int64_t>(delta);
    return (static_cast<uint64_t>(d) << 1) ^ static_cast<uint64_t>(d >> 63);
}

inline unsigned char* putVarint(unsigned char* p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = static_cast<unsigned char>(v | 0x80);
        v >>= 7;
    }
    *p++ = static_cast<unsigned char>(v);
    return p;
}

// Reads a varint at p[pos, n): 1 when whole, 0 when cut short, -1 when longer than 10 bytes.
inline __attribute__((always_inline)) int getVarint(const unsigned char* p, size_t n, size_t& pos,
                                                    uint64_t& out) {
    if (pos < n && p[pos] < 0x80) {  // most times and string numbers
        out = p[pos++];
        return 1;
    }
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (pos >= n) return 0;
        const unsigned char b = p[pos++];
        v |= uint64_t{b & 0x7fu} << shift;
        if ((b & 0x80) == 0) {
            out = v;
            return 1;
        }
    }
    return -1;
}

// Words 1 and on of `a` and `b` (`bytes` long, a multiple of 8, at least 24) all equal: the
// common case of an API call's payload, whose end time (word 0) alone changed. Sixteen bytes a
// comparison, two a step, the last one overlapping the one before. Word 0 is not loaded: the writer
// has just stored it in 8 bytes, and a 16-byte load over that store would wait for it to reach the
// cache.
inline bool sameAfterFirstWord(const char* a, const char* b, size_t bytes) {
#if defined(__SSE2__)
    const auto equal = [a, b](size_t at) {
        return _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(a + at)),
                              _mm_loadu_si128(reinterpret_cast<const __m128i*>(b + at)));
    };
    __m128i all = equal(bytes - 16);
    size_t at = 8;
    for (; at + 32 < bytes; at += 32) {
        all = _mm_and_si128(all, _mm_and_si128(equal(at), equal(at + 16)));
    }
    if (at + 16 < bytes) all = _mm_and_si128(all, equal(at));
    return _mm_movemask_epi8(all) == 0xffff;
#else
    for (size_t at = 8; at < bytes; at += 8) {
        if (atp::load8(a + at) != atp::load8(b + at)) return false;
    }
    return true;
#endif
}

// Payloads of up to this many words are compared with the block's previous one of their kind.
inline constexpr size_t kMaxDeltaWords = 64;
// The payloads the writer packs in line (BlockPacker::addPayloadRecord, and the writer's run of
// such records): whole words, 3 (sameAfterFirstWord()'s least) to kMaxDeltaWords.
inline constexpr bool packsInLine(size_t bytes) {
    return bytes % 8 == 0 && bytes / 8 - 3 <= kMaxDeltaWords - 3;
}
// The tag of an agent record of `kind` whose only string is its payload.
inline constexpr unsigned char payloadTag(uint32_t kind) {
    return static_cast<unsigned char>((kind & kKindBits) | kStringBit[0]);
}
// The payload's varint that says: word 0 alone, as a difference from the record's time.
inline constexpr unsigned char kEndDifference = 1;
// The payloads of each agent kind a block keeps to write the next one against; the payload's
// varint that says a rank follows (an empty payload is never written, so 0 is free).
inline constexpr unsigned kKeptPayloads = 8;
inline constexpr unsigned char kOlderPayload = 0;
// The index of an agent kind (16-31) among the kinds' kept payloads.
inline constexpr unsigned kindIndex(uint32_t kind) { return (kind - kFirstAgentKind) & 15; }
// The order of a kind's kept payloads, most recent first: rank r's entry in bits 4r to 4r + 3.
inline constexpr uint32_t kFirstOrder = 0x76543210;
inline constexpr unsigned entryAt(uint32_t order, unsigned rank) {
    return (order >> (4 * rank)) & 0xf;
}
// `order` with the entry at `rank` made the most recent, the ones before it a rank older.
inline constexpr uint32_t toFront(uint32_t order, unsigned rank) {
    const uint64_t below = (uint64_t{1} << (4 * rank)) - 1;  // ranks 0 to rank - 1
    const uint64_t through = (uint64_t{1} << (4 * rank + 4)) - 1;
    return static_cast<uint32_t>((order & ~through) | ((order & below) << 4) |
                                 entryAt(order, rank));
}
static_assert(toFront(kFirstOrder, 0) == kFirstOrder && toFront(kFirstOrder, 3) == 0x76542103 &&
              toFront(kFirstOrder, 7) == 0x65432107);
// A payload that is the block's previous one of its kind but for word 0, `first`, at least the
// record's `time`, as add() writes it after the time: the flag and the difference.
inline unsigned char* putEndPayload(unsigned char* p, uint64_t time, uint64_t first) {
    *p = kEndDifference;
    return putVarint(p + 1, first - time);
}
// The most bytes such a record takes: its tag, a 10-byte time, the flag, a 10-byte difference.
inline constexpr size_t kMostEndRecord = 1 + 10 + 1 + 10;

// The `size` bytes at p[pos, n) as a string of the block: 1 when whole, 0 when cut short, -1
// when empty (an empty string or payload is written as none).
inline int takeBytes(const unsigned char* p, size_t n, size_t& pos, uint64_t size,
                     std::string_view& out) {
    if (size == 0) return -1;
    if (size > n - pos) return 0;
    out = {reinterpret_cast<const char*>(p + pos), static_cast<size_t>(size)};
    pos += size;
    return 1;
}
}  // namespace packed

// Builds one block at a time in its own buffer. The strings of the records added must stay
// where they are until the block is finished (they are the chunk's bytes the writer is packing).
class BlockPacker {
public:
    BlockPacker();

    // Starts a new block: no strings known, time base 0, `headroom` bytes left free at the start
    // of the buffer (for the block header, so that header and records go out in one write).
    void begin(size_t headroom = 0);

    // Appends `r`. Marker names and groups, and the agents' str1/str2, are looked up among the
    // block's strings; the agents' binary payloads (str0 of kinds 16 and up) are not. Inline, in
    // the writer's loop over a chunk's records (no store and reload of `r`).
    inline __attribute__((always_inline)) void add(const RecordView& r);
    // The writer's compact records (record_format.h) as marker words: a MarkerEnd, and a
    // MarkerBegin with the name and group of marker slot `slot`, which the block defines
    // (kSlotDef) before its first word that uses it. forgetSlot(): the slot's strings changed.
    void addEndWord(uint64_t time);
    void addBeginWord(uint64_t time, unsigned slot, std::string_view name, std::string_view group);
    void forgetSlot(unsigned slot) { m_slotsDefined &= ~(1u << slot); }
    // An agent record of `kind` with the payload `s` (whole words, at least 3) and no other
    // string: what add() writes for it. When the payload differs from the block's previous one
    // of its kind in word 0 alone, and that is at least `time` (an API call in a loop: its end
    // time), in line, with no call.
    inline __attribute__((always_inline)) void addPayloadRecord(uint32_t kind, uint64_t time,
                                                                std::string_view s);
    // Agent records the caller writes in a loop of its own, each of `kind` with a payload that
    // is the one before but for word 0 (packed::putEndPayload, after the tag and the time):
    // openRecords() returns where `bytes` more bytes go, closeRecords() takes their end, their
    // count, the last one's time and payload. Only after an addPayloadRecord() of that kind and
    // size, whose payload the first of them follows.
    uint64_t lastTime() const { return m_lastTime; }
    unsigned char* openRecords(size_t bytes);
    void closeRecords(unsigned char* end, uint32_t records, uint64_t lastTime, uint32_t kind,
                      const char* lastPayload);
    // Marker words written in the caller's loop: openWords() returns where up to `most` words
    // go (in the open run, or a new one), closeWords() takes the end of those written and the
    // time of the last one. Only words of defined slots (definedSlots(), a bit per slot).
    uint32_t definedSlots() const { return m_slotsDefined; }
    unsigned char* openWords(size_t most);
    void closeWords(unsigned char* end, uint64_t lastTime);

    // The headroom and the packed records after it.
    unsigned char* data() { return m_buf.data(); }
    size_t size() const { return m_used; }
    uint32_t records() const { return m_records; }

private:
    // The string last written in one of a record's three places (a marker's name, its group),
    // with its number in the block: a record that repeats it skips the table.
    struct Recent {
        const char* data = nullptr;
        uint32_t size = 0;  // 0: none
        uint32_t id = 0;
    };
    // A string (not a payload) is looked up among the block's and numbered when new.
    unsigned char* putString(unsigned char* p, std::string_view s, Recent& recent);
    // An agent record's payload: the 8-byte words that differ from a kept payload of its kind
    // and size (packed::kKeptPayloads; which one: putPayload() in packed_block.cpp), when that
    // is shorter, else the bytes.
    // `time`: the record's (a first word at least that may be written as the difference).
    unsigned char* putPayload(unsigned char* p, uint32_t kind, std::string_view s, uint64_t time);

    struct Slot {
        const char* data;
        uint64_t print;  // packed_block.cpp's fingerprint()
        uint32_t size;
        uint32_t id;
        uint32_t generation;
    };
    std::vector<Slot> m_slots;         // open addressing; a slot of another generation is free
    std::array<Recent, 3> m_recent{};  // per place; cleared by begin()
    // The block's previous MarkerBegin, when it had no user string: a Begin with the same name
    // and group is written as kRepeatBegin (a loop's marker, mostly).
    struct LastBegin {
        const char* name = nullptr;
        const char* group = nullptr;
        uint32_t nameSize = 0;
        uint32_t groupSize = 0;
        bool valid = false;
    };
    LastBegin m_lastBegin;
    // Marker words: the open run's offset in the buffer (kNoRun: none) and its count; the
    // marker slots the block has defined.
    static constexpr size_t kNoRun = ~size_t{0};
    size_t m_run = kNoRun;
    uint32_t m_runWords = 0;
    bool m_runOpened = false;  // openWords() started the run
    uint32_t m_slotsDefined = 0;
    // Appends one marker word at `time` to the open run, or to a new one.
    void addWord(uint64_t word, uint64_t time);
    void defineSlot(unsigned slot, std::string_view name, std::string_view group);
    struct Payload {
        const char* data;
        uint32_t size;
        uint32_t generation;  // of another block: none
    };
    // The kept payloads of each agent kind (16-31), and their order (packed::toFront()).
    std::array<std::array<Payload, packed::kKeptPayloads>, 16> m_payloads{};
    std::array<uint32_t, 16> m_order{};
    // Each kept payload's size in the block (0: none, or longer than compared), for
    // sameSizeEntries(): a bit per entry of kind index `k` of `size`.
    std::array<std::array<uint16_t, packed::kKeptPayloads>, 16> m_sizes{};
    uint32_t sameSizeEntries(unsigned k, size_t size) const;
    // The rank at which each kind's last payload written as the same call again found the
    // payload it was written against: where addPayloadRecord() looks after rank 0.
    std::array<uint8_t, 16> m_sameCallRank{};
    // `s` kept as the most recent payload of kind index `k`, besides the others, in the place
    // of the oldest.
    void keepNewest(unsigned k, std::string_view s);
    Payload& newestPayload(uint32_t kind) {
        const unsigned k = packed::kindIndex(kind);
        return m_payloads[k][packed::entryAt(m_order[k], 0)];
    }
    std::vector<unsigned char> m_buf;
    size_t m_used = 0;
    uint64_t m_lastTime = 0;
    uint32_t m_records = 0;
    uint32_t m_strings = 0;  // literals in the block so far: the next one's number
    uint32_t m_interned = 0;
    uint32_t m_generation = 0;
};

// A run of marker words as a block holds them, for a visitor that takes them a run at a time
// (finalize's text): the words (8 bytes each, little-endian; packed::kWord*), and the block's
// slots for their Begins. The views point into the block.
struct WordRun {
    const unsigned char* words = nullptr;
    uint32_t count = 0;
    const std::string_view* slotName = nullptr;   // [packed::kWordSlots]
    const std::string_view* slotGroup = nullptr;  // [packed::kWordSlots]
    uint32_t slotsDefined = 0;                    // bit s: slot s has its strings
};

// True for a visitor with `uint32_t words(const WordRun&)`: it takes the first words of the run,
// as many as it returns, and is not called for them one at a time. It takes no word that is not
// a valid marker, so that the unpacker finds and reports it.
template <typename Visit, typename = void>
struct TakesWordRuns : std::false_type {};
template <typename Visit>
struct TakesWordRuns<
    Visit, std::void_t<decltype(std::declval<Visit&>().words(std::declval<const WordRun&>()))>>
    : std::true_type {};

// Reads packed blocks. Keeps its string table between calls so that reading allocates only
// when a block has more distinct strings than any before. A record's views are valid while it
// is visited (a payload may live in the unpacker, rebuilt from the one before).
class BlockUnpacker {
public:
    // Calls `visit` for each whole record of the block in `p[0, n)`, in order; the views point
    // into `p`. Returns the number of records delivered; stops at the first record that is cut
    // short by `n` or is not a valid record (`damaged` says which), or after a visit that
    // returned false (a visit may return bool; stopped() says it did).
    template <typename Visit>
    uint32_t unpack(const unsigned char* p, size_t n, Visit&& visit, bool* damaged = nullptr);
    bool stopped() const { return m_stopped; }

private:
    // Decode the record (the string) at p[pos, n): 1 when whole, 0 when cut short, -1 when
    // invalid.
    inline __attribute__((always_inline)) int next(const unsigned char* p, size_t n, size_t& pos,
                                                   RecordView& out);
    inline __attribute__((always_inline)) int string(const unsigned char* p, size_t n, size_t& pos,
                                                     std::string_view& out);
    int payload(const unsigned char* p, size_t n, size_t& pos, uint32_t kind,
                std::string_view& out);

    std::vector<std::string_view> m_strings;
    // The kept payloads of each agent kind in the block, and their order (packed::toFront());
    // a payload written as changed words is rebuilt in `words` (valid until its entry is
    // written again).
    struct Payload {
        std::string_view view;
        std::string words;
        bool inWords = false;
    };
    std::array<std::array<Payload, packed::kKeptPayloads>, 16> m_payloads;
    std::array<uint32_t, 16> m_order{};
    // The oldest kept payload of kind index `k`, made the most recent: where a payload kept
    // besides the others goes (as BlockPacker::keepNewest()).
    Payload& oldestToFront(unsigned k);
    // The block's previous MarkerBegin's name and group, for kRepeatBegin.
    std::string_view m_beginName, m_beginGroup;
    bool m_beginValid = false;
    // The block's marker slots (kSlotDef), for marker words.
    std::string_view m_slotName[packed::kWordSlots], m_slotGroup[packed::kWordSlots];
    uint32_t m_slotsDefined = 0;
    // A kSlotDef at p[pos, n): 1 when whole, 0 when cut short, -1 when invalid.
    int slotDef(const unsigned char* p, size_t n, size_t& pos);
    uint64_t m_lastTime = 0;
    bool m_stopped = false;
};

void BlockPacker::add(const RecordView& r) {
    using namespace packed;
    const auto kind = static_cast<uint32_t>(r.kind);
    // At most: the tag, a 10-byte time, and per string a 5-byte varint and its bytes.
    const size_t most = 1 + 10 + 15 + r.str0.size() + r.str1.size() + r.str2.size();
    if (m_used + most > m_buf.size()) m_buf.resize(std::max(2 * m_buf.size(), m_used + most));
    unsigned char* const start = m_buf.data() + m_used;
    unsigned char* p = putVarint(start + 1, zigzag(r.time - m_lastTime));
    m_lastTime = r.time;
    m_run = kNoRun;
    if (kind == static_cast<uint32_t>(RecordKind::MarkerBegin)) {
        LastBegin& last = m_lastBegin;
        if (!r.str2.empty()) {
            last.valid = false;
        } else if (last.valid && r.str0.size() == last.nameSize &&
                   r.str1.size() == last.groupSize &&
                   atp::sameBytes(last.name, r.str0.data(), r.str0.size()) &&
                   atp::sameBytes(last.group, r.str1.data(), r.str1.size())) {
            *start = kRepeatBegin;
            m_used += static_cast<size_t>(p - start);
            ++m_records;
            return;
        } else {
            last = LastBegin{r.str0.data(), r.str1.data(), static_cast<uint32_t>(r.str0.size()),
                             static_cast<uint32_t>(r.str1.size()), true};
        }
    }
    unsigned tag = kind & kKindBits;
    // A string that repeats its place's last one is a reference without a call.
    const auto string = [this, &p](std::string_view s, Recent& recent) {
        if (s.size() == recent.size && atp::sameBytes(recent.data, s.data(), s.size())) {
            return putVarint(p, (uint64_t{recent.id} << 1) | 1);
        }
        return putString(p, s, recent);
    };
    if (!r.str0.empty()) {
        tag |= kStringBit[0];
        p = kind >= kFirstAgentKind ? putPayload(p, kind, r.str0, r.time)
                                    : string(r.str0, m_recent[0]);
    }
    if (!r.str1.empty()) {
        tag |= kStringBit[1];
        p = string(r.str1, m_recent[1]);
    }
    if (!r.str2.empty()) {
        tag |= kStringBit[2];
        p = string(r.str2, m_recent[2]);
    }
    *start = static_cast<unsigned char>(tag);
    m_used += static_cast<size_t>(p - start);
    ++m_records;
}

void BlockPacker::addPayloadRecord(uint32_t kind, uint64_t time, std::string_view s) {
    using namespace packed;
    // As add() reserves: its putPayload writes the mask as one 8-byte store.
    const size_t most = 1 + 10 + 15 + s.size();
    if (m_used + most > m_buf.size()) m_buf.resize(std::max(2 * m_buf.size(), m_used + most));
    unsigned char* const start = m_buf.data() + m_used;
    unsigned char* p = putVarint(start + 1, zigzag(time - m_lastTime));
    m_lastTime = time;
    m_run = kNoRun;
    // The same call again, its end time alone changed: against the last payload of the kind,
    // or against the one at the rank where the kind's last call found its own (a loop of
    // several calls), as putPayload() would write it (that payload is the only kept one of its
    // words after word 0).
    const unsigned k = kindIndex(kind);
    const uint64_t first = atp::load8(s.data());
    const auto sameCall = [&](const Payload& kept) __attribute__((always_inline)) {
        return kept.generation == m_generation && kept.size == s.size() && packsInLine(s.size()) &&
               first != atp::load8(kept.data) && first >= time &&
               sameAfterFirstWord(s.data(), kept.data, s.size());
    };
    Payload& last = m_payloads[k][entryAt(m_order[k], 0)];
    const unsigned hint = m_sameCallRank[k];
    Payload& hinted = m_payloads[k][entryAt(m_order[k], hint)];
    if (sameCall(last)) {
        p = putEndPayload(p, time, first);
        last.data = s.data();
    } else if (hint != 0 && sameCall(hinted)) {
        *p++ = kOlderPayload;
        *p++ = static_cast<unsigned char>(hint);
        p = putEndPayload(p, time, first);
        m_order[k] = toFront(m_order[k], hint);
        hinted.data = s.data();
    } else {
        p = putPayload(p, kind, s, time);
    }
    *start = payloadTag(kind);
    m_used += static_cast<size_t>(p - start);
    ++m_records;
}

int BlockUnpacker::string(const unsigned char* p, size_t n, size_t& pos, std::string_view& out) {
    uint64_t v = 0;
    int r = packed::getVarint(p, n, pos, v);
    if (r <= 0) return r;
    if (v & 1) {
        if ((v >> 1) >= m_strings.size()) return -1;
        out = m_strings[v >> 1];
        return 1;
    }
    // Through a local: reading back `out` just stored would stall on the stores.
    std::string_view literal;
    r = packed::takeBytes(p, n, pos, v >> 1, literal);
    if (r > 0) {
        m_strings.emplace_back(literal.data(), literal.size());  // not a reference to `literal`
        out = literal;
    }
    return r;
}

int BlockUnpacker::next(const unsigned char* p, size_t n, size_t& pos, RecordView& out) {
    using namespace packed;
    const unsigned tag = p[pos++];
    const uint32_t kind = tag & kKindBits;
    if (!isKnownRecordKind(kind) && tag != kRepeatBegin) return -1;
    uint64_t delta = 0;
    int r = getVarint(p, n, pos, delta);
    if (r <= 0) return r;
    m_lastTime += unzigzag(delta);
    out.time = m_lastTime;
    if (tag == kRepeatBegin) {
        if (!m_beginValid) return -1;  // no Begin to repeat in this block
        out.kind = RecordKind::MarkerBegin;
        out.str0 = m_beginName;
        out.str1 = m_beginGroup;
        out.str2 = {};
        return 1;
    }
    out.kind = static_cast<RecordKind>(kind);
    out.str0 = {};
    out.str1 = {};
    out.str2 = {};
    if (tag & kStringBit[0]) {
        if (kind >= kFirstAgentKind) {
            // Through a local: the address of a field of `out` given to the out-of-line
            // payload() would keep the whole record in memory, where the visitor's 16-byte
            // loads of views stored in 8-byte halves wait for the stores (a third of finalize's
            // loop, docs/performance.md#where-the-time-goes).
            std::string_view bytes;
            const unsigned k = kindIndex(kind);
            // An older kept payload's rank before the form (a loop of several calls).
            const bool older = n - pos >= 4 && p[pos] == kOlderPayload && p[pos + 1] != 0 &&
                               p[pos + 1] < kKeptPayloads;
            const unsigned rank = older ? p[pos + 1] : 0;
            const size_t at = pos + (older ? 2 : 0);
            Payload& last = m_payloads[k][entryAt(m_order[k], rank)];
            if (n - at >= 2 && p[at] == kEndDifference && p[at + 1] < 0x80 && last.inWords &&
                last.view.size() >= 8) {
                // An API call's end time as a one-byte difference, against a kept payload
                // already rebuilt in `words`: the word in place, no call (payload() does the
                // rest).
                const uint64_t first = m_lastTime + p[at + 1];
                std::memcpy(last.words.data(), &first, sizeof first);
                m_order[k] = toFront(m_order[k], rank);
                pos = at + 2;
                bytes = last.view;
            } else {
                r = payload(p, n, pos, kind, bytes);
            }
            out.str0 = bytes;
        } else {
            r = string(p, n, pos, out.str0);
        }
        if (r <= 0) return r;
    }
    if ((tag & kStringBit[1]) && (r = string(p, n, pos, out.str1)) <= 0) return r;
    if ((tag & kStringBit[2]) && (r = string(p, n, pos, out.str2)) <= 0) return r;
    if (kind == static_cast<uint32_t>(RecordKind::MarkerBegin)) {
        m_beginValid = out.str2.empty();
        m_beginName = out.str0;
        m_beginGroup = out.str1;
    }
    return 1;
}

template <typename Visit>
uint32_t BlockUnpacker::unpack(const unsigned char* p, size_t n, Visit&& visit, bool* damaged) {
    m_strings.clear();
    for (auto& kept : m_payloads) {
        for (Payload& payload : kept) payload.view = {};
    }
    m_order.fill(packed::kFirstOrder);
    m_lastTime = 0;
    m_beginValid = false;
    m_slotsDefined = 0;
    m_stopped = false;
    if (damaged != nullptr) *damaged = false;
    uint32_t count = 0;
    size_t pos = 0;
    RecordView view;
    // false: stop (the visit said so)
    const auto deliver = [&]() __attribute__((always_inline)) {
        ++count;
        if constexpr (std::is_same_v<decltype(visit(view)), bool>) {
            if (!visit(view)) {
                m_stopped = true;
                return false;
            }
        } else {
            visit(view);
        }
        return true;
    };
    int r = 1;
    while (pos < n) {
        const unsigned char tag = p[pos];
        if (tag == packed::kWordRun) {
            r = 0;
            if (n - pos < 5) break;
            uint32_t words;
            std::memcpy(&words, p + pos + 1, sizeof words);
            pos += 5;
            r = 1;
            if constexpr (TakesWordRuns<std::remove_reference_t<Visit>>::value) {
                const auto whole = static_cast<uint32_t>(std::min<size_t>(words, (n - pos) / 8));
                const uint32_t taken = std::min(
                    whole,
                    visit.words(WordRun{p + pos, whole, m_slotName, m_slotGroup, m_slotsDefined}));
                if (taken != 0) {
                    uint64_t last;
                    std::memcpy(&last, p + pos + 8 * size_t{taken - 1}, sizeof last);
                    m_lastTime = last & packed::kWordTimeMask;
                    count += taken;
                    words -= taken;
                    pos += 8 * size_t{taken};
                }
            }
            for (; words != 0; --words, pos += 8) {
                if (n - pos < 8) {
                    r = 0;
                    break;
                }
                uint64_t word;
                std::memcpy(&word, p + pos, sizeof word);
                view.time = word & packed::kWordTimeMask;
                const uint64_t kind = word & packed::kWordTagMask;
                const unsigned slot = (word >> packed::kWordSlotShift) & (packed::kWordSlots - 1);
                if (kind == packed::kWordEnd) {
                    view.kind = RecordKind::MarkerEnd;
                    view.str0 = {};
                    view.str1 = {};
                } else if (kind == packed::kWordBegin && (m_slotsDefined >> slot) & 1) {
                    view.kind = RecordKind::MarkerBegin;
                    view.str0 = m_slotName[slot];
                    view.str1 = m_slotGroup[slot];
                } else {
                    r = -1;
                    break;
                }
                view.str2 = {};
                m_lastTime = view.time;
                if (!deliver()) return count;
            }
            if (r <= 0) break;
            continue;
        }
        const bool isSlotDef = (tag & packed::kKindBits) == packed::kSlotDef;
        r = isSlotDef ? slotDef(p, n, pos) : next(p, n, pos, view);
        if (r <= 0) break;
        if (!isSlotDef && !deliver()) return count;
    }
    if (r <= 0 && damaged != nullptr) *damaged = r < 0;
    return count;
}

}  // namespace perfmarker::record
