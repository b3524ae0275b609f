// The HSA API catalogue and API-line formatting (see hsa_api.h).
#include "atp/hsa_api.h"

#include <cstdio>
#include <cstring>
#include <utility>

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
#include "atp/hsa_api_table.inc"
};

struct RawType {
    int id;
    const char* name;
};
constexpr RawType kRawTypes[] = {
#define PM_HSA_API_TYPE(id, name) {id, #name},
#include "atp/hsa_api_table.inc"
};

struct RawEnum {
    const char* type;
    int64_t value;
    const char* name;
};
constexpr RawEnum kRawEnums[] = {
#define PM_HSA_ENUM(type, value, name) {#type, value, #name},
#include "atp/hsa_api_table.inc"
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

std::string decimal(uint64_t v) { return std::to_string(v); }

int64_t signExtend(uint64_t v, unsigned bits) {
    if (bits >= 64) return static_cast<int64_t>(v);
    const uint64_t sign = uint64_t{1} << (bits - 1);
    v &= (sign << 1) - 1;
    return static_cast<int64_t>((v ^ sign) - sign);
}

std::string quoted(std::string_view s) {
    const size_t nul = s.find('\0');
    if (nul != std::string_view::npos) s = s.substr(0, nul);
    const bool cut = s.size() > 60;
    if (cut) s = s.substr(0, 60);
    std::string out = "[\"";
    for (const char c : s) {
        if (c == '\n') {
            out += "\\n";
        } else if (c == '"') {
            out += "\\\"";
        } else {
            out += c;
        }
    }
    out += cut ? "\"...]" : "\"]";
    return out;
}

// A value of `kind` (not a pointer to one).
std::string value(const HsaParam& p, uint64_t v, const HsaAgentNames& agents) {
    switch (p.kind) {
        case HsaKind::U8: return decimal(v & 0xff);
        case HsaKind::U16: return decimal(v & 0xffff);
        case HsaKind::U32: return decimal(v & 0xffffffffu);
        case HsaKind::I8: return std::to_string(signExtend(v, 8));
        case HsaKind::I16: return std::to_string(signExtend(v, 16));
        case HsaKind::I32: return std::to_string(signExtend(v, 32));
        case HsaKind::I64: return std::to_string(signExtend(v, 64));
        case HsaKind::Bool: return (v & 0xff) != 0 ? "true" : "false";
        case HsaKind::Status: {
            const std::string_view n = hsaEnumName("hsa_status_t", signExtend(v, 32));
            return n.empty() ? std::to_string(signExtend(v, 32)) : std::string(n);
        }
        case HsaKind::Enum: {
            const std::string_view n = hsaEnumName(p.enumType, signExtend(v, 32));
            return n.empty() ? std::to_string(signExtend(v, 32)) : std::string(n);
        }
        case HsaKind::Agent: {
            const auto it = agents.find(v);
            return "{handle=" + decimal(v) + ",name=" +
                   (it == agents.end() ? std::string("<UnknownDeviceName>") : hsaEscapeName(it->second)) + "}";
        }
        case HsaKind::Signal:
        case HsaKind::Handle: return "{" + decimal(v) + "}";
        case HsaKind::Fn: return v == 0 ? "0" : hsaPointer(v);
        case HsaKind::Ptr:
        case HsaKind::Str:
        case HsaKind::Queue:
        case HsaKind::QueueOut: return hsaPointer(v);
        default: return decimal(v);
    }
}

std::string parameter(const HsaParam& p, size_t index, const record::ApiCallView& call,
                      const HsaAgentNames& agents) {
    const uint64_t raw = call.arg(index);
    record::CaptureEncoding encoding{};
    std::string_view bytes;
    const bool have = raw != 0 && call.captured(index, encoding, bytes);
    if (p.out) {
        uint64_t v = 0;
        if (!have || bytes.size() < sizeof v) return hsaPointer(raw);
        std::memcpy(&v, bytes.data(), sizeof v);
        return "[" + value(p, v, agents) + "]";
    }
    if (p.kind == HsaKind::Str && have) return quoted(bytes);
    if (p.kind == HsaKind::Queue && have) return "[" + formatHsaQueue(bytes) + "]";
    if (p.kind == HsaKind::QueueOut && have) return "[[" + formatHsaQueue(bytes) + "]]";
    return value(p, raw, agents);
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
    for (const RawEnum& e : kRawEnums) {
        if (e.value == value && type == e.type) return e.name;
    }
    return {};
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

std::string formatHsaQueue(std::string_view bytes) {
    if (bytes.size() < kHsaQueueBytes) return "{}";
    const auto u32 = [&](size_t at) {
        uint32_t v;
        std::memcpy(&v, bytes.data() + at, sizeof v);
        return decimal(v);
    };
    const auto u64 = [&](size_t at) {
        uint64_t v;
        std::memcpy(&v, bytes.data() + at, sizeof v);
        return decimal(v);
    };
    return "{" + u32(0) + "," + u32(4) + "," + u64(8) + ",{" + u64(16) + "}," + u32(24) + "," +
           u32(28) + "," + u64(32) + "}";
}

bool formatHsaApiLine(const record::ApiCallView& call, const HsaAgentNames& agents,
                      std::string& line, std::string& error) {
    const HsaApiSpec* api = hsaApiBySlot(call.head.slot);
    if (api == nullptr) {
        error = "unknown HSA table slot " + std::to_string(call.head.slot);
        return false;
    }
    line.clear();
    if (api->ret.kind != HsaKind::Void) line += value(api->ret, call.head.ret, agents) + " = ";
    line += api->name + " ( ";
    for (size_t i = 0; i < api->params.size(); ++i) {
        if (i > 0) line += ';';
        line += api->params[i].name + "=" + parameter(api->params[i], i, call, agents);
    }
    line += " )";  // "name (  )" for an API without parameters, as spec §4.1 shows
    return true;
}

std::string hsaEscapeName(std::string_view raw) {
    std::string out;
    for (const char c : raw) {
        switch (c) {
            case ' ': out += "&nbsp;"; break;
            case ',': out += "&comma;"; break;
            case '&': out += "&amp;"; break;
            case '#': out += "&#35;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '@': out += "&#64;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string hsaPointer(uint64_t value) {
    if (value == 0) return "NULL";
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(value));
    return buf;
}

}  // namespace perfmarker::atp
