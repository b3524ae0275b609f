// Packed blocks: how a fragment's block (and the writer's memory in cached mode) holds records
// (docs/format.md#fragments). A block is self-contained: times are deltas from the previous
// record of the block, and a string seen before in the block is a reference to it. A marker pair
// takes about 10 bytes instead of the 64 of the chunk layout (record_format.h).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "record/record_format.h"

namespace perfmarker::record {

// Builds one block at a time in its own buffer. The strings of the records added must stay
// where they are until the block is finished (they are the chunk's bytes the writer is packing).
class BlockPacker {
public:
    BlockPacker();

    // Starts a new block: no strings known, time base 0, `headroom` bytes left free at the start
    // of the buffer (for the block header, so that header and records go out in one write).
    void begin(size_t headroom = 0);

    // Appends `r`. Marker names and groups, and the agents' str1/str2, are looked up among the
    // block's strings; the agents' binary payloads (str0 of kinds 16 and up) are not.
    void add(const RecordView& r);

    // The headroom and the packed records after it.
    unsigned char* data() { return m_buf.data(); }
    size_t size() const { return m_used; }
    uint32_t records() const { return m_records; }

private:
    // A string (not a payload) is looked up among the block's and numbered when new.
    unsigned char* putString(unsigned char* p, std::string_view s);
    // An agent record's payload: the 8-byte words that differ from the block's previous payload
    // of the same kind, when that is shorter, else the bytes.
    unsigned char* putPayload(unsigned char* p, uint32_t kind, std::string_view s);

    struct Slot {
        const char* data;
        uint64_t print;  // packed_block.cpp's fingerprint()
        uint32_t size;
        uint32_t id;
        uint32_t generation;
    };
    std::vector<Slot> m_slots;  // open addressing; a slot of another generation is free
    struct Payload {
        const char* data;
        uint32_t size;
        uint32_t generation;  // of another block: none
    };
    std::array<Payload, 16> m_payloads{};  // the last payload of each agent kind (16-31)
    std::vector<unsigned char> m_buf;
    size_t m_used = 0;
    uint64_t m_lastTime = 0;
    uint32_t m_records = 0;
    uint32_t m_strings = 0;  // literals in the block so far: the next one's number
    uint32_t m_interned = 0;
    uint32_t m_generation = 0;
};

// Reads packed blocks. Keeps its string table between calls so that reading allocates only
// when a block has more distinct strings than any before. A record's views are valid while it
// is visited (a payload may live in the unpacker, rebuilt from the one before).
class BlockUnpacker {
public:
    // Calls `visit` for each whole record of the block in `p[0, n)`, in order; the views point
    // into `p`. Returns the number of records delivered; stops at the first record that is cut
    // short by `n` or is not a valid record (`damaged` says which).
    template <typename Visit>
    uint32_t unpack(const unsigned char* p, size_t n, Visit&& visit, bool* damaged = nullptr);

private:
    // Decode the record (the string) at p[pos, n): 1 when whole, 0 when cut short, -1 when
    // invalid.
    int next(const unsigned char* p, size_t n, size_t& pos, RecordView& out);
    int string(const unsigned char* p, size_t n, size_t& pos, std::string_view& out);
    int payload(const unsigned char* p, size_t n, size_t& pos, uint32_t kind,
                std::string_view& out);

    std::vector<std::string_view> m_strings;
    // The last payload of each agent kind in the block; a payload written as changed words is
    // rebuilt in `words` (valid until the next payload of its kind).
    struct Payload {
        std::string_view view;
        std::string words;
        bool inWords = false;
    };
    std::array<Payload, 16> m_payloads;
    uint64_t m_lastTime = 0;
};

template <typename Visit>
uint32_t BlockUnpacker::unpack(const unsigned char* p, size_t n, Visit&& visit, bool* damaged) {
    m_strings.clear();
    for (Payload& payload : m_payloads) payload.view = {};
    m_lastTime = 0;
    if (damaged != nullptr) *damaged = false;
    uint32_t count = 0;
    size_t pos = 0;
    RecordView view;
    while (pos < n) {
        const int r = next(p, n, pos, view);
        if (r <= 0) {
            if (damaged != nullptr) *damaged = r < 0;
            break;
        }
        visit(view);
        ++count;
    }
    return count;
}

}  // namespace perfmarker::record
