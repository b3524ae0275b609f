#include "api_capture.h"

#include <algorithm>
#include <cstring>

#include "agent_state.h"
#include "atp/ocl_api.h"
#include "record/api_record.h"

namespace perfmarker::cltrace {
namespace {

using atp::ocl::ParamKind;
using record::CaptureEncoding;

constexpr unsigned kMaxParams = 16;  // the longest prototype has 14

// One captured parameter of a slot, compiled from its ParamSpec.
struct CaptureRule {
    uint8_t arg = 0;
    ParamKind kind = ParamKind::Handle;
    int8_t countArg = -1;
    int8_t countOutArg = -1;
    uint8_t countOutSize = 4;  // bytes of the output count's pointee
    uint8_t elemSize = 8;
    bool clamp3 = false;
    bool output = false;  // the call writes it: captured only when the call succeeded
};

CaptureRule g_rules[kDispatchSlotCount][kMaxParams];
uint8_t g_ruleCount[kDispatchSlotCount];

// A pointee to copy: `bytes` bytes at `src` (or the 8-byte `scalar`).
struct Piece {
    uint16_t arg;
    CaptureEncoding encoding;
    const void* src;
    uint32_t bytes;
    uint64_t scalar;
};

uint64_t readScalar(uint64_t address, unsigned size) {
    uint64_t v = 0;
    std::memcpy(&v, reinterpret_cast<const void*>(address), size);  // little-endian
    return v;
}

// Number of elements of an array argument, limited by an output count when there is one.
uint64_t elementCount(const CaptureRule& r, const uint64_t* args, uint64_t fixed) {
    uint64_t n = r.countArg < 0 ? fixed : args[r.countArg];
    if (r.countArg >= 0 && (r.kind != ParamKind::InfoValue)) n = static_cast<uint32_t>(n);
    if (r.countOutArg >= 0 && args[r.countOutArg] != 0) {
        n = std::min(n, readScalar(args[r.countOutArg], r.countOutSize));
    }
    if (r.clamp3) n = std::min<uint64_t>(n, 3);
    return n;
}

size_t propertyBytes(uint64_t address) {
    const auto* values = reinterpret_cast<const uint64_t*>(address);
    for (size_t i = 0; i < atp::ocl::kMaxPropertyValues; i += 2) {
        if (values[i] == 0) return (i + 1) * 8;  // with the terminator
    }
    return atp::ocl::kMaxPropertyValues * 8;  // cut: no terminator
}

// What rule `r` captures of this call, if anything.
bool makePiece(const CaptureRule& r, const uint64_t* args, bool succeeded, Piece& piece) {
    const uint64_t address = args[r.arg];
    if (address == 0 || (r.output && !succeeded)) return false;
    piece = Piece{r.arg, CaptureEncoding::Bytes, reinterpret_cast<const void*>(address), 0, 0};
    switch (r.kind) {
        case ParamKind::OutScalar:
        case ParamKind::OutError:
        case ParamKind::OutHandle:
            piece.encoding = CaptureEncoding::Scalar;
            piece.scalar = readScalar(address, r.elemSize);
            piece.bytes = 8;
            return true;
        case ParamKind::HandleArray:
        case ParamKind::SizeArray:
        case ParamKind::ImageFormat:
            piece.bytes = static_cast<uint32_t>(
                8 *
                std::min<uint64_t>(elementCount(r, args, r.kind == ParamKind::SizeArray ? 3 : 1),
                                   atp::ocl::kMaxArrayElements));
            return true;
        case ParamKind::ErrorArray:
            piece.bytes = static_cast<uint32_t>(
                4 * std::min<uint64_t>(elementCount(r, args, 0), atp::ocl::kMaxArrayElements));
            return true;
        case ParamKind::ImageDesc:
            piece.bytes = atp::ocl::kImageDescBytes;
            return true;
        case ParamKind::BufferRegion:
            piece.bytes = 16;
            return true;
        case ParamKind::String:
            piece.encoding = CaptureEncoding::String;
            piece.bytes = static_cast<uint32_t>(
                strnlen(static_cast<const char*>(piece.src), atp::ocl::kMaxStringBytes));
            return true;
        case ParamKind::Properties:
            piece.bytes = static_cast<uint32_t>(propertyBytes(address));
            return true;
        case ParamKind::InfoValue:
            piece.bytes = static_cast<uint32_t>(
                std::min<uint64_t>(elementCount(r, args, 0), atp::ocl::kMaxInfoValueBytes));
            return true;
        case ParamKind::KernelArgValue:
            piece.bytes = 8;
            return r.countArg >= 0 && args[r.countArg] == 8;
        default:
            return false;
    }
}

// Writes head, arguments and pieces to `out` (sized by the caller).
void writePayload(unsigned char* out, const record::ApiCallHead& head, const uint64_t* args,
                  unsigned argCount, const Piece* pieces, unsigned pieceCount) {
    std::memcpy(out, &head, sizeof head);
    out += sizeof head;
    std::memcpy(out, args, argCount * 8);
    out += argCount * 8;
    for (unsigned i = 0; i < pieceCount; ++i) {
        const Piece& p = pieces[i];
        const record::CapturedHead c{p.arg, static_cast<uint16_t>(p.encoding), p.bytes};
        std::memcpy(out, &c, sizeof c);
        out += sizeof c;
        std::memcpy(out, p.encoding == CaptureEncoding::Scalar ? &p.scalar : p.src, p.bytes);
        std::memset(out + p.bytes, 0, record::padTo8(p.bytes) - p.bytes);
        out += record::padTo8(p.bytes);
    }
}

}  // namespace

void buildCapturePlans() {
    for (const atp::ocl::ApiSpec& api : atp::ocl::apis()) {
        if (api.name.empty() || api.slot >= kDispatchSlotCount) continue;
        uint8_t n = 0;
        for (size_t i = 0; i < api.params.size() && n < kMaxParams; ++i) {
            const atp::ocl::ParamSpec& p = api.params[i];
            if (!atp::ocl::isCaptured(p.kind)) continue;
            CaptureRule& r = g_rules[api.slot][n++];
            r.arg = static_cast<uint8_t>(i);
            r.kind = p.kind;
            r.countArg = p.countArg;
            r.countOutArg = p.countOutArg;
            r.countOutSize = p.countOutArg >= 0 ? api.params[p.countOutArg].elemSize : 4;
            r.elemSize = p.elemSize;
            r.clamp3 = p.clamp3;
            r.output = p.type.substr(0, 6) != "const " && p.kind != ParamKind::OutError &&
                       p.kind != ParamKind::OutScalar && p.kind != ParamKind::OutHandle;
        }
        g_ruleCount[api.slot] = n;
    }
}

void recordApiCall(const CallInfo& call, uint64_t ret, const uint64_t* args,
                   unsigned argCount) noexcept {
    record::Recorder* recorder = g_recorder;
    record::ThreadLog* log = recorder->threadLog();
    if (log == nullptr) return;
    Piece pieces[kMaxParams];
    unsigned pieceCount = 0;
    size_t size = sizeof(record::ApiCallHead) + argCount * 8;
    for (unsigned i = 0; i < g_ruleCount[call.slot]; ++i) {
        if (makePiece(g_rules[call.slot][i], args, call.succeeded, pieces[pieceCount])) {
            size += sizeof(record::CapturedHead) + record::padTo8(pieces[pieceCount++].bytes);
        }
    }
    record::ApiCallHead head{};
    head.endTime = call.endTicks;
    head.apiId = call.funcTypeId < 0 ? record::kNoApiId : static_cast<uint32_t>(call.funcTypeId);
    head.slot = static_cast<uint16_t>(call.slot);
    head.argCount = static_cast<uint16_t>(argCount);
    head.ret = ret;
    head.enqueueId = call.enqueueId;
    // Written in place into the thread's chunk: the payload is a whole number of 8-byte words
    // (pieces are padded), so the record needs no padding of its own.
    unsigned char* out = recorder->reserve(log, record::RecordKind::ApiCall, call.startTicks, size);
    if (out == nullptr) return;
    writePayload(out, head, args, argCount, pieces, pieceCount);
    recorder->commitReserved(log, size);
}

}  // namespace perfmarker::cltrace
