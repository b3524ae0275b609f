#include "atp/write/ocl_api_line.h"

#include <array>
#include <cstdio>
#include <cstring>
#include <vector>

#include "api/ocl_api.h"
#include "atp/format/decimal.h"

namespace perfmarker::atp {
namespace {

using namespace ocl;
using record::ApiCallView;
using record::CapturedHead;
using record::CaptureEncoding;

constexpr int32_t kSuccess = 0;

// Command types the Khronos headers do not group with cl_command_type
// (docs/format.md#command-types).
constexpr std::pair<uint32_t, const char*> kExtraCommandTypes[] = {
    {0x200D, "CL_COMMAND_GL_FENCE_SYNC_OBJECT_KHR"},
    {0x4017, "CL_COMMAND_ACQUIRE_D3D10_OBJECTS_KHR"},
    {0x4018, "CL_COMMAND_RELEASE_D3D10_OBJECTS_KHR"},
    {0x4080, "CL_COMMAND_WAIT_SIGNAL_AMD"},
    {0x4081, "CL_COMMAND_WRITE_SIGNAL_AMD"},
    {0x4082, "CL_COMMAND_MAKE_BUFFERS_RESIDENT_AMD"},
};

// Names by CL_FUNC_TYPE id, including the APIs that are no dispatch slot.
struct FuncType {
    const char* name;
    bool isEnqueue;
};
constexpr int kFuncTypeCount = 147;  // ids 0..145 and Unknown (146)

const std::vector<FuncType>& funcTypes() {
    static const std::vector<FuncType>* table = [] {
        auto* t = new std::vector<FuncType>(kFuncTypeCount, FuncType{nullptr, false});
#define PM_CL_API(slot, id, enq, Ret, name, params, args) \
    if ((id) >= 0) (*t)[id] = FuncType{#name, (enq) != 0};
#define PM_CL_API_RESERVED(slot, id, enq, field) \
    if ((id) >= 0) (*t)[id] = FuncType{#field, (enq) != 0};
#define PM_CL_API_NOT_IN_DISPATCH(id, enq, name) (*t)[id] = FuncType{#name, (enq) != 0};
#include "api/cl_api_table.inc"
        return t;
    }();
    return *table;
}

std::string decimal(uint64_t v) { return std::to_string(v); }
std::string decimalSigned(int64_t v) { return std::to_string(v); }

// The common parameters are appended to the line in place: a string per parameter, and the
// concatenations that joined them, were a third of the merge (docs/performance.md).
// The two hex digits of every byte value, lower and upper case.
struct HexPairs {
    char lower[512];
    char upper[512];
};
constexpr HexPairs makeHexPairs() {
    HexPairs t{};
    for (int i = 0; i < 256; ++i) {
        t.lower[2 * i] = "0123456789abcdef"[i >> 4];
        t.lower[2 * i + 1] = "0123456789abcdef"[i & 15];
        t.upper[2 * i] = "0123456789ABCDEF"[i >> 4];
        t.upper[2 * i + 1] = "0123456789ABCDEF"[i & 15];
    }
    return t;
}
constexpr HexPairs kHexPairs = makeHexPairs();

// "0x" and the hex digits of v (as printf's "0x%llX" / "0x%llx"), without printf's parsing and
// two digits a step: handles are formatted for most lines of a trace, several per line.
void appendHex(std::string& out, uint64_t v, bool upper) {
    const char* const pairs = upper ? kHexPairs.upper : kHexPairs.lower;
    char buf[18];
    char* const end = buf + sizeof buf;
    char* p = end;
    for (; v >= 0x100; v >>= 8) {
        p -= 2;
        std::memcpy(p, pairs + 2 * (v & 0xff), 2);
    }
    if (v >= 0x10) {
        p -= 2;
        std::memcpy(p, pairs + 2 * v, 2);
    } else {
        *--p = pairs[2 * v + 1];
    }
    *--p = 'x';
    *--p = '0';
    out.append(p, static_cast<size_t>(end - p));
}

void appendHandle(std::string& out, uint64_t v) {
    if (v == 0) {
        out.append("NULL");
    } else {
        appendHex(out, v, false);
    }
}

void appendEnum(std::string& out, std::string_view group, int64_t value) {
    const std::string_view name = nameOf(group, value);
    if (name.empty()) {
        appendSignedDecimal(out, value);
    } else {
        out.append(name);
    }
}

// cl_error's names, found once: every cl_int return value is one of them.
void appendError(std::string& out, int32_t code) {
    static const NameList* const errors = namesOf("cl_error");
    if (errors != nullptr) {
        for (const auto& [value, name] : *errors) {
            if (value == code) {
                out.append(name);
                return;
            }
        }
    }
    appendSignedDecimal(out, code);
}

std::string enumString(std::string_view group, int64_t value) {
    std::string out;
    appendEnum(out, group, value);
    return out;
}

std::string flagsString(std::string_view group, uint64_t value) {
    if (value == 0) return "0";
    const std::string_view exact = nameOf(group, static_cast<int64_t>(value));
    if (!exact.empty() && (value & (value - 1)) != 0) return std::string(exact);  // e.g. TYPE_ALL
    std::string out;
    uint64_t rest = value;
    if (const NameList* names = namesOf(group)) {
        for (const auto& [v, name] : *names) {
            const auto bit = static_cast<uint64_t>(v);
            if (bit == 0 || (bit & (bit - 1)) != 0 || (rest & bit) == 0) continue;
            if (!out.empty()) out += '|';
            out += name;
            rest &= ~bit;
        }
    }
    if (rest != 0) {
        if (!out.empty()) out += '|';
        out += decimal(rest);
    }
    return out;
}

std::string boolString(uint64_t v) { return v == 1 ? "CL_TRUE" : v == 0 ? "CL_FALSE" : decimal(v); }

// Escapes a returned string (docs/format.md#parameters: newline, CR, tab and quote).
void appendQuoted(std::string& out, std::string_view s, size_t limit) {
    const size_t nul = s.find('\0');
    if (nul != std::string_view::npos) s = s.substr(0, nul);
    const bool cut = s.size() > limit;
    if (cut) s = s.substr(0, limit);
    out.push_back('"');
    // Runs of plain bytes in one append each; a byte is looked up, not switched on.
    static constexpr auto kEscaped = [] {
        std::array<bool, 256> t{};
        for (const unsigned char c : {'\n', '\r', '\t', '"'}) t[c] = true;
        return t;
    }();
    size_t run = 0;
    for (size_t i = 0; i < s.size(); ++i) {
        if (!kEscaped[static_cast<unsigned char>(s[i])]) continue;
        const char c = s[i];
        const char* const escape = c == '\n'   ? "\\n"
                                   : c == '\r' ? "\\r"
                                   : c == '\t' ? "\\t"
                                               : "\\\"";
        out.append(s.data() + run, i - run).append(escape);
        run = i + 1;
    }
    out.append(s.data() + run, s.size() - run);
    if (cut) out += "...";
    out.push_back('"');
}

template <typename T>
std::vector<T> elements(std::string_view bytes) {
    std::vector<T> out(bytes.size() / sizeof(T));
    if (!out.empty()) std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
    return out;
}

template <typename T, typename F>
std::string joined(std::string_view bytes, F format) {
    std::string out;
    for (const T& v : elements<T>(bytes)) {
        if (!out.empty()) out += ',';
        out += format(v);
    }
    return out;
}

uint64_t scalarOf(std::string_view bytes) {
    uint64_t v = 0;
    std::memcpy(&v, bytes.data(), bytes.size() < 8 ? bytes.size() : 8);
    return v;
}

// One ApiCall record being formatted against its catalogue entry.
class LineBuilder {
public:
    LineBuilder(const ApiCallView& call, const ApiSpec& api, std::string& error)
        : m_call(call), m_api(api), m_error(error) {}

    // Append parameter i, or the return value, to `out`.
    bool param(size_t i, std::string& out);
    void returnValue(std::string& out) const;

private:
    bool fail(size_t i, const char* what) {
        m_error = std::string(m_api.name) + " argument " + std::to_string(i) + " (" +
                  std::string(m_api.params[i].name) + "): " + what;
        return false;
    }
    bool capture(size_t i, CaptureEncoding expected, std::string_view& bytes, bool& present);
    bool bracketed(size_t i, std::string& out);
    std::string bytesValue(const ParamSpec& p, std::string_view bytes) const;
    void infoValue(std::string_view bytes, std::string& out) const;
    std::string propertyList(const ParamSpec& p, std::string_view bytes) const;
    std::string imageDesc(std::string_view bytes) const;
    void kernelArg(size_t i, std::string_view bytes, bool present, std::string& out) const;
    bool succeeded() const { return static_cast<int32_t>(m_call.head.ret) == kSuccess; }

    const ApiCallView& m_call;
    const ApiSpec& m_api;
    std::string& m_error;
};

// Finds the capture of argument i; checks its encoding and size against the rule.
bool LineBuilder::capture(size_t i, CaptureEncoding expected, std::string_view& bytes,
                          bool& present) {
    CaptureEncoding encoding{};
    present = m_call.captured(i, encoding, bytes);
    if (!present) return true;
    if (encoding != expected) return fail(i, "captured with the wrong encoding");
    const ParamSpec& p = m_api.params[i];
    size_t unit = 1;
    switch (p.kind) {
        case ParamKind::OutScalar:
        case ParamKind::OutError:
        case ParamKind::OutHandle:
        case ParamKind::KernelArgValue:
            if (bytes.size() != 8) return fail(i, "scalar capture is not 8 bytes");
            break;
        case ParamKind::ErrorArray:
            unit = 4;
            break;
        case ParamKind::ImageDesc:
            if (bytes.size() != kImageDescBytes) return fail(i, "image descriptor size");
            break;
        case ParamKind::BufferRegion:
            if (bytes.size() != 16) return fail(i, "buffer region size");
            break;
        case ParamKind::HandleArray:
        case ParamKind::SizeArray:
        case ParamKind::ImageFormat:
        case ParamKind::Properties:
            unit = 8;
            break;
        default:
            break;
    }
    if (bytes.size() % unit != 0) return fail(i, "capture is not a whole number of elements");
    return true;
}

CaptureEncoding encodingOf(ParamKind k) {
    switch (k) {
        case ParamKind::OutScalar:
        case ParamKind::OutError:
        case ParamKind::OutHandle:
            return CaptureEncoding::Scalar;
        case ParamKind::String:
            return CaptureEncoding::String;
        default:
            return CaptureEncoding::Bytes;
    }
}

bool LineBuilder::param(size_t i, std::string& out) {
    const ParamSpec& p = m_api.params[i];
    const uint64_t v = m_call.arg(i);
    switch (p.kind) {
        case ParamKind::Handle:
            appendHandle(out, v);
            return true;
        case ParamKind::Unsigned:
            appendDecimal(out, v);
            return true;
        case ParamKind::Signed:
            appendSignedDecimal(out, static_cast<int32_t>(v));
            return true;
        case ParamKind::Bool:
            out += boolString(v);
            return true;
        case ParamKind::Enum:
            appendEnum(out, p.group, static_cast<int64_t>(v));
            return true;
        case ParamKind::Flags:
            out += flagsString(p.group, v);
            return true;
        default:
            return bracketed(i, out);
    }
}

// Parameters printed from what they point to: NULL, or [..] / "..".
bool LineBuilder::bracketed(size_t i, std::string& out) {
    const ParamSpec& p = m_api.params[i];
    std::string_view bytes;
    bool present = false;
    if (!capture(i, encodingOf(p.kind), bytes, present)) return false;
    if (p.kind == ParamKind::KernelArgValue) {
        kernelArg(i, bytes, present, out);
        return true;
    }
    if (m_call.arg(i) == 0) {
        out.append("NULL");
        return true;
    }
    if (p.kind == ParamKind::String) {
        if (present) {
            out.append("\"").append(bytes).append("\"");
        } else {
            appendHandle(out, m_call.arg(i));
        }
        return true;
    }
    out.push_back('[');
    if (p.kind == ParamKind::InfoValue) {
        if (present && succeeded()) infoValue(bytes, out);
    } else if (present) {
        out += bytesValue(p, bytes);
    }
    out.push_back(']');
    return true;
}

std::string LineBuilder::bytesValue(const ParamSpec& p, std::string_view bytes) const {
    const auto hex = [](uint64_t h) { return oclHandleString(h); };
    const auto dec = [](uint64_t n) { return decimal(n); };
    switch (p.kind) {
        case ParamKind::OutScalar:
            return p.group.empty() ? decimal(scalarOf(bytes))
                                   : flagsString(p.group, scalarOf(bytes));
        case ParamKind::OutError:
            return oclErrorName(static_cast<int32_t>(scalarOf(bytes)));
        case ParamKind::OutHandle:
            return oclHandleString(scalarOf(bytes));
        case ParamKind::HandleArray:
            return joined<uint64_t>(bytes, hex);
        case ParamKind::SizeArray:
            return joined<uint64_t>(bytes, dec);
        case ParamKind::ErrorArray:
            return joined<int32_t>(bytes, [](int32_t e) { return oclErrorName(e); });
        case ParamKind::ImageFormat:
            return joined<uint64_t>(bytes, [](uint64_t f) {
                return "{" + enumString("cl_channel_order", static_cast<uint32_t>(f)) + "," +
                       enumString("cl_channel_type", static_cast<uint32_t>(f >> 32)) + "}";
            });
        case ParamKind::ImageDesc:
            return imageDesc(bytes);
        case ParamKind::BufferRegion: {
            const auto r = elements<uint64_t>(bytes);
            return "{" + decimal(r[0]) + "," + decimal(r[1]) + "}";
        }
        case ParamKind::Properties:
            return propertyList(p, bytes);
        default:
            return {};
    }
}

// [{NAME,value,...,NULL}]: names symbolic, values decimal; "...}" when the agent cut the list.
std::string LineBuilder::propertyList(const ParamSpec& p, std::string_view bytes) const {
    const auto values = elements<int64_t>(bytes);
    std::string out = "{";
    size_t k = 0;
    for (; k < values.size() && values[k] != 0; k += 2) {
        out += enumString(p.group, values[k]);
        if (k + 1 < values.size()) out += "," + decimalSigned(values[k + 1]);
        out += ",";
    }
    return out + (k < values.size() ? "NULL}" : "...}");
}

// cl_image_desc (LP64): type, pad, width, height, depth, array size, row pitch, slice pitch,
// mip levels, samples, buffer.
std::string LineBuilder::imageDesc(std::string_view bytes) const {
    uint32_t type = 0, mips = 0, samples = 0;
    uint64_t sizes[6] = {};
    uint64_t buffer = 0;
    std::memcpy(&type, bytes.data(), 4);
    std::memcpy(sizes, bytes.data() + 8, sizeof sizes);
    std::memcpy(&mips, bytes.data() + 56, 4);
    std::memcpy(&samples, bytes.data() + 60, 4);
    std::memcpy(&buffer, bytes.data() + 64, 8);
    std::string out = "{" + enumString("cl_mem_object_type", type);
    for (uint64_t s : sizes) out += "," + decimal(s);
    return out + "," + decimal(mips) + "," + decimal(samples) + "," + oclHandleString(buffer) + "}";
}

// clSetKernelArg: a pointer-sized argument is shown by value (its low 32 bits, as the original
// read it, docs/format.md#parameters); anything else as the pointer.
void LineBuilder::kernelArg(size_t i, std::string_view bytes, bool present,
                            std::string& out) const {
    if (!present || !succeeded()) {
        appendHandle(out, m_call.arg(i));
        return;
    }
    const auto low = static_cast<uint32_t>(scalarOf(bytes));
    out.push_back('[');
    if (low == 0) {
        out.push_back('0');
    } else {
        appendHex(out, low, true);
    }
    out.push_back(']');
}

void LineBuilder::infoValue(std::string_view bytes, std::string& out) const {
    const ParamSpec& nameParam = m_api.params[static_cast<size_t>(m_api.infoNameArg)];
    const InfoRule rule = infoRule(
        nameParam.group, static_cast<uint32_t>(m_call.arg(static_cast<size_t>(m_api.infoNameArg))));
    const auto dec = [](uint64_t n) { return decimal(n); };
    switch (rule.type) {
        case InfoType::String:
            appendQuoted(out, bytes, std::string_view::npos);
            return;
        case InfoType::LongString:
            appendQuoted(out, bytes, 60);
            return;
        case InfoType::Bool:
            out += boolString(scalarOf(bytes));
            return;
        case InfoType::Enum:
            out += enumString(rule.group, static_cast<int64_t>(scalarOf(bytes)));
            return;
        case InfoType::Flags:
            out += flagsString(rule.group, scalarOf(bytes));
            return;
        case InfoType::Handles:
            out += joined<uint64_t>(bytes, [](uint64_t h) { return oclHandleString(h); });
            return;
        case InfoType::Sizes:
            out += joined<uint64_t>(bytes, dec);
            return;
        case InfoType::Auto:
            break;
    }
    if (bytes.size() <= 8) {
        appendDecimal(out, scalarOf(bytes));
    } else if (bytes.size() % 8 == 0) {
        out += joined<uint64_t>(bytes, dec);
    } else if (bytes.size() % 4 == 0) {
        out += joined<uint32_t>(bytes, dec);
    } else {
        out += joined<uint8_t>(bytes, dec);
    }
}

void LineBuilder::returnValue(std::string& out) const {
    if (m_api.returnType == "cl_int") {
        appendError(out, static_cast<int32_t>(m_call.head.ret));
    } else if (m_api.returnType == "void") {
        out.append("void");
    } else {
        appendHandle(out, m_call.head.ret);
    }
}

// Every capture must be whole and name an argument of the call.
bool validateCaptures(const ApiCallView& call, std::string& error) {
    size_t pos = 0;
    while (pos < call.captureBytes) {
        if (call.captureBytes - pos < sizeof(CapturedHead)) {
            error = "truncated capture header";
            return false;
        }
        CapturedHead c;
        std::memcpy(&c, call.captures + pos, sizeof c);
        // The call site (record::kCallSiteArg) goes to the Stack Trace section, not this line.
        const bool callSite = c.argIndex == record::kCallSiteArg;
        if ((c.argIndex >= call.head.argCount && !callSite) || c.encoding < 1 || c.encoding > 3) {
            error = "capture names no argument or has an unknown encoding";
            return false;
        }
        if (call.captureBytes - pos - sizeof c < record::padTo8(c.bytes)) {
            error = "truncated capture of argument " + std::to_string(c.argIndex);
            return false;
        }
        pos += sizeof c + record::padTo8(c.bytes);
    }
    return true;
}

const ApiSpec* checkedApi(const ApiCallView& call, std::string& error) {
    const ApiSpec* api = apiBySlot(call.head.slot);
    if (api == nullptr) {
        error = "unknown dispatch slot " + std::to_string(call.head.slot);
        return nullptr;
    }
    const uint32_t expectedId =
        api->funcTypeId < 0 ? record::kNoApiId : static_cast<uint32_t>(api->funcTypeId);
    if (call.head.apiId != expectedId) {
        error = std::string(api->name) + ": api id " + std::to_string(call.head.apiId) +
                " does not match its slot";
        return nullptr;
    }
    if (call.head.argCount != api->params.size()) {
        error = std::string(api->name) + ": " + std::to_string(call.head.argCount) +
                " arguments recorded, " + std::to_string(api->params.size()) + " expected";
        return nullptr;
    }
    return validateCaptures(call, error) ? api : nullptr;
}

int paramIndex(const ApiSpec& api, std::string_view name) {
    for (size_t i = 0; i < api.params.size(); ++i) {
        if (api.params[i].name == name) return static_cast<int>(i);
    }
    return -1;
}

// What an enqueue API's timestamp line takes from its arguments, found once per dispatch slot:
// most lines of a trace are enqueues, and a parameter found by name is a scan of its names.
struct EnqueueParams {
    enum class Kernel : uint8_t { None, NDRange, Task, Native };
    Kernel kernel = Kernel::None;
    int globalSize = -1;
    int localSize = -1;
    int size = -1;  // cb, or size
    int region = -1;
};

const EnqueueParams& enqueueParams(const ApiSpec& api) {
    static const std::vector<EnqueueParams> table = [] {
        std::vector<EnqueueParams> t(apis().size());
        for (size_t slot = 0; slot < t.size(); ++slot) {
            const ApiSpec& a = apis()[slot];
            EnqueueParams& e = t[slot];
            if (a.name == "clEnqueueNDRangeKernel") {
                e.kernel = EnqueueParams::Kernel::NDRange;
                e.globalSize = paramIndex(a, "global_work_size");
                e.localSize = paramIndex(a, "local_work_size");
            } else if (a.name == "clEnqueueTask") {
                e.kernel = EnqueueParams::Kernel::Task;
            } else if (a.name == "clEnqueueNativeKernel") {
                e.kernel = EnqueueParams::Kernel::Native;
            }
            e.size = paramIndex(a, "cb");
            if (e.size < 0) e.size = paramIndex(a, "size");
            e.region = paramIndex(a, "region");
        }
        return t;
    }();
    return table[api.slot];
}

// "{v1,v2}" from a captured size array, "{NULL}" when the pointer was null.
std::string braceSizes(const ApiCallView& call, int index) {
    CaptureEncoding encoding{};
    std::string_view bytes;
    if (index < 0 || call.arg(static_cast<size_t>(index)) == 0 ||
        !call.captured(static_cast<size_t>(index), encoding, bytes)) {
        return "{NULL}";
    }
    return "{" + joined<uint64_t>(bytes, [](uint64_t n) { return decimal(n); }) + "}";
}

}  // namespace

bool appendOclApiLine(const ApiCallView& call, std::string& line, std::string& error,
                      const OclLineOptions& options) {
    const ApiSpec* api = checkedApi(call, error);
    if (api == nullptr) return false;
    LineBuilder builder(call, *api, error);
    builder.returnValue(line);
    line.append(" = ").append(api->name).append(" ( ");
    for (size_t i = 0; i < api->params.size(); ++i) {
        if (i > 0) line += ';';
        if (!builder.param(i, line)) return false;
    }
    if (options.consecutiveCalls > 1) {
        line += " /*" + std::to_string(options.consecutiveCalls) + " consecutive calls*/";
    }
    line += " )";
    return true;
}

bool formatOclApiLine(const ApiCallView& call, std::string& line, std::string& error,
                      const OclLineOptions& options) {
    line.clear();
    return appendOclApiLine(call, line, error, options);
}

bool formatOclApiLine(std::string_view payload, std::string& line, std::string& error,
                      const OclLineOptions& options) {
    ApiCallView call;
    if (!record::decodeApiCall(payload, call)) {
        error = "ApiCall payload truncated (" + std::to_string(payload.size()) + " bytes)";
        return false;
    }
    return formatOclApiLine(call, line, error, options);
}

bool oclEnqueueFields(const ApiCallView& call, OclEnqueueFields& fields, std::string& error) {
    const ApiSpec* api = checkedApi(call, error);
    if (api == nullptr) return false;
    if (!api->isEnqueue) {
        error = std::string(api->name) + " is not an enqueue API";
        return false;
    }
    fields = OclEnqueueFields{};
    fields.queue = call.arg(0);
    const EnqueueParams& e = enqueueParams(*api);
    if (e.kernel == EnqueueParams::Kernel::NDRange) {
        fields.kernel = call.arg(1);
        fields.globalSize = braceSizes(call, e.globalSize);
        fields.localSize = braceSizes(call, e.localSize);
    } else if (e.kernel == EnqueueParams::Kernel::Task) {
        fields.kernel = call.arg(1);
        fields.globalSize = fields.localSize = "{1}";
    } else if (e.kernel == EnqueueParams::Kernel::Native) {
        fields.kernel = call.arg(1);
    }
    const int size = e.size;
    const int region = e.region;
    CaptureEncoding encoding{};
    std::string_view bytes;
    if (size >= 0) {
        fields.hasDataSize = true;
        fields.dataSize = call.arg(static_cast<size_t>(size));
    } else if (region >= 0 && call.captured(static_cast<size_t>(region), encoding, bytes) &&
               bytes.size() == 24) {
        const auto r = elements<uint64_t>(bytes);
        fields.hasDataSize = true;
        fields.dataSize = r[0] * r[1] * r[2];
    }
    return true;
}

std::string_view oclApiNameView(int funcTypeId) {
    if (funcTypeId < 0 || funcTypeId >= kFuncTypeCount || !funcTypes()[funcTypeId].name) {
        return "Unknown_function_type";
    }
    return funcTypes()[funcTypeId].name;
}

std::string oclApiName(int funcTypeId) { return std::string(oclApiNameView(funcTypeId)); }

bool oclIsEnqueueApi(int funcTypeId) {
    return funcTypeId >= 0 && funcTypeId < kFuncTypeCount && funcTypes()[funcTypeId].isEnqueue;
}

std::string oclSlotName(unsigned slot) {
    const ApiSpec* api = apiBySlot(slot);
    return api == nullptr ? std::string() : std::string(api->name);
}

std::string oclCommandTypeName(uint32_t commandType) {
    const std::string_view name = nameOf("cl_command_type", commandType);
    if (!name.empty()) return std::string(name);
    for (const auto& [value, extra] : kExtraCommandTypes) {
        if (value == commandType) return extra;
    }
    return decimal(commandType);
}

std::string oclErrorName(int32_t code) {
    std::string out;
    appendError(out, code);
    return out;
}

std::string oclHandleString(uint64_t value) {
    std::string out;
    appendHandle(out, value);
    return out;
}

void appendOclHandle(std::string& out, uint64_t value) { appendHandle(out, value); }

}  // namespace perfmarker::atp
