// The HSA API catalogue (see hsa_api.h).
#include "api/hsa_api.h"

#include <cstdio>
#include <cstring>
#include <functional>
#include <unordered_map>
#include <utility>

#include "api/group_value_key.h"

namespace perfmarker::atp {
namespace {

struct RawApi {
    unsigned slot;
    HsaTable table;
    int apiTypeId;
    const char* name;
    const char* ret;
    const char* params;
};

constexpr RawApi kRawApis[] = {
#define PM_HSA_API(slot, Table, id, name, ret, params) {slot, HsaTable::Table, id, #name, ret, params},
#include "api/hsa_api_table.inc"
};

struct RawType {
    int id;
    const char* name;
};
constexpr RawType kRawTypes[] = {
#define PM_HSA_API_TYPE(id, name) {id, #name},
#include "api/hsa_api_table.inc"
};

// Views, so that a lookup compares lengths before bytes (the merge looks up an enum or status
// for most HSA API lines).
struct RawEnum {
    std::string_view type;
    int64_t value;
    std::string_view name;
};
constexpr RawEnum kRawEnums[] = {
#define PM_HSA_ENUM(type, value, name) {#type, value, #name},
#include "api/hsa_api_table.inc"
};

HsaKind kindOf(std::string_view text, std::string& enumType) {
    static constexpr std::pair<std::string_view, HsaKind> kinds[] = {
        {"void", HsaKind::Void},     {"u8", HsaKind::U8},         {"u16", HsaKind::U16},
        {"u32", HsaKind::U32},       {"u64", HsaKind::U64},       {"i8", HsaKind::I8},
        {"i16", HsaKind::I16},       {"i32", HsaKind::I32},       {"i64", HsaKind::I64},
        {"bool", HsaKind::Bool},     {"status", HsaKind::Status}, {"agent", HsaKind::Agent},
        {"signal", HsaKind::Signal}, {"handle", HsaKind::Handle}, {"str", HsaKind::Str},
        {"fn", HsaKind::Fn},         {"ptr", HsaKind::Ptr},       {"queue", HsaKind::Queue},
        {"queue_out", HsaKind::QueueOut}};
    if (text.rfind("enum:", 0) == 0) {
        enumType = std::string(text.substr(5));
        return HsaKind::Enum;
    }
    for (const auto& [name, kind] : kinds) {
        if (name == text) return kind;
    }
    return HsaKind::Raw;
}

HsaParam parseParam(std::string_view name, std::string_view kind) {
    HsaParam p;
    p.name = std::string(name);
    if (kind.rfind("out:", 0) == 0) {
        p.out = true;
        kind.remove_prefix(4);
    }
    p.kind = kindOf(kind, p.enumType);
    return p;
}

HsaApiSpec expand(const RawApi& raw) {
    HsaApiSpec spec;
    spec.slot = raw.slot;
    spec.table = raw.table;
    spec.apiTypeId = raw.apiTypeId;
    spec.name = raw.name;
    spec.ret = parseParam("", raw.ret);
    std::string_view rest = raw.params;
    while (!rest.empty()) {
        const size_t semi = rest.find(';');
        const std::string_view item = rest.substr(0, semi);
        const size_t colon = item.find(':');
        spec.params.push_back(parseParam(item.substr(0, colon), item.substr(colon + 1)));
        rest = semi == std::string_view::npos ? std::string_view() : rest.substr(semi + 1);
    }
    return spec;
}

std::vector<HsaApiSpec> buildCatalogue() {
    std::vector<HsaApiSpec> out;
    unsigned core = 0;
    for (const RawApi& raw : kRawApis) {
        out.push_back(expand(raw));
        out.back().index = raw.table == HsaTable::Core ? core++ : raw.slot - core;
    }
    return out;
}

}  // namespace

const std::vector<HsaApiSpec>& hsaApis() {
    // Never destroyed: the agents' merge runs from an ELF destructor, after static destructors.
    static const std::vector<HsaApiSpec>& apis = *new std::vector<HsaApiSpec>(buildCatalogue());
    return apis;
}

const HsaApiSpec* hsaApiBySlot(unsigned slot) {
    const auto& apis = hsaApis();
    return slot < apis.size() ? &apis[slot] : nullptr;
}

const HsaApiSpec* hsaApiByName(std::string_view name) {
    for (const HsaApiSpec& api : hsaApis()) {
        if (api.name == name) return &api;
    }
    return nullptr;
}

unsigned hsaCoreSlotCount() {
    unsigned n = 0;
    for (const HsaApiSpec& api : hsaApis()) n += api.table == HsaTable::Core;
    return n;
}

unsigned hsaAmdExtSlotCount() { return static_cast<unsigned>(hsaApis().size()) - hsaCoreSlotCount(); }

std::string_view hsaApiTypeName(int id) {
    if (id == -1) return "UNKNOWN";
    for (const RawType& t : kRawTypes) {
        if (t.id == id) return t.name;
    }
    return {};
}

std::string_view hsaEnumName(std::string_view type, int64_t value) {
    // Indexed once: a scan of the whole table took a tenth of the HSA merge.
    static const auto* const names = [] {
        auto* map = new std::unordered_map<GroupValueKey, std::string_view, GroupValueKeyHash>();
        for (const RawEnum& e : kRawEnums) map->emplace(GroupValueKey{e.type, e.value}, e.name);
        return map;
    }();
    const auto it = names->find(GroupValueKey{type, value});
    return it == names->end() ? std::string_view() : it->second;
}

size_t hsaKindBytes(HsaKind kind) {
    switch (kind) {
        case HsaKind::U8: case HsaKind::I8: case HsaKind::Bool: return 1;
        case HsaKind::U16: case HsaKind::I16: return 2;
        case HsaKind::U32: case HsaKind::I32: case HsaKind::Status: case HsaKind::Enum: return 4;
        case HsaKind::U64: case HsaKind::I64: case HsaKind::Agent: case HsaKind::Signal:
        case HsaKind::Handle: case HsaKind::Ptr: case HsaKind::Fn: return 8;
        default: return 0;
    }
}

}  // namespace perfmarker::atp
