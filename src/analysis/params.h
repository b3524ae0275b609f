// Reading values back out of printed API parameters (docs/format.md#parameters for OpenCL,
// docs/format.md#hsa-api-trace for HSA). Everything here is lenient: text that does not have
// the expected shape gives "no value", never an error, because the rules must work on traces of
// any writer version.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "atp/read/trace_events.h"

namespace perfmarker::analysis {

// The parameter at `index`, or "" when the call has fewer.
std::string_view paramAt(const std::vector<std::string_view>& params, size_t index);

// "[x]" -> "x"; other text unchanged. Only one level.
std::string_view stripBrackets(std::string_view text);

// Splits "a,b,c" on commas outside brackets and braces.
std::vector<std::string_view> splitList(std::string_view text);

// The product of an N-dimensional size: "[64,64]", "{1048576}", "64" -> the product; no value
// for "NULL", "{NULL}", "" or non-numbers.
std::optional<uint64_t> sizeProduct(std::string_view text);

// Lower-cased handle ("0x2101E80" and "0x2101e80" are the same object); "" for "NULL"/"0".
std::string normalizeHandle(std::string_view text);

// True when `flags` ("A|B|C") holds the name `flag`.
bool hasFlag(std::string_view flags, std::string_view flag);

// The value of the HSA parameter "name=value", or no value when the call has none.
std::optional<std::string_view> hsaParam(const std::vector<std::string_view>& params,
                                         std::string_view name);

// An hsa_agent_t as printed: "{handle=31298480,name=gfx900}" -> handle and unescaped name.
struct HsaAgent {
    std::string handle;
    std::string name;
};
std::optional<HsaAgent> parseHsaAgent(std::string_view text);

// Decimal digits only, no sign; no value on overflow or other characters.
std::optional<uint64_t> parseUnsigned(std::string_view text);

// ---- OpenCL parameters by name -------------------------------------------------------------
//
// The rules and pages read an OpenCL call's parameters by their names in the API catalogue
// (api/ocl_api.h: the prototypes of cl_api_table.inc), never by position. The few APIs the
// format has an id for but the catalogue no prototype (AMD extensions outside the dispatch
// table, the Windows sharing APIs) are read by the prototypes of params.cpp.

// One parameter the analysis reads and the APIs it reads it from. Made once (oclParams()), it
// keeps the parameter's position in each of those APIs, so that reading it from a call costs
// one hash lookup of the call's API name.
class OclParam {
public:
    // `names`: the parameter's name, or its names where the APIs name it differently (the
    // object of clRetainKernel is `kernel`, of clRetainEvent `event`); the first one an API
    // has counts. `apis`: the APIs it is read from; '*' matches any text ("clRetain*").
    OclParam(std::vector<std::string_view> names, std::vector<std::string_view> apis);

    // The printed value in `call`: "" when the call printed fewer parameters or its API is
    // not one of `apis`.
    std::string_view in(const atp::OclApiCall& call) const;

    // A line for each API pattern that matches no API and each API it matches that has none
    // of `names`: a programming error, so the unit tests expect none for oclParams().
    std::vector<std::string> unresolved() const;

private:
    std::vector<std::string_view> m_names;
    std::vector<std::string_view> m_apis;
    std::unordered_map<std::string_view, size_t> m_positions;  // API name -> index
};

// Every OpenCL parameter the rules and pages read.
struct OclParams {
    OclParam queue{{"command_queue"}, {"clFinish", "clSetCommandQueueProperty", "clEnqueue*"}};
    // What clRetain* and clRelease* count: the object of its one parameter.
    OclParam retained{{"context", "command_queue", "memobj", "sampler", "program", "kernel",
                       "event", "device", "file"},
                      {"clRetain*", "clRelease*"}};
    // The owner of a new queue, buffer or image: its context (for a sub-buffer, its buffer).
    OclParam owner{{"context", "buffer"},
                   {"clCreate*CommandQueue*", "clCreate*Buffer*", "clCreate*Image*"}};
    OclParam kernels{{"kernels"}, {"clCreateKernelsInProgram"}};
    OclParam svmPointer{{"svm_pointer"}, {"clSVMFree", "clSVMFreeAMD"}};
    OclParam properties{{"properties"},
                        {"clCreateCommandQueue", "clCreateCommandQueueWithProperties",
                         "clSetCommandQueueProperty"}};
    OclParam enable{{"enable"}, {"clSetCommandQueueProperty"}};
    // cl_icd.h names the flag of clEnqueueWriteBufferRect `blocking_read`.
    OclParam blockingWrite{
        {"blocking_write", "blocking_read"},
        {"clEnqueueWriteBuffer", "clEnqueueWriteBufferRect", "clEnqueueWriteImage"}};
    OclParam globalWorkSize{{"global_work_size"}, {"clEnqueueNDRangeKernel"}};
    OclParam localWorkSize{{"local_work_size"}, {"clEnqueueNDRangeKernel"}};
    OclParam bufferFlags{{"flags"}, {"clCreateBuffer"}};
    OclParam mappedBuffer{{"buffer"}, {"clEnqueueMapBuffer"}};
    OclParam mapFlags{{"map_flags"}, {"clEnqueueMapBuffer"}};
    OclParam waitEvents{{"event_list"}, {"clWaitForEvents"}};
    OclParam infoEvent{{"event"}, {"clGetEventInfo"}};

    // All of the above.
    std::vector<const OclParam*> all() const;
};

// Made on first use (thread-safe), kept until the process ends.
const OclParams& oclParams();

}  // namespace perfmarker::analysis
