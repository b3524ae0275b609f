#include "record/fragments/packed_block.h"

#include <algorithm>
#include <cstring>

#include "atp/format/short_bytes.h"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace perfmarker::record {
namespace {

using namespace packed;
using atp::load4;
using atp::load8;
using atp::sameBytes;

// The layout of a packed record is in packed_block.h (namespace packed).
constexpr size_t kSlots = 1024;                // power of two
constexpr uint32_t kMaxInterned = kSlots / 2;  // the table stays at most half full
constexpr size_t kMaxInternedBytes = 1024;     // longer strings are written as they are
constexpr int kMaxProbes = 8;

// Set bits of `x` (the build's baseline processor has no popcnt instruction).
constexpr size_t countBits(uint64_t x) {
    x -= (x >> 1) & 0x5555555555555555u;
    x = (x & 0x3333333333333333u) + ((x >> 2) & 0x3333333333333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    return static_cast<size_t>((x * 0x0101010101010101u) >> 56);
}
static_assert(countBits(0) == 0 && countBits(~uint64_t{0}) == 64 && countBits(0x8001) == 2);

// Bit i set where word i of `a` and `b` differ (words <= 64). Word 0 alone, then two words per
// SSE2 comparison, eight per step, so that the mask is built with constant shifts (a word at a
// time, a compare, a set and a variable shift each, was the larger part of the writer's time for
// the OpenCL layer's records). Word 0 of an API call's payload is its end time, which the writer
// has just stored in 8 bytes: a 16-byte load over that store would wait for it to reach the
// cache (docs/performance-history.md, the payload comparison with SSE2).
uint64_t changedWords(const char* a, const char* b, size_t words) {
    if (words == 0) return 0;
    uint64_t bits = uint64_t{load8(a) != load8(b)};
    size_t i = 1;
#if defined(__SSE2__)
    // Both 4-byte halves of a word equal: the word is equal (its double's sign bit then set).
    const auto equalPair = [](const char* x, const char* y) {
        const __m128i e = _mm_cmpeq_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(x)),
                                          _mm_loadu_si128(reinterpret_cast<const __m128i*>(y)));
        const __m128i both = _mm_and_si128(e, _mm_shuffle_epi32(e, 0xb1));
        return static_cast<uint64_t>(_mm_movemask_pd(_mm_castsi128_pd(both)));
    };
    for (; i + 8 <= words; i += 8) {
        const char* x = a + 8 * i;
        const char* y = b + 8 * i;
        const uint64_t equal = equalPair(x, y) | equalPair(x + 16, y + 16) << 2 |
                               equalPair(x + 32, y + 32) << 4 | equalPair(x + 48, y + 48) << 6;
        bits |= (~equal & 0xff) << i;
    }
    for (; i + 2 <= words; i += 2) bits |= (~equalPair(a + 8 * i, b + 8 * i) & 3) << i;
#endif
    for (; i < words; ++i) bits |= uint64_t{load8(a + 8 * i) != load8(b + 8 * i)} << i;
    return bits;
}

// Up to 24 of the string's bytes (first, middle, last, overlapping) and its length in one word:
// names differ in a few bytes, and a collision only costs a comparison.
uint64_t fingerprint(const char* p, size_t n) {
    if (n >= 8) return load8(p) ^ (load8(p + n - 8) * 31) ^ (load8(p + n / 2 - 4) * 7) ^ n;
    if (n >= 4) return (uint64_t{load4(p)} << 32 | load4(p + n - 4)) ^ n;
    return (uint64_t{static_cast<unsigned char>(p[0])} << 16 |
            uint64_t{static_cast<unsigned char>(p[n / 2])} << 8 |
            static_cast<unsigned char>(p[n - 1])) ^
           (n << 32);
}

size_t slotOf(uint64_t fingerprint) {
    return static_cast<size_t>((fingerprint * 0x9e3779b97f4a7c15ULL) >> 54);  // 10 bits
}
static_assert(kSlots == 1024, "slotOf() gives 10 bits");

}  // namespace

