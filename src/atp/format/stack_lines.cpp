// Stack Trace entry lines (docs/call-sites.md#the-lines-we-write).
#include "atp/format/stack_lines.h"

#include "atp/format/decimal.h"
#include "atp/format/perfmarker_section.h"

namespace perfmarker::atp {
namespace {

// A field that may be empty: nothing for "" (appendEscapedToken would write &empty;, which the
// Stack Trace reader does not decode).
void appendField(std::string& out, std::string_view raw) {
    if (!raw.empty()) appendEscapedToken(out, raw);
}

void appendHex(std::string& out, uint64_t value) {
    static constexpr char kDigits[] = "0123456789abcdef";
    char buffer[16];
    size_t first = sizeof buffer;
    do {
        buffer[--first] = kDigits[value & 0xf];
        value >>= 4;
    } while (value != 0);
    out.append("0x");
    out.append(buffer + first, sizeof buffer - first);
}

}  // namespace

void appendStackSymbolLine(std::string& out, std::string_view api, std::string_view function,
                           uint64_t line, std::string_view file) {
    out.append(api);
    out.push_back('\t');
    appendField(out, function.empty() ? kUnknownFunction : function);
    out.push_back('\t');
    appendDecimal(out, line);
    out.push_back('\t');
    appendField(out, file);
    out.push_back('\n');
}

void appendStackModuleLine(std::string& out, std::string_view api, std::string_view module,
                           uint64_t offset) {
    out.append(api);
    out.push_back('\t');
    appendField(out, moduleFileName(module));
    out.push_back('+');
    appendHex(out, offset);
    out.push_back('\n');
}

void appendStackBareLine(std::string& out, std::string_view api) {
    out.append(api);
    out.push_back('\n');
}

void appendStackLine(std::string& out, std::string_view api, const CallSiteText& site) {
    if (!site.function.empty() || site.line != 0 || !site.file.empty()) {
        appendStackSymbolLine(out, api, site.function, site.line, site.file);
    } else if (!site.module.empty()) {
        appendStackModuleLine(out, api, site.module, site.offset);
    } else {
        appendStackBareLine(out, api);
    }
}

std::string_view moduleFileName(std::string_view path) {
    const size_t slash = path.rfind('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace perfmarker::atp
