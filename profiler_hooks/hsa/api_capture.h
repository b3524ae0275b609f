// The raw ApiCall record of one recorded call (record/api_record.h): the head, every argument
// as a 64-bit word, and the pointees the HSA catalogue (api/hsa_api.h) says to capture, read
// after the call returned (docs/hsa-trace.md, "What a wrapper does"). Written in place into the
// calling thread's chunk.
//
// The capture is compiled per entry point, as the OpenCL layer's is: hsa_capture_plan.inc
// (written at build time from the catalogue by profiler_hooks/common/capture_plan_gen) lists
// every captured parameter, and recordApiCall<Slot> expands the rules of its slot into
// straight-line code; most slots have none, and then the record is the head and the arguments.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

#include "agent_state.h"
#include "call_site.h"
#include "capture_plan.h"
#include "hsa_runtime.h"
#include "record/api_record.h"
#include "record/recorder.h"

namespace perfmarker::hsatrace {

// What one call hands to the record writer.
struct CallInfo {
    unsigned slot = 0;
    int apiTypeId = -1;
    uint64_t startTicks = 0;
    uint64_t enqueueId = 0;  // async copies: matched with their transfer times at merge
    bool succeeded = true;   // outputs are only read after a successful call
    hooks::CallSite site{};  // recorded when its return address is set (PERFMARKER_SYM=1)
};

namespace capture {

// OutScalar: an output of `bytes` bytes (after a successful call), zero-extended to 8.
// String: an input string, at most kMaxString bytes. QueueOut: the hsa_queue_t an
// hsa_queue_t** output points to (after a successful call).
enum class Kind : uint8_t { OutScalar, String, QueueOut };

struct Rule {
    unsigned slot;
    uint16_t arg;
    Kind kind;
    uint8_t bytes;
};

inline constexpr Rule kRules[] = {
#define PM_HSA_CAPTURE(slot, arg, kind, bytes) Rule{slot, arg, Kind::kind, bytes},
#include "hsa_capture_plan.inc"
};
static_assert(hooks::isInSlotOrder(kRules),
              "hsa_capture_plan.inc must list the slots in increasing order");

constexpr unsigned firstRule(unsigned slot) { return hooks::firstRule(kRules, slot); }
constexpr unsigned ruleCount(unsigned slot) { return hooks::ruleCount(kRules, slot); }

inline constexpr size_t kMaxString = 256;

// A pointee to copy: `bytes` bytes at `src`, or the `scalar` word.
struct Piece {
    const void* src = nullptr;
    uint64_t scalar = 0;
    uint32_t bytes = 0;
};

// What rule R captures of this call: its bytes in the record (CapturedHead and padded value),
// 0 when nothing.
template <unsigned R>
size_t measure(const uint64_t* args, bool succeeded, Piece& piece) {
    constexpr Rule r = kRules[R];
    const void* ptr = reinterpret_cast<const void*>(args[r.arg]);
    if (ptr == nullptr) return 0;
    if constexpr (r.kind == Kind::OutScalar) {
        static_assert(r.bytes >= 1 && r.bytes <= 8, "an output scalar of 1 to 8 bytes");
        if (!succeeded) return 0;
        std::memcpy(&piece.scalar, ptr, r.bytes);  // little-endian
        piece.bytes = 8;
    } else if constexpr (r.kind == Kind::String) {
        piece.src = ptr;
        piece.bytes = static_cast<uint32_t>(strnlen(static_cast<const char*>(ptr), kMaxString));
    } else {
        static_assert(r.kind == Kind::QueueOut, "a kind the plan cannot capture");
        if (!succeeded) return 0;
        const hsa_queue_t* queue = *static_cast<hsa_queue_t* const*>(ptr);
        if (queue == nullptr) return 0;
        piece.src = queue;
        piece.bytes = sizeof *queue;
    }
    return sizeof(record::CapturedHead) + record::padTo8(piece.bytes);
}

// Writes rule R's CapturedHead and value at `out` (when measure gave it a size); returns the end.
template <unsigned R>
unsigned char* emit(unsigned char* out, size_t size, const Piece& piece) {
    if (size == 0) return out;
    constexpr Rule r = kRules[R];
    constexpr record::CaptureEncoding kEncoding =
        r.kind == Kind::OutScalar ? record::CaptureEncoding::Scalar
        : r.kind == Kind::String  ? record::CaptureEncoding::String
                                  : record::CaptureEncoding::Bytes;
    const record::CapturedHead head{r.arg, static_cast<uint16_t>(kEncoding), piece.bytes};
    std::memcpy(out, &head, sizeof head);
    unsigned char* value = out + sizeof head;
    if constexpr (r.kind == Kind::OutScalar) {
        std::memcpy(value, &piece.scalar, 8);
    } else {
        std::memcpy(value, piece.src, piece.bytes);
        std::memset(value + piece.bytes, 0, record::padTo8(piece.bytes) - piece.bytes);
    }
    return out + size;
}

template <unsigned First, size_t... I>
void writeRecord(const CallInfo& info, uint64_t result, const uint64_t* args, unsigned count,
                 std::index_sequence<I...>) {
    const uint64_t end = g_recorder->now();
    record::ThreadLog* log = g_recorder->threadLog();
    if (log == nullptr) return;
    [[maybe_unused]] Piece pieces[sizeof...(I) + 1];
    [[maybe_unused]] const size_t sizes[sizeof...(I) + 1] = {
        measure<First + I>(args, info.succeeded, pieces[I])...};
    size_t bytes = sizeof(record::ApiCallHead) + size_t{count} * 8;
    for (size_t i = 0; i < sizeof...(I); ++i) bytes += sizes[i];
    constexpr size_t kSiteBytes = sizeof(record::CapturedHead) + record::kCallSiteBytes;
    if (info.site.returnAddress != 0) bytes += kSiteBytes;
    unsigned char* p =
        g_recorder->reserve(log, record::RecordKind::ApiCall, info.startTicks, bytes);
    if (p == nullptr) return;
    const record::ApiCallHead head{end,
                                   static_cast<uint32_t>(info.apiTypeId),
                                   static_cast<uint16_t>(info.slot),
                                   static_cast<uint16_t>(count),
                                   result,
                                   info.enqueueId};
    std::memcpy(p, &head, sizeof head);
    std::memcpy(p + sizeof head, args, size_t{count} * 8);
    unsigned char* out = p + sizeof head + size_t{count} * 8;
    ((out = emit<First + I>(out, sizes[I], pieces[I])), ...);
    if (info.site.returnAddress != 0) {
        const record::CapturedHead site{record::kCallSiteArg,
                                        static_cast<uint16_t>(record::CaptureEncoding::Bytes),
                                        record::kCallSiteBytes};
        std::memcpy(out, &site, sizeof site);
        std::memcpy(out + sizeof site, &info.site.returnAddress, 8);
        std::memcpy(out + sizeof site + 8, &info.site.callerReturnAddress, 8);
        out += kSiteBytes;
    }
    (void)out;
    g_recorder->commitReserved(log, bytes);
}

}  // namespace capture

// Writes the record of a call to slot `Slot` (info.slot): the end ticks now, the `count` raw
// arguments, the result, and the captures of the slot's plan.
template <unsigned Slot>
__attribute__((noinline)) void recordApiCall(const CallInfo& info, uint64_t result,
                                             const uint64_t* args, unsigned count) {
    constexpr unsigned kFirst = capture::firstRule(Slot);
    constexpr unsigned kCount = capture::ruleCount(Slot);
    capture::writeRecord<kFirst>(info, result, args, count, std::make_index_sequence<kCount>{});
}

}  // namespace perfmarker::hsatrace
