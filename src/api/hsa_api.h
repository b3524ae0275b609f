// The HSA API catalogue (expanded from hsa_api_table.inc): slots, names, parameter kinds and
// enum names. Shared by the HSA agent (which arguments to capture), the section writer
// (atp/write/hsa_api_line.h: how to print them) and the tools; none of them needs the ROCm
// headers for it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>


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
constexpr int kHsaApiTypeCount = 199;  // HSA_API_Type_COUNT (docs/format.md#hsa-api-ids)

// The constant's name in enum `type`, or "" when the value has none.
std::string_view hsaEnumName(std::string_view type, int64_t value);

// Bytes a value of `kind` occupies in memory (0 for kinds with no fixed pointee).
size_t hsaKindBytes(HsaKind kind);

}  // namespace perfmarker::atp
