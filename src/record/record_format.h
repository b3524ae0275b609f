// Binary records: what a thread writes on the hot path, and what the fragment files' blocks
// hold (timestamps already converted to trace-clock nanoseconds by the writer).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace perfmarker::record {

// Record kinds. Markers use the values of atp::MarkerKind (checked by static_asserts in
// atp/merge/merger.cpp). Kinds 16 and up are written by the tracing agents; their str0 is a
// binary payload laid out by the agent (see record/api_record.h), str1/str2 optional strings.
enum class RecordKind : uint32_t {
    MarkerBegin = 1,
    MarkerEnd = 2,
    MarkerEndEx = 3,
    ApiCall = 16,     // time = API start; payload starts with the API end time (ticks, converted)
    DeviceTimes = 17, // time = when the times were collected; payload in device nanoseconds
    ObjectInfo = 18,  // time = when the object was seen; payload and names describe it
};

constexpr bool isKnownRecordKind(uint32_t kind) {
    return (kind >= 1 && kind <= 3) || (kind >= 16 && kind <= 18);
}

// Kinds whose payload begins with a second timestamp (8 bytes) that the writer converts from
// ticks to nanoseconds together with the header's.
constexpr bool recordHasEndTime(uint32_t kind) {
    return kind == static_cast<uint32_t>(RecordKind::ApiCall);
}

// Fixed-size header; up to three strings follow, padded together to 8 bytes.
struct RecordHeader {
    uint64_t time;  // raw ticks while in a thread's chunk (below 2^62); nanoseconds once converted
    uint32_t kind;
    uint32_t len0;
    uint32_t len1;
    uint32_t len2;
};
static_assert(sizeof(RecordHeader) == 24, "records are 24 bytes plus their string bytes");
static_assert(alignof(RecordHeader) == 8, "records are 8-byte aligned");

// Writes a header at `p` as three 8-byte stores. Building a RecordHeader on the stack and
// copying it makes the compiler store 4-byte fields and reload them as one 16-byte vector,
// which stalls store forwarding on the hot path.
inline void storeHeader(unsigned char* p, uint64_t time, uint32_t kind, uint32_t len0,
                        uint32_t len1, uint32_t len2) {
    static_assert(offsetof(RecordHeader, kind) == 8 && offsetof(RecordHeader, len0) == 12 &&
                      offsetof(RecordHeader, len1) == 16 && offsetof(RecordHeader, len2) == 20,
                  "storeHeader writes the fields by offset");
    const uint64_t kindLen0 = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                                  ? (uint64_t{len0} << 32) | kind
                                  : (uint64_t{kind} << 32) | len0;
    const uint64_t len12 = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                               ? (uint64_t{len2} << 32) | len1
                               : (uint64_t{len1} << 32) | len2;
    std::memcpy(p, &time, 8);
    std::memcpy(p + 8, &kindLen0, 8);
    std::memcpy(p + 16, &len12, 8);
}

// Compact records (docs/format.md#compact-records): a marker's End, and a Begin with the strings
// of a Begin its thread recorded before, are one 8-byte word in a chunk. The word's top two bits
// tell it from a RecordHeader, whose time (absolute ticks, below 2^62: record/clock.h) has them
// clear. A compact word's ticks are relative to the recorder's tick base, in 59 bits (six years
// of 3 GHz ticks).
namespace compact {
inline constexpr uint64_t kTagMask = uint64_t{3} << 62;
inline constexpr uint64_t kEnd = uint64_t{1} << 62;    // MarkerEnd at the word's ticks
inline constexpr uint64_t kBegin = uint64_t{2} << 62;  // MarkerBegin with the slot's strings
inline constexpr uint64_t kFill = uint64_t{3} << 62;   // the next record, a MarkerBegin with no
                                                       // user string, fills the slot
inline constexpr unsigned kSlotShift = 59;
inline constexpr unsigned kSlots = 8;
inline constexpr uint64_t kTickMask = (uint64_t{1} << kSlotShift) - 1;
// A name or group of up to this many bytes can be in a slot.
inline constexpr size_t kMaxSlotString = 63;

constexpr unsigned slotOf(uint64_t word) { return (word >> kSlotShift) & (kSlots - 1); }
}  // namespace compact