BlockPacker::BlockPacker() : m_slots(kSlots, Slot{nullptr, 0, 0, 0, 0}) {}

void BlockPacker::begin(size_t headroom) {
    // A block of an oversize record does not keep its buffer for the recorder's life.
    constexpr size_t kKeptBuffer = size_t{4} << 20;
    if (m_buf.size() > kKeptBuffer) std::vector<unsigned char>().swap(m_buf);
    if (m_buf.size() < headroom) m_buf.resize(headroom);
    m_used = headroom;
    m_lastTime = 0;
    m_records = 0;
    m_strings = 0;
    m_interned = 0;
    m_recent = {};
    m_lastBegin = {};
    m_run = kNoRun;
    m_slotsDefined = 0;
    m_order.fill(kFirstOrder);
    m_sameCallRank.fill(0);
    for (auto& sizes : m_sizes) sizes.fill(0);
    if (++m_generation == 0) {  // after 2^32 blocks: forget every slot for real
        for (Slot& s : m_slots) s.generation = 0;
        for (auto& kept : m_payloads) kept.fill(Payload{nullptr, 0, 0});
        m_generation = 1;
    }
}

unsigned char* BlockPacker::putString(unsigned char* p, std::string_view s, Recent& recent) {
    if (s.size() <= kMaxInternedBytes) {
        const uint64_t print = fingerprint(s.data(), s.size());
        size_t i = slotOf(print);
        for (int probe = 0; probe < kMaxProbes; ++probe, i = (i + 1) & (kSlots - 1)) {
            Slot& slot = m_slots[i];
            if (slot.generation != m_generation) {
                if (m_interned >= kMaxInterned) break;
                slot =
                    Slot{s.data(), print, static_cast<uint32_t>(s.size()), m_strings, m_generation};
                ++m_interned;
                break;
            }
            if (slot.print == print && slot.size == s.size() &&
                sameBytes(slot.data, s.data(), s.size())) {
                recent = Recent{s.data(), static_cast<uint32_t>(s.size()), slot.id};
                return putVarint(p, (uint64_t{slot.id} << 1) | 1);
            }
        }
        recent = Recent{s.data(), static_cast<uint32_t>(s.size()), m_strings};
    }
    p = putVarint(p, uint64_t{s.size()} << 1);
    std::memcpy(p, s.data(), s.size());
    ++m_strings;
    return p + s.size();
}

void BlockPacker::keepNewest(unsigned k, std::string_view s) {
    m_order[k] = toFront(m_order[k], kKeptPayloads - 1);
    const unsigned entry = entryAt(m_order[k], 0);
    m_payloads[k][entry] = Payload{s.data(), static_cast<uint32_t>(s.size()), m_generation};
    m_sizes[k][entry] = static_cast<uint16_t>(s.size() <= 8 * kMaxDeltaWords ? s.size() : 0);
}

uint32_t BlockPacker::sameSizeEntries(unsigned k, size_t size) const {
#if defined(__SSE2__)
    const __m128i equal =
        _mm_cmpeq_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(m_sizes[k].data())),
                        _mm_set1_epi16(static_cast<int16_t>(size)));
    return static_cast<uint32_t>(_mm_movemask_epi8(_mm_packs_epi16(equal, _mm_setzero_si128())));
#else
    uint32_t entries = 0;
    for (unsigned e = 0; e < kKeptPayloads; ++e) entries |= uint32_t{m_sizes[k][e] == size} << e;
    return entries;
#endif
}

