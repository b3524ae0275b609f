// The raw ApiCall record of one intercepted call (record/api_record.h): the head, every argument
// as a 64-bit word, and the pointees the catalogue (api/ocl_api.h) says to capture, read after
// the call returned. Written in place into the calling thread's chunk: no lock, no allocation,
// no system call.
//
// The capture is compiled per entry point: capture_plan.inc (written at build time from the
// catalogue by capture_plan_gen) lists every captured parameter, and recordApiCall<Slot> expands
// the rules of its slot into straight-line code (no rule list walked per call, no switch on the
// parameter kind). Arguments are stored raw; nothing is formatted on the hot path.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <utility>

#include "agent_state.h"
#include "api/ocl_api.h"
#include "call_site.h"
#include "capture_plan.h"
#include "record/api_record.h"
#include "record/recorder.h"

namespace perfmarker::cltrace {

struct CallInfo {
    uint64_t startTicks = 0;
    uint64_t endTicks = 0;
    uint64_t enqueueId = 0;
    bool succeeded = false;  // output arrays and query results are captured only on success
    bool recording = false;  // false: passed through without a record (paused, filtered)
    hooks::CallSite site{};  // recorded when its return address is set (PERFMARKER_SYM=1)
};

// An argument as the record stores it: pointers by address, integers zero-extended.
template <typename T>
uint64_t toRaw(T v) {
    if constexpr (std::is_pointer_v<T>) {
        return static_cast<uint64_t>(reinterpret_cast<uintptr_t>(v));
    } else {
        return static_cast<uint64_t>(static_cast<std::make_unsigned_t<T>>(v));
    }
}

// A result as the record stores it: a cl_int sign-extended, anything else as an argument.
template <typename T>
uint64_t resultToRaw(T v) {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
        return static_cast<uint64_t>(static_cast<int64_t>(v));
    } else {
        return toRaw(v);
    }
}

namespace capture {

// The capture code of a rule is a few instructions once its rule is known: inlined into the
// slot's tracedCall (GCC would otherwise keep the larger ones out of line).
#define PERFMARKER_CAPTURE_INLINE inline __attribute__((always_inline))

using atp::ocl::ParamKind;
using record::CaptureEncoding;

// One captured parameter of a slot, as the catalogue describes it.
struct Rule {
    unsigned slot;
    uint8_t arg;
    ParamKind kind;
    int8_t countArg;
    int8_t countOutArg;
    uint8_t countOutSize;  // bytes of the output count's pointee
    uint8_t elemSize;
    bool clamp3;
    bool output;  // the call writes it: captured only when the call succeeded
};

inline constexpr Rule kRules[] = {
#define PM_CL_CAPTURE(slot, arg, kind, countArg, countOutArg, countOutSize, elemSize, clamp3, \
                      output)                                                                 \
    Rule{slot, arg, ParamKind::kind, countArg, countOutArg, countOutSize, elemSize, clamp3 != 0, \
         output != 0},
#include "capture_plan.inc"
};
static_assert(hooks::isInSlotOrder(kRules),
              "capture_plan.inc must list the slots in increasing order");

constexpr unsigned firstRule(unsigned slot) { return hooks::firstRule(kRules, slot); }
constexpr unsigned ruleCount(unsigned slot) { return hooks::ruleCount(kRules, slot); }

// A pointee to copy: `bytes` bytes at `src`, or the `scalar` word.
struct Piece {
    const void* src;
    uint64_t scalar;
    uint32_t bytes;
};

template <unsigned Size>
uint64_t readScalar(uint64_t address) {
    static_assert(Size >= 1 && Size <= 8, "a scalar of 1 to 8 bytes");
    uint64_t v = 0;
    std::memcpy(&v, reinterpret_cast<const void*>(address), Size);  // little-endian
    return v;
}

// Bytes of a 0-terminated property list (with the terminator; cut at kMaxPropertyValues).
size_t propertyBytes(uint64_t address) noexcept;

// Number of elements of an array argument, limited by an output count when there is one.
template <unsigned R>
uint64_t elementCount(const uint64_t* args, uint64_t fixed) {
    constexpr Rule r = kRules[R];
    uint64_t n = fixed;
    if constexpr (r.countArg >= 0) {
        n = args[r.countArg];
        if constexpr (r.kind != ParamKind::InfoValue) n = static_cast<uint32_t>(n);
    }
    if constexpr (r.countOutArg >= 0) {
        const uint64_t out = args[r.countOutArg];
        if (out != 0) n = std::min(n, readScalar<r.countOutSize>(out));
    }
    if constexpr (r.clamp3) n = std::min<uint64_t>(n, 3);
    return n;
}

template <unsigned R>
constexpr CaptureEncoding encodingOf() {
    constexpr ParamKind k = kRules[R].kind;
    if constexpr (k == ParamKind::OutScalar || k == ParamKind::OutError ||
                  k == ParamKind::OutHandle) {
        return CaptureEncoding::Scalar;
    } else if constexpr (k == ParamKind::String) {
        return CaptureEncoding::String;
    } else {
        return CaptureEncoding::Bytes;
    }
}