constexpr size_t recordSize(size_t len0, size_t len1, size_t len2) {
    return sizeof(RecordHeader) + ((len0 + len1 + len2 + 7) & ~size_t{7});
}

// A record as read back (views into the chunk or fragment bytes).
struct RecordView {
    uint64_t time = 0;
    RecordKind kind = RecordKind::MarkerBegin;
    std::string_view str0, str1, str2;
};

// Decodes the record at `p` (with `avail` bytes left). Returns its size, or 0 when the bytes
// do not hold a whole, plausible record (a truncated or corrupt fragment).
// The fields are loaded one at a time: copying the header into a local struct makes the compiler
// move it through the stack as a vector and reload the 4-byte fields, which stalls store
// forwarding in the writer's loop.
inline size_t decodeRecord(const unsigned char* p, size_t avail, RecordView& out) {
    if (avail < sizeof(RecordHeader)) return 0;
    const auto field = [p](size_t offset) {
        uint32_t v;
        std::memcpy(&v, p + offset, sizeof v);
        return v;
    };
    const uint32_t kind = field(offsetof(RecordHeader, kind));
    const uint32_t len0 = field(offsetof(RecordHeader, len0));
    const uint32_t len1 = field(offsetof(RecordHeader, len1));
    const uint32_t len2 = field(offsetof(RecordHeader, len2));
    if (!isKnownRecordKind(kind)) return 0;
    const uint64_t strings = uint64_t{len0} + len1 + len2;
    if (strings > avail) return 0;
    const size_t size = recordSize(len0, len1, len2);
    if (size > avail) return 0;
    const char* s = reinterpret_cast<const char*>(p + sizeof(RecordHeader));
    std::memcpy(&out.time, p + offsetof(RecordHeader, time), sizeof out.time);
    out.kind = static_cast<RecordKind>(kind);
    out.str0 = {s, len0};
    out.str1 = {s + len0, len1};
    out.str2 = {s + len0 + len1, len2};
    return size;
}

// Fragment file (docs/format.md#fragments): this header, then blocks. One file per recorder of
// a process holds the blocks of all its threads, so a short-lived thread costs no file of its own.
struct FragmentHeader {
    char magic[8];  // kFragmentMagic
    uint64_t pid;
    uint64_t index;  // the recorder's number in the process (the file name's <n>)
};
inline constexpr char kFragmentMagic[8] = {'P', 'M', 'F', 'R', 'A', 'G', '0', '7'};
// Fragments of the versions before read the same way (record/fragments/packed_block.h): 06
// writes a payload against its kind's last one only, never an older kept one; 05 neither that
// nor a payload whose first word is a difference from its record's time; 04 none of those nor a
// repeated Begin (kRepeatBegin); 03 none of those nor payloads written as changed words.
inline constexpr char kFragmentMagicV6[8] = {'P', 'M', 'F', 'R', 'A', 'G', '0', '6'};
inline constexpr char kFragmentMagicV5[8] = {'P', 'M', 'F', 'R', 'A', 'G', '0', '5'};
inline constexpr char kFragmentMagicV4[8] = {'P', 'M', 'F', 'R', 'A', 'G', '0', '4'};
inline constexpr char kFragmentMagicV3[8] = {'P', 'M', 'F', 'R', 'A', 'G', '0', '3'};
static_assert(sizeof(FragmentHeader) == 24, "fragment header layout");

// A block: one thread's whole records (`bytes` of them, `records` in number), written by one
// write so a crash leaves whole blocks plus at most one cut short at the end of the file.
struct BlockHeader {
    uint64_t tid;
    uint64_t serial;   // tells apart threads of the recorder that got the same thread id
    uint32_t bytes;    // record bytes after this header
    uint32_t records;
};
static_assert(sizeof(BlockHeader) == 24, "block header layout");

}  // namespace perfmarker::record