unsigned char* BlockPacker::putPayload(unsigned char* p, uint32_t kind, std::string_view s,
                                       uint64_t time) {
    const unsigned k = kindIndex(kind);
    uint32_t& order = m_order[k];
    const size_t words = s.size() / 8;
    if (s.size() % 8 == 0 && words <= kMaxDeltaWords) {
        // The kept payload to write against, of the same size: the nearest whose words after
        // word 0 are all equal (the same call again: mostly its end time alone changed, written
        // as the difference from the time), its word 1 compared first (an API call's id and
        // slot); else the nearest with the same word 1, or the nearest, when its changed words
        // (the mask as one word, as BlockUnpacker::payload reads it: bit i says word i changed)
        // are shorter than the payload. A rank after the first costs two bytes more.
        const uint64_t first = load8(s.data());
        const uint64_t second = words >= 2 ? load8(s.data() + 8) : 0;
        unsigned nearest = kKeptPayloads;
        unsigned nearestApi = kKeptPayloads;
        unsigned bestRank = kKeptPayloads;
        uint64_t bestBits = 0;
        uint32_t sameSize = sameSizeEntries(k, s.size());
        uint32_t ranks = order;
        for (unsigned rank = 0; sameSize != 0; ++rank, ranks >>= 4) {
            const unsigned entry = ranks & 0xf;
            if ((sameSize >> entry & 1) == 0) continue;
            sameSize &= ~(1u << entry);
            const char* kept = m_payloads[k][entry].data;
            if (nearest == kKeptPayloads) nearest = rank;
            if (words >= 2 && load8(kept + 8) == second) {
                if (words >= 3 && sameAfterFirstWord(s.data(), kept, s.size())) {
                    bestRank = rank;
                    bestBits = uint64_t{first != load8(kept)};
                    break;
                }
                if (nearestApi == kKeptPayloads) nearestApi = rank;
            }
        }
        if (nearestApi != kKeptPayloads) nearest = nearestApi;
        const size_t maskBytes = (words + 7) / 8;
        if (bestRank == kKeptPayloads && nearest != kKeptPayloads) {
            const uint64_t bits =
                changedWords(s.data(), m_payloads[k][entryAt(order, nearest)].data, words);
            const size_t cost = (nearest == 0 ? 0 : 2) + maskBytes + 8 * countBits(bits);
            if ((bits == 1 && first >= time) || cost < s.size()) {
                bestRank = nearest;
                bestBits = bits;
            }
        }
        if (bestRank < kKeptPayloads) {
            if (bestRank != 0) {
                *p++ = kOlderPayload;
                *p++ = static_cast<unsigned char>(bestRank);
            }
            // The same call again (its end time alone changed) replaces the payload it was
            // written against; another is kept besides it, in the place of the oldest.
            if (bestBits <= 1) {
                m_sameCallRank[k] = static_cast<uint8_t>(bestRank);
                order = toFront(order, bestRank);
                m_payloads[k][entryAt(order, 0)].data = s.data();
            } else {
                keepNewest(k, s);
            }
            if (bestBits == 1 && first >= time) return putEndPayload(p, time, first);
            p = putVarint(p, (uint64_t{words} << 1) | 1);
            // The mask's bytes in one store (little-endian); the bytes past them are the room
            // of the payload (add() reserves it) and the changed words overwrite them.
            static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__);
            std::memcpy(p, &bestBits, sizeof bestBits);
            p += maskBytes;
            for (uint64_t bits = bestBits; bits != 0; bits &= bits - 1) {
                std::memcpy(p, s.data() + 8 * static_cast<size_t>(__builtin_ctzll(bits)), 8);
                p += 8;
            }
            return p;
        }
    }
    keepNewest(k, s);  // written out
    p = putVarint(p, uint64_t{s.size()} << 1);
    std::memcpy(p, s.data(), s.size());
    return p + s.size();
}

unsigned char* BlockPacker::openRecords(size_t bytes) {
    if (m_used + bytes > m_buf.size()) m_buf.resize(std::max(2 * m_buf.size(), m_used + bytes));
    return m_buf.data() + m_used;
}

