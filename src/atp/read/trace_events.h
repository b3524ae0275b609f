// The typed records the .atp reader announces (docs/format.md): what one line, or one pair of
// paired lines, of a trace means. Every consumer of traces (summaries, exporters, the report)
// works on these and never on text. String views point into the reader's buffers and are valid
// only during the listener call; copy what you keep.
#pragma once

#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "atp/format/atp_header.h"
#include "atp/format/perfmarker_section.h"

namespace perfmarker::atp {

// Where a record came from: the input's name and the 1-based line number.
struct SourceLocation {
    std::string_view file;
    uint64_t line = 0;
};

// The device part of an OpenCL enqueue's timestamp line (docs/format.md#timestamp-lines, fields
// 5-15 and the command-type specific tail). Present only when the enqueue succeeded.
struct OclCommand {
    uint32_t commandType = 0;         // cl_command_type, e.g. 4592
    std::string_view commandName;     // "CL_COMMAND_NDRANGE_KERNEL" (as written)
    uint64_t queued = 0;              // ns, host clock (CPU domain)
    uint64_t submit = 0;
    uint64_t start = 0;               // device start
    uint64_t end = 0;                 // device end
    uint64_t queueId = 0;             // 0-based creation counter of the queue
    std::string_view queueHandle;     // "0x20f4a30"
    uint64_t contextId = 0;
    std::string_view contextHandle;
    std::string_view deviceName;      // spaces already '_' in the file
    // Kernels (NDRANGE_KERNEL, TASK, NATIVE_KERNEL): the handle and the name (NATIVE_KERNEL:
    // "NATIVE_KERNEL (<ptr>)", synthesized as the original readers did), the sizes as written
    // ("{1048576}", "{256}", "{NULL}").
    bool isKernel = false;
    std::string_view kernelHandle;
    std::string kernelName;           // owned: may be synthesized
    std::string_view globalSize;
    std::string_view localSize;
    // Transfers and data operations: the size in bytes when the line has one.
    bool hasDataSize = false;
    uint64_t dataSize = 0;
};

// One OpenCL API call: the API-trace line joined with its timestamp line
// (docs/format.md#api-trace-lines, docs/format.md#timestamp-lines).
struct OclApiCall {
    uint64_t tid = 0;
    uint64_t index = 0;                   // 0-based position in the thread's block
    int apiType = 0;                      // CL_FUNC_TYPE id from the timestamp line
    std::string_view name;                // "clEnqueueNDRangeKernel"
    std::string_view returnValue;         // "CL_SUCCESS", "0x1234", "" when none
    std::vector<std::string_view> params; // split on ';' outside quotes and brackets
    std::string_view comment;             // text inside /* */, "" when none
    // > 1 for collapsed clGetEventInfo (docs/format.md#collapsed-calls)
    uint32_t consecutiveCalls = 1;
    uint64_t start = 0;                   // ns, host clock
    uint64_t end = 0;
    bool hasCommand = false;              // the timestamp line carries device fields
    OclCommand command;
    SourceLocation apiLine;               // the line in the API Trace section
    SourceLocation timestampLine;         // the line in the Timestamp section
};

// One HSA API call: API-trace line joined with its timestamp line (docs/format.md#hsa-api-trace,
// docs/format.md#hsa-timestamp-lines).
struct HsaApiCall {
    uint64_t tid = 0;
    uint64_t index = 0;
    int apiType = 0;                       // HSA_API_Type id (docs/format.md#hsa-api-ids)
    std::string_view name;                 // "hsa_queue_create"
    std::string_view returnValue;          // "" for void APIs
    std::vector<std::string_view> params;  // "name=value" items
    uint64_t start = 0;
    uint64_t end = 0;
    bool hasTransferTimes = false;         // hsa_amd_memory_async_copy[_rect] with device times
    uint64_t transferStart = 0;
    uint64_t transferEnd = 0;
    SourceLocation apiLine;
    SourceLocation timestampLine;
};

// One line of the HSA Kernel Timestamp section (docs/format.md#kernel-dispatches).
struct HsaKernelDispatch {
    std::string kernelName;        // unescaped (&nbsp; -> ' ', &comma; -> ',')
    std::string_view kernelHandle; // "0x7F8C3A2B1C00"
    uint64_t start = 0;
    uint64_t end = 0;
    std::string agentName;         // unescaped
    std::string_view agentHandle;  // "{31298480}"
    uint64_t queueIndex = 0;       // 0 when the line has no queue-index column
    bool hasQueueIndex = true;     // false in lines older than format 3.2
    // The GPU index as written ("0"); files of CodeXL 2.0-2.3 hold the queue handle there
    // ("0x7f..."): the text is kept, and agentIndex is the number only when it is decimal
    // (docs/format.md#leniencies).
    std::string_view agentIndexText;
    uint64_t agentIndex = 0;
    bool hasAgentIndex = true;
    std::string_view packetType;   // "HSA_PACKET_TYPE_KERNEL_DISPATCH"
    std::string_view packetId;
    std::string_view packet;       // "{header,setup,...}" as written, may be empty
    SourceLocation line;
};

// One marker line of the Perfmarker section (docs/format.md#perfmarker-section).
struct MarkerEvent {
    uint64_t tid = 0;
    const Marker* marker = nullptr;  // kind, timestamp, name, group, user string, line
    SourceLocation line;
};

// ---- times ----------------------------------------------------------------------------------
// docs/format.md#unknown-times: a time of 0 is no time (an enqueue whose device times never
// arrived, a call without a timestamp line), never the start of the clock. An interval is
// usable only when both its ends are known and the end does not precede the start; the tools
// leave the others out of every duration, timeline and export, and say so.
enum class Times : uint8_t { Known, Unknown, EndBeforeStart };

constexpr Times timesOf(uint64_t start, uint64_t end) {
    if (start == 0 || end == 0) return Times::Unknown;
    return end < start ? Times::EndBeforeStart : Times::Known;
}
inline Times hostTimes(const OclApiCall& call) { return timesOf(call.start, call.end); }
inline Times hostTimes(const HsaApiCall& call) { return timesOf(call.start, call.end); }
// (Of a call with hasCommand.)
inline Times deviceTimes(const OclCommand& command) { return timesOf(command.start, command.end); }
// (Of a call with hasTransferTimes.)
inline Times transferTimes(const HsaApiCall& call) {
    return timesOf(call.transferStart, call.transferEnd);
}
inline Times deviceTimes(const HsaKernelDispatch& dispatch) {
    return timesOf(dispatch.start, dispatch.end);
}

// kApiCallsLeftOutKey (atp/format/atp_header.h, docs/format.md#traces-cut-at-the-call-cap):
// The count of an ApiCallsLeftOut= value; nullopt when it is not a decimal number.
inline std::optional<uint64_t> apiCallsLeftOut(std::string_view value) {
    uint64_t count = 0;
    const char* end = value.data() + value.size();
    const auto result = std::from_chars(value.data(), end, count);
    if (value.empty() || result.ec != std::errc() || result.ptr != end) return std::nullopt;
    return count;
}

enum class ApiFamily : uint8_t { Ocl, Hsa };

// One line of a Stack Trace section (docs/format.md#stack-trace-lines).
struct StackEntry {
    ApiFamily family = ApiFamily::Ocl;
    uint64_t tid = 0;
    uint64_t index = 0;
    std::string_view apiName;
    std::string symbol;             // unescaped; "" when the line has none
    uint64_t sourceLine = 0;        // 0 when unknown
    std::string file;               // unescaped; "" when unknown
    std::string_view address;       // "<module-relative address>+0x..." form, "" otherwise
    SourceLocation line;
};

}  // namespace perfmarker::atp
