// OpenCL API-trace text (docs/format.md#api-trace-lines) from the agent's raw ApiCall records, and
// the per-enqueue fields of the timestamp lines (docs/format.md#timestamp-lines). Reads the
// captures with the rules of ocl_api.h; calls no OpenCL runtime and needs no OpenCL header.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "record/api_record.h"

namespace perfmarker::atp {

struct OclLineOptions {
    uint32_t consecutiveCalls = 1;  // > 1: a collapsed clGetEventInfo (" /*N consecutive calls*/")
};

// Writes the API-trace line `Ret = Name ( p1;p2;... )` (no line end) of one ApiCall record.
// Returns false with `error` (and leaves `line` unspecified) when the payload does not match
// its API: unknown slot, wrong argument count, malformed or wrongly sized captures.
bool formatOclApiLine(const record::ApiCallView& call, std::string& line, std::string& error,
                      const OclLineOptions& options = {});

// As above, appending the line to `out` (on failure `out` may hold part of it).
bool appendOclApiLine(const record::ApiCallView& call, std::string& out, std::string& error,
                      const OclLineOptions& options = {});

// As above, decoding the payload (RecordView::str0 of an ApiCall record) first.
bool formatOclApiLine(std::string_view payload, std::string& line, std::string& error,
                      const OclLineOptions& options = {});

// What a timestamp line of an enqueue API needs besides the times (docs/format.md#timestamp-lines,
// fields 11 on).
struct OclEnqueueFields {
    uint64_t queue = 0;        // the command queue argument
    uint64_t kernel = 0;       // kernel handle (NDRange, Task) or user function (Native)
    std::string globalSize;    // "{v1,v2}" / "{1}" (Task); empty for other commands
    std::string localSize;     // "{v1,v2}" / "{NULL}" / "{1}" (Task)
    bool hasDataSize = false;  // transfer / fill / SVM size known
    uint64_t dataSize = 0;     // bytes: cb / size, or the region product (images: in pixels)
};

// Fills `fields` for an enqueue API's record. False with `error` for a malformed payload or an
// API that is not an enqueue.
bool oclEnqueueFields(const record::ApiCallView& call, OclEnqueueFields& fields,
                      std::string& error);

// Name of an API by its CL_FUNC_TYPE id ("Unknown_function_type" when there is none), and
// whether the id is an enqueue API (its timestamp line carries device times).
std::string oclApiName(int funcTypeId);
std::string_view oclApiNameView(int funcTypeId);  // the same, a catalogue string
bool oclIsEnqueueApi(int funcTypeId);

// Name of a dispatch slot's API (the agent's ApiCallHead::slot); empty when none.
std::string oclSlotName(unsigned slot);

// `CL_COMMAND_...` for a cl_command_type, decimal when unknown (docs/format.md#command-types).
std::string oclCommandTypeName(uint32_t commandType);

// `CL_SUCCESS`, `CL_INVALID_VALUE`, ... decimal when unknown (docs/format.md#return-values).
std::string oclErrorName(int32_t code);

// The handle form (docs/format.md#conventions) of a pointer-sized value on Linux: `NULL` for 0,
// else lowercase hex with a 0x prefix.
std::string oclHandleString(uint64_t value);
void appendOclHandle(std::string& out, uint64_t value);

}  // namespace perfmarker::atp
