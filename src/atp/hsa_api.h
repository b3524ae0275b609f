// The HSA API catalogue (expanded from hsa_api_table.inc) and the text of HSA API-trace lines
// (spec §4.1). Shared by the HSA agent (which arguments to capture) and the merge step (how to
// print them); neither side needs the ROCm headers for it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "record/api_record.h"

namespace perfmarker::atp {

enum class HsaKind : uint8_t {
    Void, U8, U16, U32, U64, I8, I16, I32, I64, Bool, Status, Agent, Signal, Handle, Enum,
    Str, Fn, Ptr, Queue, QueueOut, Raw,
};

struct HsaParam {
    std::string name;
    HsaKind kind = HsaKind::Raw;
    bool out = false;       // a pointer to a value of `kind`, read after the call
    std::string enumType;   // for Enum
};

enum class HsaTable : uint8_t { Core, AmdExt };

struct HsaApiSpec {
    unsigned slot = 0;   // global slot: CoreApiTable slots first, then AmdExtTable
    HsaTable table = HsaTable::Core;
    unsigned index = 0;  // slot within its table
    int apiTypeId = -1;  // HSA_API_Type id, -1 when the format has none
    std::string name;
    HsaParam ret;        // kind Void for void APIs
    std::vector<HsaParam> params;
};

// Every slot of both tables, indexed by global slot.
const std::vector<HsaApiSpec>& hsaApis();
const HsaApiSpec* hsaApiBySlot(unsigned slot);
const HsaApiSpec* hsaApiByName(std::string_view name);
unsigned hsaCoreSlotCount();
unsigned hsaAmdExtSlotCount();

// The HSA_API_Type name of an id ("" when unknown); -1 is "UNKNOWN".
std::string_view hsaApiTypeName(int id);
constexpr int kHsaApiTypeCount = 199;  // HSA_API_Type_COUNT of Appendix B

// The constant's name in enum `type`, or "" when the value has none.
std::string_view hsaEnumName(std::string_view type, int64_t value);

// Bytes a value of `kind` occupies in memory (0 for kinds with no fixed pointee).
size_t hsaKindBytes(HsaKind kind);

// Field offsets of hsa_queue_t as the agent captures it (checked against the ROCm header by
// the agent): type u32 @0, features u32 @4, base_address @8, doorbell_signal @16, size u32
// @24, reserved1 u32 @28, id u64 @32.
inline constexpr size_t kHsaQueueBytes = 40;
std::string formatHsaQueue(std::string_view bytes);

// Agent handle -> name, for `{handle=...,name=...}`.
using HsaAgentNames = std::unordered_map<uint64_t, std::string>;

// The API-trace line of one call, without its line end. False with `error` when the record's
// slot is unknown.
bool formatHsaApiLine(const record::ApiCallView& call, const HsaAgentNames& agents,
                      std::string& line, std::string& error);

// The HTML-escaped token of spec §0 (space, comma, &, #, <, >, @).
std::string hsaEscapeName(std::string_view raw);

// "0x" + hex, lower case, as a pointer streams on Linux; "NULL" for 0.
std::string hsaPointer(uint64_t value);

}  // namespace perfmarker::atp
