// The raw ApiCall record of one intercepted call (record/api_record.h): the head, every argument
// as a 64-bit word, and the pointees the catalogue (atp/ocl_api.h) says to capture, read after
// the call returned. Written into the calling thread's chunk: no lock, no allocation, no system
// call, unless a capture is larger than the stack buffer (then a per-thread buffer is used,
// which allocates only when it grows).
#pragma once

#include <cstdint>
#include <type_traits>

namespace perfmarker::cltrace {

// Compiles the catalogue's rules into per-slot capture plans. Called once, by initAgent,
// before any call is recorded.
void buildCapturePlans();

struct CallInfo {
    unsigned slot = 0;
    int funcTypeId = -1;
    uint64_t startTicks = 0;
    uint64_t endTicks = 0;
    uint64_t enqueueId = 0;
    bool succeeded = false;  // output arrays and query results are captured only on success
    bool recording = false;  // false: passed through without a record (paused, filtered)
};

// Appends the call's record to the calling thread's log of g_recorder.
void recordApiCall(const CallInfo& call, uint64_t ret, const uint64_t* args,
                   unsigned argCount) noexcept;

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

}  // namespace perfmarker::cltrace
