// The OpenCL API catalogue: for every dispatch slot of cl_api_table.inc, its name, ids and
// parameters, each with the one rule that says how the agent captures it and how the
// formatter prints it. The agent (profiler_hooks/opencl) compiles its capture plan from this
// catalogue at load time and the formatter (ocl_format.h) reads the captures back with it, so
// the two sides cannot disagree about a parameter.
//
// The rules are data: derived from each parameter's declared type and name (the stringified
// prototypes of cl_api_table.inc) by a few conventions, plus a short table of per-API
// exceptions (ocl_api.cpp). No OpenCL header is needed: constants come from ocl_names.inc.
//
// Capture encodings per kind (record/api_record.h CapturedHead; written only for a non-null
// pointer, and, for InfoValue and KernelArgValue, only after a successful call):
//
//   OutScalar, OutError, OutHandle   Scalar: the pointee, elemSize bytes zero-extended to 8
//   HandleArray                      Bytes: n x 8 (n = *countArg, limited by *countOutArg)
//   SizeArray                        Bytes: n x 8 (n = 3, or *countArg, at most 3 if clamp3)
//   ErrorArray                       Bytes: n x 4 (cl_int)
//   ImageFormat                      Bytes: n x 8 (two cl_uint each; n = 1 or as HandleArray)
//   ImageDesc                        Bytes: the cl_image_desc (kImageDescBytes)
//   BufferRegion                     Bytes: origin and size (16)
//   String                           String: at most kMaxStringBytes bytes, no terminator
//   Properties                       Bytes: values up to and including the 0 terminator, at
//                                    most kMaxPropertyValues values (no terminator: truncated)
//   InfoValue                        Bytes: min(param_value_size, *param_value_size_ret),
//                                    at most kMaxInfoValueBytes
//   KernelArgValue                   Bytes: the 8 bytes at arg_value when arg_size == 8
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

namespace perfmarker::atp::ocl {

enum class ParamKind : uint8_t {
    Handle,          // handle or pointer by value: ToHexString
    Unsigned,        // decimal
    Signed,          // decimal, sign-extended from 32 bits
    Bool,            // CL_TRUE / CL_FALSE
    Enum,            // name from `group`, else decimal
    Flags,           // names from `group` joined by |, rest decimal
    OutScalar,       // [value] (decimal, or flags when `group` is set)
    OutError,        // [CL_...]
    OutHandle,       // [0x...]
    HandleArray,     // [h1,h2,...]
    SizeArray,       // [a,b,c]
    ErrorArray,      // [E1,E2,...]
    ImageFormat,     // [{order,type},...]
    ImageDesc,       // [{type,w,h,d,array,row,slice,mips,samples,buffer}]
    BufferRegion,    // [{origin,size}]
    String,          // "text"
    Properties,      // [{NAME,value,...,NULL}]
    InfoValue,       // [decoded per param_name]
    KernelArgValue,  // [0x...] when arg_size == sizeof(void*), else the pointer
};

// Whether the agent stores what a parameter of this kind points to.
constexpr bool isCaptured(ParamKind k) { return k >= ParamKind::OutScalar; }

// Bounds of what the agent copies per captured value (a longer value is cut at the bound; the
// formatter then shows what was captured).
inline constexpr size_t kMaxInfoValueBytes = 4096;
inline constexpr size_t kMaxStringBytes = 4096;
inline constexpr size_t kMaxArrayElements = 1024;
inline constexpr size_t kMaxPropertyValues = 64;
inline constexpr size_t kImageDescBytes = 72;  // cl_image_desc on LP64

struct ParamSpec {
    std::string_view name;
    std::string_view type;  // as declared, e.g. "const cl_device_id*"
    ParamKind kind = ParamKind::Handle;
    std::string_view group;   // name group (ocl_names.inc) for Enum, Flags, OutScalar, Properties
    int8_t countArg = -1;     // arrays, InfoValue: argument holding the element count / size
    int8_t countOutArg = -1;  // ... and the output count / size limiting it after the call
    uint8_t elemSize = 8;     // OutScalar: bytes of the pointee
    bool clamp3 = false;      // SizeArray: at most 3 elements (work sizes)
};

struct ApiSpec {
    std::string_view name;        // empty for a reserved slot
    std::string_view returnType;  // "cl_int", "cl_mem", "void*", "void"
    int funcTypeId = -1;          // CL_FUNC_TYPE, -1 when the format has none
    bool isEnqueue = false;
    unsigned slot = 0;
    int8_t infoNameArg = -1;  // clGet*Info: the param_name argument InfoValue decodes by
    std::vector<ParamSpec> params;
};

// Every dispatch slot, indexed by slot. Built once, on first use (thread-safe).
const std::vector<ApiSpec>& apis();
const ApiSpec* apiBySlot(unsigned slot);
const ApiSpec* apiByName(std::string_view name);

// The names of a group in header order, or null when the group has none.
using NameList = std::vector<std::pair<int64_t, std::string_view>>;
const NameList* namesOf(std::string_view group);

// The name of `value` in `group`, or empty.
std::string_view nameOf(std::string_view group, int64_t value);

// How a clGet*Info result is decoded, per param_name (the table in ocl_api.cpp).
enum class InfoType : uint8_t { Auto, String, LongString, Bool, Enum, Flags, Handles, Sizes };
struct InfoRule {
    InfoType type = InfoType::Auto;  // Auto: a number by its size, else 8-byte numbers
    std::string_view group;
};
InfoRule infoRule(std::string_view infoGroup, uint32_t paramName);

}  // namespace perfmarker::atp::ocl