void BlockPacker::closeRecords(unsigned char* end, uint32_t records, uint64_t lastTime,
                               uint32_t kind, const char* lastPayload) {
    if (records == 0) return;
    m_used = static_cast<size_t>(end - m_buf.data());
    m_records += records;
    m_lastTime = lastTime;
    newestPayload(kind).data = lastPayload;
}

unsigned char* BlockPacker::openWords(size_t most) {
    const size_t need = m_used + 5 + 8 * most;
    if (need > m_buf.size()) m_buf.resize(std::max(2 * m_buf.size(), need));
    m_runOpened = m_run == kNoRun;
    if (m_runOpened) {
        m_run = m_used;
        m_runWords = 0;
        m_buf[m_used] = kWordRun;
        m_used += 5;
    }
    return m_buf.data() + m_used;
}

void BlockPacker::closeWords(unsigned char* end, uint64_t lastTime) {
    const auto words = static_cast<uint32_t>((end - (m_buf.data() + m_used)) / 8);
    if (words == 0) {
        if (m_runOpened) {  // no run of no words
            m_used = m_run;
            m_run = kNoRun;
        }
        return;
    }
    m_used += 8 * size_t{words};
    m_runWords += words;
    std::memcpy(m_buf.data() + m_run + 1, &m_runWords, sizeof m_runWords);
    m_records += words;
    m_lastTime = lastTime;
}

void BlockPacker::addWord(uint64_t word, uint64_t time) {
    unsigned char* const out = openWords(1);
    std::memcpy(out, &word, sizeof word);
    closeWords(out + sizeof word, time);
}

void BlockPacker::addEndWord(uint64_t time) {
    if (time > kWordTimeMask) {  // 18 years of uptime
        RecordView r;
        r.time = time;
        r.kind = RecordKind::MarkerEnd;
        add(r);
        return;
    }
    addWord(kWordEnd | time, time);
}

void BlockPacker::addBeginWord(uint64_t time, unsigned slot, std::string_view name,
                               std::string_view group) {
    if (time > kWordTimeMask) {
        RecordView r;
        r.time = time;
        r.kind = RecordKind::MarkerBegin;
        r.str0 = name;
        r.str1 = group;
        add(r);
        return;
    }
    if ((m_slotsDefined & (1u << slot)) == 0) defineSlot(slot, name, group);
    addWord(kWordBegin | uint64_t{slot} << kWordSlotShift | time, time);
}

void BlockPacker::defineSlot(unsigned slot, std::string_view name, std::string_view group) {
    const size_t most = 2 + 10 + name.size() + group.size();
    if (m_used + most > m_buf.size()) m_buf.resize(std::max(2 * m_buf.size(), m_used + most));
    unsigned char* const start = m_buf.data() + m_used;
    unsigned tag = kSlotDef;
    start[1] = static_cast<unsigned char>(slot);
    unsigned char* p = start + 2;
    // Places 0 and 1, as a Begin record's name and group.
    if (!name.empty()) {
        tag |= kStringBit[0];
        p = putString(p, name, m_recent[0]);
    }
    if (!group.empty()) {
        tag |= kStringBit[1];
        p = putString(p, group, m_recent[1]);
    }
    *start = static_cast<unsigned char>(tag);
    m_used += static_cast<size_t>(p - start);
    m_run = kNoRun;
    m_slotsDefined |= 1u << slot;
}

int BlockUnpacker::slotDef(const unsigned char* p, size_t n, size_t& pos) {
    const unsigned tag = p[pos];
    if ((tag & kStringBit[2]) != 0) return -1;
    if (n - pos < 2) return 0;
    const unsigned slot = p[pos + 1];
    if (slot >= kWordSlots) return -1;
    size_t at = pos + 2;
    std::string_view name, group;
    int r = 1;
    if ((tag & kStringBit[0]) && (r = string(p, n, at, name)) <= 0) return r;
    if ((tag & kStringBit[1]) && (r = string(p, n, at, group)) <= 0) return r;
    m_slotName[slot] = name;
    m_slotGroup[slot] = group;
    m_slotsDefined |= 1u << slot;
    pos = at;
    return 1;
}

