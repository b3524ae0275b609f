// The text of HSA API-trace lines (see hsa_api_line.h).
#include "atp/write/hsa_api_line.h"

#include <cstdio>
#include <cstring>

#include "atp/write/ocl_api_line.h"

namespace perfmarker::atp {
namespace {

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
    // "name (  )" for an API without parameters, as docs/format.md#hsa-api-trace shows
    line += " )";
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

std::string hsaPointer(uint64_t value) { return oclHandleString(value); }

}  // namespace perfmarker::atp
