#include "record/session.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <type_traits>

namespace perfmarker::record {
namespace {

struct ParseContext {
    const char* name;
    const char* value;
    std::string* error;
};

bool fail(const ParseContext& ctx, const char* expected) {
    *ctx.error = std::string(ctx.name) + "='" + ctx.value + "': expected " + expected;
    return false;
}

bool parseUnsigned(const ParseContext& ctx, uint32_t lo, uint32_t hi, const char* expected,
                   uint32_t& out) {
    errno = 0;
    char* end = nullptr;
    unsigned long long v = std::strtoull(ctx.value, &end, 10);
    if (ctx.value[0] < '0' || ctx.value[0] > '9' || *end != '\0' || errno == ERANGE || v < lo ||
        v > hi) {
        return fail(ctx, expected);
    }
    out = static_cast<uint32_t>(v);
    return true;
}

bool parseField(const ParseContext& ctx, std::string& out) {  // Path
    if (ctx.value[0] == '\0') return fail(ctx, "a non-empty path");
    out = ctx.value;
    return true;
}

bool parseField(const ParseContext& ctx, FlushMode& out) {  // Mode
    if (std::strcmp(ctx.value, "timeout") == 0) {
        out = FlushMode::Timeout;
    } else if (std::strcmp(ctx.value, "cached") == 0) {
        out = FlushMode::Cached;
    } else {
        return fail(ctx, "'timeout' or 'cached'");
    }
    return true;
}

bool parseField(const ParseContext& ctx, bool& out) {  // Bool
    if (std::strcmp(ctx.value, "0") != 0 && std::strcmp(ctx.value, "1") != 0) {
        return fail(ctx, "0 or 1");
    }
    out = ctx.value[0] == '1';
    return true;
}

// Millis, Megabytes and Count share uint32_t; the range is chosen by the kind tag.
struct Millis {};
struct Megabytes {};
struct Count {};
struct Bool {};
struct Path {};
struct Mode {};

template <typename Kind, typename Field>
bool parseKind(const ParseContext& ctx, Field& out) {
    if constexpr (std::is_same_v<Kind, Millis>) {
        return parseUnsigned(ctx, 1, 3600000, "milliseconds in 1..3600000", out);
    } else if constexpr (std::is_same_v<Kind, Megabytes>) {
        return parseUnsigned(ctx, 1, 1048576, "megabytes in 1..1048576", out);
    } else if constexpr (std::is_same_v<Kind, Count>) {
        return parseUnsigned(ctx, 0, 4294967295u, "a count in 0..4294967295", out);
    } else {
        return parseField(ctx, out);
    }
}

}  // namespace

SessionResult readSession(EnvLookup lookup) {
    if (lookup == nullptr) lookup = [](const char* n) -> const char* { return std::getenv(n); };
    SessionResult result;
    const char* output = lookup("PERFMARKER_OUTPUT");
    if (output == nullptr) return result;  // Absent
    result.status = SessionStatus::Present;
    // Defaults come from the same table as the variables.
#define PERFMARKER_SESSION_OPTION(field, env, kind, def, help)  \
    if (def[0] != '\0') {                                     \
        ParseContext ctx{env, def, &result.error};             \
        parseKind<kind>(ctx, result.config.field);             \
    }
#include "record/session_options.inc"
#undef PERFMARKER_SESSION_OPTION
#define PERFMARKER_SESSION_OPTION(field, env, kind, def, help)                        \
    if (const char* v = lookup(env); v != nullptr && result.error.empty()) {         \
        ParseContext ctx{env, v, &result.error};                                      \
        if (!parseKind<kind>(ctx, result.config.field)) result.status = SessionStatus::Invalid; \
    }
#include "record/session_options.inc"
#undef PERFMARKER_SESSION_OPTION
    return result;
}

std::string expandPid(const std::string& base, long pid) {
    static const std::string kToken = "___PID___";
    std::string out = base;
    const std::string value = std::to_string(pid);
    for (size_t pos = out.find(kToken); pos != std::string::npos;
         pos = out.find(kToken, pos + value.size())) {
        out.replace(pos, kToken.size(), value);
    }
    return out;
}

std::string directoryOf(const std::string& path) {
    size_t slash = path.rfind('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

std::string sessionOptionsMarkdown() {
    std::string out = "| variable | default | meaning |\n| --- | --- | --- |\n";
#define PERFMARKER_SESSION_OPTION(field, env, kind, def, help) \
    out += std::string("| `") + env + "` | " + (def[0] ? std::string("`") + def + "`" : "(none)") + " | " + help + " |\n";
#include "record/session_options.inc"
#undef PERFMARKER_SESSION_OPTION
    return out;
}

}  // namespace perfmarker::record