// What rule R captures of this call: its bytes in the record (CapturedHead and padded value),
// 0 when nothing.
template <unsigned R>
PERFMARKER_CAPTURE_INLINE size_t measure(const uint64_t* args, bool succeeded, Piece& piece) {
    constexpr Rule r = kRules[R];
    constexpr size_t kMaxArray = atp::ocl::kMaxArrayElements;
    const uint64_t address = args[r.arg];
    if (address == 0) return 0;
    if constexpr (r.output) {
        if (!succeeded) return 0;
    }
    piece.src = reinterpret_cast<const void*>(address);
    uint64_t bytes = 0;
    if constexpr (encodingOf<R>() == CaptureEncoding::Scalar) {
        piece.scalar = readScalar<r.elemSize>(address);
        bytes = 8;
    } else if constexpr (r.kind == ParamKind::HandleArray || r.kind == ParamKind::SizeArray ||
                         r.kind == ParamKind::ImageFormat) {
        constexpr uint64_t kFixed = r.kind == ParamKind::SizeArray ? 3 : 1;
        bytes = 8 * std::min<uint64_t>(elementCount<R>(args, kFixed), kMaxArray);
    } else if constexpr (r.kind == ParamKind::ErrorArray) {
        bytes = 4 * std::min<uint64_t>(elementCount<R>(args, 0), kMaxArray);
    } else if constexpr (r.kind == ParamKind::ImageDesc) {
        bytes = atp::ocl::kImageDescBytes;
    } else if constexpr (r.kind == ParamKind::BufferRegion) {
        bytes = 16;
    } else if constexpr (r.kind == ParamKind::String) {
        bytes = strnlen(static_cast<const char*>(piece.src), atp::ocl::kMaxStringBytes);
    } else if constexpr (r.kind == ParamKind::Properties) {
        bytes = propertyBytes(address);
    } else if constexpr (r.kind == ParamKind::InfoValue) {
        bytes = std::min<uint64_t>(elementCount<R>(args, 0), atp::ocl::kMaxInfoValueBytes);
    } else if constexpr (r.kind == ParamKind::KernelArgValue) {
        static_assert(r.countArg >= 0, "a kernel argument value needs its size argument");
        if (args[r.countArg] != 8) return 0;
        bytes = 8;
    } else {
        static_assert(r.kind == ParamKind::OutScalar, "a kind the plan cannot capture");
    }
    piece.bytes = static_cast<uint32_t>(bytes);
    return sizeof(record::CapturedHead) + record::padTo8(bytes);
}

inline void storeWord(unsigned char* p, uint64_t v) { std::memcpy(p, &v, 8); }

// Copies a captured value. Most are short (query results, names, work sizes): 4 to 32 bytes
// as two to four overlapping loads and stores, never outside [src, src + n). Longer ones go to
// memcpy as a call: inlined with an unknown size it becomes a string move, slow to start.
PERFMARKER_CAPTURE_INLINE void copyValue(unsigned char* dst, const void* from, size_t n) {
    const auto* src = static_cast<const unsigned char*>(from);
    if (n >= 8 && n <= 32) {
        uint64_t a, b, c, d;
        if (n <= 16) {
            std::memcpy(&a, src, 8);
            std::memcpy(&b, src + n - 8, 8);
            std::memcpy(dst, &a, 8);
            std::memcpy(dst + n - 8, &b, 8);
        } else {
            std::memcpy(&a, src, 8);
            std::memcpy(&b, src + 8, 8);
            std::memcpy(&c, src + n - 16, 8);
            std::memcpy(&d, src + n - 8, 8);
            std::memcpy(dst, &a, 8);
            std::memcpy(dst + 8, &b, 8);
            std::memcpy(dst + n - 16, &c, 8);
            std::memcpy(dst + n - 8, &d, 8);
        }
        return;
    }
    if (n >= 4 && n < 8) {
        uint32_t a, b;
        std::memcpy(&a, src, 4);
        std::memcpy(&b, src + n - 4, 4);
        std::memcpy(dst, &a, 4);
        std::memcpy(dst + n - 4, &b, 4);
        return;
    }
    asm("" : "+r"(n));  // hides the bound the caller knows, which makes GCC inline a string move
    std::memcpy(dst, src, n);
}

// Two 32-bit halves as one little- or big-endian word, in memory order (low, high).
constexpr uint64_t pairWord(uint32_t low, uint32_t high) {
    return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? (uint64_t{high} << 32) | low
                                                     : (uint64_t{low} << 32) | high;
}