BlockUnpacker::Payload& BlockUnpacker::oldestToFront(unsigned k) {
    m_order[k] = toFront(m_order[k], kKeptPayloads - 1);
    return m_payloads[k][entryAt(m_order[k], 0)];
}

int BlockUnpacker::payload(const unsigned char* p, size_t n, size_t& pos, uint32_t kind,
                           std::string_view& out) {
    const unsigned k = kindIndex(kind);
    uint32_t& order = m_order[k];
    uint64_t v = 0;
    int r = getVarint(p, n, pos, v);
    if (r <= 0) return r;
    unsigned rank = 0;
    if (v == kOlderPayload) {  // against an older kept payload: its rank, then the form
        if (pos >= n) return 0;
        rank = p[pos++];
        if (rank == 0 || rank >= kKeptPayloads) return -1;
        if ((r = getVarint(p, n, pos, v)) <= 0) return r;
        if ((v & 1) == 0) return -1;  // bytes written out are never against a kept payload
    }
    if ((v & 1) == 0) {
        std::string_view literal;  // a local, as in string()
        const int taken = takeBytes(p, n, pos, v >> 1, literal);
        if (taken > 0) {  // it takes the place of the oldest kept payload
            Payload& kept = oldestToFront(k);
            kept.view = literal;
            kept.inWords = false;
            out = literal;
        }
        return taken;
    }
    Payload& last = m_payloads[k][entryAt(order, rank)];
    if (v == kEndDifference) {  // word 0 alone, as a difference from the record's time
        uint64_t difference = 0;
        const int taken = getVarint(p, n, pos, difference);
        if (taken <= 0) return taken;
        if (last.view.size() < 8) return -1;  // no such payload of the kind before in the block
        if (!last.inWords) {
            last.words.assign(last.view);
            last.inWords = true;
        }
        const uint64_t first = m_lastTime + difference;
        std::memcpy(last.words.data(), &first, sizeof first);
        const std::string_view view(last.words.data(), last.words.size());
        last.view = view;
        out = view;
        order = toFront(order, rank);
        return 1;
    }
    const uint64_t words = v >> 1;
    if (words == 0 || words > kMaxDeltaWords || last.view.size() != words * 8) return -1;
    const size_t maskBytes = static_cast<size_t>((words + 7) / 8);
    if (maskBytes > n - pos) return 0;
    // The mask as one word (at most 64 payload words): bit i says word i changed.
    uint64_t bits = 0;
    for (size_t i = 0; i < maskBytes; ++i) bits |= uint64_t{p[pos + i]} << (8 * i);
    if (words < 64 && (bits >> words) != 0) return -1;  // no such word
    const size_t changed = countBits(bits);
    if (8 * changed > n - pos - maskBytes) return 0;
    // The same call again (word 0 alone changed, or none) is rebuilt in its kept payload's
    // place; another one in the oldest's, besides it (as the packer keeps them).
    Payload* into = &last;
    if (bits <= 1) {
        order = toFront(order, rank);
    } else {
        into = &oldestToFront(k);
    }
    if (into != &last) {
        into->words.assign(last.view);
        into->inWords = true;
    } else if (!last.inWords) {
        last.words.assign(last.view);
        last.inWords = true;
    }
    // Only the changed words, lowest first; a loop over every word mispredicts its branch.
    char* const base = into->words.data();
    const unsigned char* value = p + pos + maskBytes;
    for (; bits != 0; bits &= bits - 1) {
        std::memcpy(base + 8 * static_cast<size_t>(__builtin_ctzll(bits)), value, 8);
        value += 8;
    }
    pos += maskBytes + 8 * changed;
    // Both views stored from registers: reading back one just stored would stall on the stores.
    const std::string_view view(base, into->words.size());
    into->view = view;
    out = view;
    return 1;
}

}  // namespace perfmarker::record
