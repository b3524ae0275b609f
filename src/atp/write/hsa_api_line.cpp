// The text of HSA API-trace lines (see hsa_api_line.h). Every piece is appended to the line in
// place: the merge formats one line per recorded call (docs/performance.md, the HSA merge).
#include "atp/write/hsa_api_line.h"

#include <cstring>

#include "atp/format/decimal.h"
#include "atp/write/ocl_api_line.h"

namespace perfmarker::atp {
namespace {

int64_t signExtend(uint64_t v, unsigned bits) {
    if (bits >= 64) return static_cast<int64_t>(v);
    const uint64_t sign = uint64_t{1} << (bits - 1);
    v &= (sign << 1) - 1;
    return static_cast<int64_t>((v ^ sign) - sign);
}

void appendQuoted(std::string& out, std::string_view s) {
    const size_t nul = s.find('\0');
    if (nul != std::string_view::npos) s = s.substr(0, nul);
    const bool cut = s.size() > 60;
    if (cut) s = s.substr(0, 60);
    out += "[\"";
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
}

// The name of `value` in enum `type`, else its number.
void appendEnum(std::string& out, std::string_view type, uint64_t v) {
    const int64_t value = signExtend(v, 32);
    const std::string_view name = hsaEnumName(type, value);
    if (name.empty()) {
        appendSignedDecimal(out, value);
    } else {
        out += name;
    }
}

// A value of `kind` (not a pointer to one).
void appendValue(std::string& out, const HsaParam& p, uint64_t v, const HsaAgentNames& agents) {
    switch (p.kind) {
        case HsaKind::U8: return appendDecimal(out, v & 0xff);
        case HsaKind::U16: return appendDecimal(out, v & 0xffff);
        case HsaKind::U32: return appendDecimal(out, v & 0xffffffffu);
        case HsaKind::I8: return appendSignedDecimal(out, signExtend(v, 8));
        case HsaKind::I16: return appendSignedDecimal(out, signExtend(v, 16));
        case HsaKind::I32: return appendSignedDecimal(out, signExtend(v, 32));
        case HsaKind::I64: return appendSignedDecimal(out, signExtend(v, 64));
        case HsaKind::Bool: out += (v & 0xff) != 0 ? "true" : "false"; return;
        case HsaKind::Status: return appendEnum(out, "hsa_status_t", v);
        case HsaKind::Enum: return appendEnum(out, p.enumType, v);
        case HsaKind::Agent: {
            out += "{handle=";
            appendDecimal(out, v);
            out += ",name=";
            const auto it = agents.find(v);
            if (it == agents.end()) {
                out += "<UnknownDeviceName>";
            } else {
                appendHsaEscapedName(out, it->second);
            }
            out += '}';
            return;
        }
        case HsaKind::Signal:
        case HsaKind::Handle:
            out += '{';
            appendDecimal(out, v);
            out += '}';
            return;
        case HsaKind::Fn:
            if (v == 0) {
                out += '0';
                return;
            }
            return appendOclHandle(out, v);
        case HsaKind::Ptr:
        case HsaKind::Str:
        case HsaKind::Queue:
        case HsaKind::QueueOut: return appendOclHandle(out, v);
        default: return appendDecimal(out, v);
    }
}

void appendParameter(std::string& out, const HsaParam& p, size_t index,
                     const record::ApiCallView& call, const HsaAgentNames& agents) {
    const uint64_t raw = call.arg(index);
    record::CaptureEncoding encoding{};
    std::string_view bytes;
    const bool have = raw != 0 && call.captured(index, encoding, bytes);
    if (p.out) {
        uint64_t v = 0;
        if (!have || bytes.size() < sizeof v) return appendOclHandle(out, raw);
        std::memcpy(&v, bytes.data(), sizeof v);
        out += '[';
        appendValue(out, p, v, agents);
        out += ']';
        return;
    }
    if (p.kind == HsaKind::Str && have) return appendQuoted(out, bytes);
    if (p.kind == HsaKind::Queue && have) {
        out += '[';
        appendHsaQueue(out, bytes);
        out += ']';
        return;
    }
    if (p.kind == HsaKind::QueueOut && have) {
        out += "[[";
        appendHsaQueue(out, bytes);
        out += "]]";
        return;
    }
    appendValue(out, p, raw, agents);
}

}  // namespace

void appendHsaQueue(std::string& out, std::string_view bytes) {
    if (bytes.size() < kHsaQueueBytes) {
        out += "{}";
        return;
    }
    // Each field: its offset and size, then what follows it.
    struct Field {
        size_t at;
        size_t size;
        const char* after;
    };
    static constexpr Field kFields[] = {{0, 4, ","},  {4, 4, ","},  {8, 8, ",{"}, {16, 8, "},"},
                                        {24, 4, ","}, {28, 4, ","}, {32, 8, "}"}};
    out += '{';
    for (const Field& f : kFields) {
        uint32_t v32 = 0;
        uint64_t v64 = 0;
        if (f.size == 4) {
            std::memcpy(&v32, bytes.data() + f.at, sizeof v32);
        } else {
            std::memcpy(&v64, bytes.data() + f.at, sizeof v64);
        }
        appendDecimal(out, f.size == 4 ? v32 : v64);
        out += f.after;
    }
}

std::string formatHsaQueue(std::string_view bytes) {
    std::string out;
    appendHsaQueue(out, bytes);
    return out;
}

bool appendHsaApiLine(const record::ApiCallView& call, const HsaAgentNames& agents,
                      std::string& out, std::string& error) {
    const HsaApiSpec* api = hsaApiBySlot(call.head.slot);
    if (api == nullptr) {
        error = "unknown HSA table slot " + std::to_string(call.head.slot);
        return false;
    }
    if (api->ret.kind != HsaKind::Void) {
        appendValue(out, api->ret, call.head.ret, agents);
        out += " = ";
    }
    out += api->name;
    out += " ( ";
    for (size_t i = 0; i < api->params.size(); ++i) {
        if (i > 0) out += ';';
        out += api->params[i].name;
        out += '=';
        appendParameter(out, api->params[i], i, call, agents);
    }
    // "name (  )" for an API without parameters, as docs/format.md#hsa-api-trace shows
    out += " )";
    return true;
}

std::string_view hsaCallName(const record::ApiCallView& call) {
    if (const HsaApiSpec* api = hsaApiBySlot(call.head.slot)) return api->name;
    const std::string_view name = hsaApiTypeName(static_cast<int32_t>(call.head.apiId));
    return name.empty() ? hsaApiTypeName(-1) : name;
}

bool formatHsaApiLine(const record::ApiCallView& call, const HsaAgentNames& agents,
                      std::string& line, std::string& error) {
    line.clear();
    return appendHsaApiLine(call, agents, line, error);
}

void appendHsaEscapedName(std::string& out, std::string_view raw) {
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
}

std::string hsaEscapeName(std::string_view raw) {
    std::string out;
    appendHsaEscapedName(out, raw);
    return out;
}

std::string hsaPointer(uint64_t value) { return oclHandleString(value); }

}  // namespace perfmarker::atp
