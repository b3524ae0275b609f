// Binary payloads of the tracing agents' records (RecordKind::ApiCall, DeviceTimes,
// ObjectInfo). The agents write them on the hot path with no formatting; the merge step (in
// src/atp) decodes them and writes the .atp text. Both sides use only this header, so the
// layout lives in one place.
//
// All fields are little-endian host order, 8-byte aligned; every payload is a whole number of
// 8-byte words.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace perfmarker::record {

// ---- ApiCall -----------------------------------------------------------------------------
// RecordHeader.time = API start (ticks, converted to ns by the writer); str0 = payload below;
// str1, str2 unused (empty).
//
//   ApiCallHead
//   uint64_t args[argCount]           raw argument values (integers zero-extended, pointers
//                                     as addresses, floats by bit pattern)
//   captured values, back to back:    CapturedHead + `bytes` bytes, padded to 8
//
// A captured value holds what an argument points to, read after the call returns (output
// parameters, arrays, strings, property lists). Which arguments are captured, and how, is up
// to the agent; the formatter reads them by argument index and says `NULL` / prints the raw
// pointer where none was captured.
struct ApiCallHead {
    uint64_t endTime;    // API end: ticks on the hot path, ns once the writer converted it
    uint32_t apiId;      // CL_FUNC_TYPE id (OpenCL) or HSA_API_Type id; kNoApiId if none
    uint16_t slot;       // dispatch-table slot of the API (the agent's table index)
    uint16_t argCount;   // number of uint64_t raw arguments that follow
    uint64_t ret;        // return value: cl_int sign-extended to 64 bits, or a handle
    uint64_t enqueueId;  // nonzero: device times follow in a DeviceTimes record with this id
};
static_assert(sizeof(ApiCallHead) == 32, "ApiCallHead layout");
inline constexpr uint32_t kNoApiId = 0xffffffffu;

// How a captured value is encoded.
enum class CaptureEncoding : uint16_t {
    Bytes = 1,    // raw bytes of the pointee (an array of the parameter's element type)
    String = 2,   // a C string without its terminator (no escaping; may hold any byte)
    Scalar = 3,   // one uint64_t: a dereferenced output scalar, handle or error code
};

struct CapturedHead {
    uint16_t argIndex;  // index into args[]
    uint16_t encoding;  // CaptureEncoding
    uint32_t bytes;     // payload bytes that follow (before padding)
};
static_assert(sizeof(CapturedHead) == 8, "CapturedHead layout");

constexpr size_t padTo8(size_t n) { return (n + 7) & ~size_t{7}; }

// The call site of a call (docs/call-sites.md), recorded with PERFMARKER_SYM=1 as a captured
// value of this argument index, encoding Bytes, 16 bytes: the return address of the agent's
// wrapper (where the application called the API) and the return address of the application
// function that made the call (from its frame pointer; 0 when it has none the agent can trust).
inline constexpr uint16_t kCallSiteArg = 0xffff;
inline constexpr uint32_t kCallSiteBytes = 16;

// A decoded view of an ApiCall payload (views into the record bytes).
struct ApiCallView {
    ApiCallHead head{};
    std::string_view payload;             // the whole payload decoded (decodeApiCall)
    const unsigned char* args = nullptr;  // argCount x uint64_t, unaligned-safe via arg()
    const unsigned char* captures = nullptr;
    size_t captureBytes = 0;

    uint64_t arg(size_t i) const {
        uint64_t v = 0;
        if (i < head.argCount) std::memcpy(&v, args + i * 8, 8);
        return v;
    }

    // Finds the captured value of argument `index` (the first one, if several).
    bool captured(size_t index, CaptureEncoding& encoding, std::string_view& bytes) const {
        size_t pos = 0;
        while (pos + sizeof(CapturedHead) <= captureBytes) {
            CapturedHead c;
            std::memcpy(&c, captures + pos, sizeof c);
            const size_t next = pos + sizeof c + padTo8(c.bytes);
            if (next > captureBytes) return false;
            if (c.argIndex == index) {
                encoding = static_cast<CaptureEncoding>(c.encoding);
                bytes = {reinterpret_cast<const char*>(captures + pos + sizeof c), c.bytes};
                return true;
            }
            pos = next;
        }
        return false;
    }
};

// Decodes an ApiCall payload. False when it is too short for what its head announces.
inline bool decodeApiCall(std::string_view payload, ApiCallView& out) {
    if (payload.size() < sizeof(ApiCallHead)) return false;
    const auto* p = reinterpret_cast<const unsigned char*>(payload.data());
    std::memcpy(&out.head, p, sizeof out.head);
    const size_t argBytes = size_t{out.head.argCount} * 8;
    if (payload.size() < sizeof(ApiCallHead) + argBytes) return false;
    out.args = p + sizeof(ApiCallHead);
    out.captures = out.args + argBytes;
    out.captureBytes = payload.size() - sizeof(ApiCallHead) - argBytes;
    out.payload = payload;
    return true;
}

