// OpenCL timestamp lines (docs/format.md#timestamp-lines): the one writer and the one field reader.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "atp/format/decimal.h"

namespace perfmarker::atp {

// cl_command_type values the line layout depends on (docs/format.md#command-types).
inline constexpr uint32_t kClCommandNdrangeKernel = 0x11F0;
inline constexpr uint32_t kClCommandTask = 0x11F1;
inline constexpr uint32_t kClCommandNativeKernel = 0x11F2;

// Whether a timestamp line of this command type ends with a data size (transfers, fills and
// the SVM copy/map/unmap commands the original agent wrote a size for).
bool oclCommandHasDataSize(uint32_t commandType);

// One timestamp line. Fields 5 and on (the enqueue extension) only when hasDevice.
struct OclTimestampLine {
    enum class Tail : uint8_t { None, Kernel, NativeKernel, DataSize };

    int apiType = 0;  // CL_FUNC_TYPE id (docs/format.md#opencl-api-ids)
    std::string apiName;
    uint64_t start = 0;  // CPU ns (CLOCK_MONOTONIC)
    uint64_t end = 0;

    bool hasDevice = false;
    uint32_t commandType = 0;
    std::string commandName;  // CL_COMMAND_..., or the decimal value
    uint64_t queued = 0;      // device times, already in the CPU clock
    uint64_t submit = 0;
    uint64_t deviceStart = 0;
    uint64_t deviceEnd = 0;
    uint64_t queueId = 0;
    std::string queueHandle;  // hex, as ToHexString
    uint64_t contextId = 0;
    std::string contextHandle;
    std::string deviceName;  // one token: spaces already replaced by '_'

    Tail tail = Tail::None;
    std::string kernelHandle;  // Kernel, NativeKernel (the user function for the latter)
    std::string kernelName;    // Kernel
    std::string globalSize;    // Kernel: "{a,b}"
    std::string localSize;     // Kernel: "{a,b}" / "{NULL}"
    uint64_t dataSize = 0;     // DataSize
};

// Appends the line with the widths of docs/format.md#timestamp-lines and a final '\n' (kernel lines
// end with the 8 spaces of the agent-written variant).
void appendOclTimestampLine(std::string& out, const OclTimestampLine& line);
// The same, the times written by `times` (decimal.h), which keeps the high digits they share
// from one line to the next.
void appendOclTimestampLine(std::string& out, const OclTimestampLine& line,
                            DecimalFieldWriter& times);

// Splits a line on whitespace (spaces, tabs, CR), as every reader must
// (docs/format.md#conventions).
void splitFields(std::string_view line, std::vector<std::string_view>& fields);

// Reads the fields of one timestamp line. False with `error` ("expected ..., got ...") when a
// field is missing or not a number where one is required. The tail is chosen by the command
// type: kernel fields for NDRange/Task, the function for Native, else an optional data size.
bool parseOclTimestampFields(const std::vector<std::string_view>& fields, OclTimestampLine& out,
                             std::string& error);

}  // namespace perfmarker::atp