// Writes rule R's CapturedHead and value at `out` (when measure gave it a size); returns the
// end. Each word is one plain store; a padded value gets its zero tail first, then its bytes.
template <unsigned R>
PERFMARKER_CAPTURE_INLINE unsigned char* emit(unsigned char* out, size_t size, const Piece& piece) {
    if (size == 0) return out;
    constexpr Rule r = kRules[R];
    constexpr CaptureEncoding kEncoding = encodingOf<R>();
    constexpr uint32_t kArgAndEncoding =
        __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            ? uint32_t{r.arg} | (uint32_t{static_cast<uint16_t>(kEncoding)} << 16)
            : (uint32_t{r.arg} << 16) | static_cast<uint16_t>(kEncoding);
    static_assert(offsetof(record::CapturedHead, encoding) == 2 &&
                      offsetof(record::CapturedHead, bytes) == 4,
                  "emit writes the CapturedHead fields by offset");
    storeWord(out, pairWord(kArgAndEncoding, piece.bytes));
    unsigned char* value = out + sizeof(record::CapturedHead);
    if constexpr (kEncoding == CaptureEncoding::Scalar) {
        storeWord(value, piece.scalar);
    } else {
        if (piece.bytes % 8 != 0) storeWord(value + (piece.bytes & ~uint32_t{7}), 0);
        copyValue(value, piece.src, piece.bytes);
    }
    return out + size;
}

// Writes the whole record of a call to slot `Slot` (rules First..First+sizeof(I)-1).
template <unsigned Slot, int FuncTypeId, size_t N, unsigned First, size_t... I>
void writeRecord(const CallInfo& call, uint64_t ret, const uint64_t* args,
                 std::index_sequence<I...>) noexcept {
    static_assert(sizeof(record::ApiCallHead) == 32 && offsetof(record::ApiCallHead, apiId) == 8 &&
                      offsetof(record::ApiCallHead, slot) == 12 &&
                      offsetof(record::ApiCallHead, argCount) == 14 &&
                      offsetof(record::ApiCallHead, ret) == 16 &&
                      offsetof(record::ApiCallHead, enqueueId) == 24,
                  "writeRecord stores the ApiCallHead fields by offset");
    record::Recorder* const recorder = g_recorder;
    record::ThreadLog* const log = recorder->threadLog();
    if (PERFMARKER_UNLIKELY(log == nullptr)) return;
    [[maybe_unused]] Piece pieces[sizeof...(I) + 1]{};
    [[maybe_unused]] const size_t sizes[sizeof...(I) + 1] = {measure<First + I>(args, call.succeeded, pieces[I])...};
    size_t size = sizeof(record::ApiCallHead) + N * 8;
    for (size_t i = 0; i < sizeof...(I); ++i) size += sizes[i];
    constexpr size_t kSiteBytes = sizeof(record::CapturedHead) + record::kCallSiteBytes;
    if (call.site.returnAddress != 0) size += kSiteBytes;
    // In place into the thread's chunk: the payload is a whole number of 8-byte words (values
    // are padded), so the record needs no padding of its own.
    unsigned char* out = recorder->reserve(log, record::RecordKind::ApiCall, call.startTicks, size);
    if (PERFMARKER_UNLIKELY(out == nullptr)) return;
    constexpr uint32_t kApiId =
        FuncTypeId < 0 ? record::kNoApiId : static_cast<uint32_t>(FuncTypeId);
    constexpr uint32_t kSlotAndCount =
        __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? Slot | (uint32_t{N} << 16)
                                                  : (Slot << 16) | uint32_t{N};
    static_assert(Slot <= 0xffff && N <= 0xffff, "slot and argument count are 16-bit fields");
    storeWord(out, call.endTicks);
    storeWord(out + 8, pairWord(kApiId, kSlotAndCount));
    storeWord(out + 16, ret);
    storeWord(out + 24, call.enqueueId);
    if constexpr (N > 0) std::memcpy(out + sizeof(record::ApiCallHead), args, N * 8);
    unsigned char* p = out + sizeof(record::ApiCallHead) + N * 8;
    ((p = emit<First + I>(p, sizes[I], pieces[I])), ...);
    if (call.site.returnAddress != 0) {
        constexpr uint32_t kArgAndEncoding =
            __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
                ? uint32_t{record::kCallSiteArg} |
                      (uint32_t{static_cast<uint16_t>(CaptureEncoding::Bytes)} << 16)
                : (uint32_t{record::kCallSiteArg} << 16) |
                      static_cast<uint16_t>(CaptureEncoding::Bytes);
        storeWord(p, pairWord(kArgAndEncoding, record::kCallSiteBytes));
        storeWord(p + 8, call.site.returnAddress);
        storeWord(p + 16, call.site.callerReturnAddress);
        p += kSiteBytes;
    }
    (void)p;
    recorder->commitReserved(log, size);
}

}  // namespace capture

// Appends the record of a call to slot `Slot` to the calling thread's log of g_recorder.
// `args` are the application's N arguments (toRaw), `ret` the result (resultToRaw).
template <unsigned Slot, int FuncTypeId, size_t N>
void recordApiCall(const CallInfo& call, uint64_t ret, const uint64_t* args) noexcept {
    constexpr unsigned kFirst = capture::firstRule(Slot);
    constexpr unsigned kCount = capture::ruleCount(Slot);
    static_assert(kCount == 0 || capture::kRules[kFirst + kCount - 1].arg < N,
                  "the capture plan does not match the prototype");
    capture::writeRecord<Slot, FuncTypeId, N, kFirst>(call, ret, args,
                                                       std::make_index_sequence<kCount>{});
}

}  // namespace perfmarker::cltrace