// ---- DeviceTimes -------------------------------------------------------------------------
// RecordHeader.time = when the agent read the times (ticks -> ns); str0 = this struct.
// Device times are in the device's own clock, as the runtime reported them; the merge step
// converts them into the trace clock (docs/opencl-trace.md, "One clock").
struct DeviceTimesPayload {
    uint64_t enqueueId;    // the ApiCallHead::enqueueId it completes
    uint64_t queued;       // CL_PROFILING_COMMAND_QUEUED (device ns), 0 if unknown
    uint64_t submit;
    uint64_t start;
    uint64_t end;
    uint32_t commandType;  // cl_command_type of the event, 0 if unknown
    int32_t status;        // CL_COMPLETE (0) or the negative error the command ended with
};
static_assert(sizeof(DeviceTimesPayload) == 48, "DeviceTimesPayload layout");

// ---- ObjectInfo --------------------------------------------------------------------------
// RecordHeader.time = when the object was created (ticks -> ns); str0 = this struct; str1 =
// its name where it has one (device: CL_DEVICE_NAME; kernel: function name), str2 unused.
enum class ObjectType : uint32_t {
    Context = 1,
    Queue = 2,   // parent = context, device = device, properties = what the app asked for
    Device = 3,  // properties = cl_device_type
    Kernel = 4,  // parent = program
};

struct ObjectInfoPayload {
    uint32_t type;        // ObjectType
    uint32_t id;          // 0-based creation counter per type within the process
    uint64_t handle;
    uint64_t parent;
    uint64_t device;
    uint64_t properties;
};
static_assert(sizeof(ObjectInfoPayload) == 40, "ObjectInfoPayload layout");

// ---- HSA agent records --------------------------------------------------------------------
// The HSA agent writes its own fragments (tag "hsa"). There, ApiCall records carry
// HSA_API_Type ids and HSA table slots; DeviceTimes records carry one of the payloads below
// (told apart by their first word); ObjectInfo records use the Hsa* object types.

enum class HsaDeviceRecord : uint32_t {
    Dispatch = 1,     // HsaDispatchPayload
    Copy = 2,         // HsaCopyPayload
    Calibration = 3,  // HsaCalibrationPayload
};

// One kernel dispatch, recorded when its completion signal fired. Times are in the HSA system
// clock domain, as hsa_amd_profiling_get_dispatch_time reports them (0/0 when unknown).
struct HsaDispatchPayload {
    uint32_t type;         // HsaDeviceRecord::Dispatch
    uint32_t queueIndex;   // 0-based order of the queues the agent intercepted
    uint64_t start;
    uint64_t end;
    uint64_t agent;        // hsa_agent_t handle of the queue's agent
    uint64_t queue;        // hsa_queue_t address
    uint64_t packetId;     // write index of the packet in its queue
    unsigned char packet[64];  // the AQL packet as the application wrote it
};
static_assert(sizeof(HsaDispatchPayload) == 112, "HsaDispatchPayload layout");

// One hsa_amd_memory_async_copy, recorded when its completion signal fired. Times in the HSA
// system clock domain; status < 0 when the copy failed (then no times).
struct HsaCopyPayload {
    uint32_t type;         // HsaDeviceRecord::Copy
    int32_t status;
    uint64_t enqueueId;    // the ApiCallHead::enqueueId of the copy call
    uint64_t start;
    uint64_t end;
};
static_assert(sizeof(HsaCopyPayload) == 32, "HsaCopyPayload layout");

// A reading of the HSA system clock bracketed by two readings of the trace clock
// (CLOCK_MONOTONIC ns), taken with no recorder conversion in between.
struct HsaCalibrationPayload {
    uint32_t type;          // HsaDeviceRecord::Calibration
    uint32_t reserved;
    uint64_t systemTime;    // HSA_SYSTEM_INFO_TIMESTAMP
    uint64_t frequency;     // HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY (Hz)
    uint64_t hostBefore;    // CLOCK_MONOTONIC ns just before
    uint64_t hostAfter;     // and just after
};
static_assert(sizeof(HsaCalibrationPayload) == 40, "HsaCalibrationPayload layout");

// ObjectInfo types of the HSA agent (values apart from the OpenCL ones).
enum class HsaObjectType : uint32_t {
    Agent = 16,   // id = index among GPU agents (kNotGpu otherwise); handle; properties =
                  // hsa_device_type_t; str1 = agent name
    Kernel = 17,  // handle = kernel_object; parent = executable symbol; str1 = symbol name
};
inline constexpr uint32_t kNotGpu = 0xffffffffu;

}  // namespace perfmarker::record
