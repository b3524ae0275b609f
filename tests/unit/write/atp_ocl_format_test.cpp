// The OpenCL API-trace formatter: the example lines of docs/format.md#api-line-examples, byte for
// byte, from payloads built the way the agent writes them, the per-enqueue timestamp fields, the
// catalogue rules the agent captures by, and malformed payloads (an error, never a crash).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "api/ocl_api.h"
#include "atp/write/ocl_api_line.h"

namespace {

using perfmarker::atp::formatOclApiLine;
using perfmarker::atp::OclEnqueueFields;
using perfmarker::atp::OclLineOptions;
using perfmarker::record::ApiCallHead;
using perfmarker::record::CapturedHead;
using perfmarker::record::CaptureEncoding;
namespace ocl = perfmarker::atp::ocl;

constexpr uint64_t kSuccess = 0;

// Builds an ApiCall payload as the agent lays it out (record/api_record.h).
class Payload {
public:
    Payload(const char* api, uint64_t ret, std::vector<uint64_t> args) : m_args(std::move(args)) {
        const ocl::ApiSpec* spec = ocl::apiByName(api);
        EXPECT_NE(spec, nullptr) << api;
        m_head.apiId = spec->funcTypeId < 0 ? perfmarker::record::kNoApiId
                                            : static_cast<uint32_t>(spec->funcTypeId);
        m_head.slot = static_cast<uint16_t>(spec->slot);
        m_head.argCount = static_cast<uint16_t>(m_args.size());
        m_head.ret = ret;
    }
    Payload& scalar(uint16_t arg, uint64_t v) { return add(arg, CaptureEncoding::Scalar, &v, 8); }
    Payload& string(uint16_t arg, const std::string& s) {
        return add(arg, CaptureEncoding::String, s.data(), s.size());
    }
    template <typename T>
    Payload& array(uint16_t arg, const std::vector<T>& v) {
        return add(arg, CaptureEncoding::Bytes, v.data(), v.size() * sizeof(T));
    }
    Payload& bytes(uint16_t arg, const std::string& b) {
        return add(arg, CaptureEncoding::Bytes, b.data(), b.size());
    }
    std::string str() const {
        std::string out(reinterpret_cast<const char*>(&m_head), sizeof m_head);
        out.append(reinterpret_cast<const char*>(m_args.data()), m_args.size() * 8);
        return out + m_captures;
    }

private:
    Payload& add(uint16_t arg, CaptureEncoding e, const void* p, size_t n) {
        CapturedHead c{arg, static_cast<uint16_t>(e), static_cast<uint32_t>(n)};
        m_captures.append(reinterpret_cast<const char*>(&c), sizeof c);
        m_captures.append(static_cast<const char*>(p), n);
        m_captures.append(perfmarker::record::padTo8(n) - n, '\0');
        return *this;
    }
    ApiCallHead m_head{};
    std::vector<uint64_t> m_args;
    std::string m_captures;
};

std::string line(const Payload& p, const OclLineOptions& options = {}) {
    std::string out, error;
    EXPECT_TRUE(formatOclApiLine(p.str(), out, error, options)) << error;
    return out;
}

constexpr uint64_t kPlatform = 0x7f1c44a5e1c0;
constexpr uint64_t kDevice = 0x1f3a6b0;
constexpr uint64_t kContext = 0x2071c40;
constexpr uint64_t kQueue = 0x20f4a30;
constexpr uint64_t kBuffer = 0x2101e80;
constexpr uint64_t kProgram = 0x21aa300;
constexpr uint64_t kKernel = 0x21ff890;
constexpr uint64_t kEvent = 0x2233aa0;
constexpr uint64_t kPtr = 0x7ffd5a3c0000;  // any non-null application pointer

TEST(OclFormat, DocumentedExampleLinesPlatformAndDevice) {
    EXPECT_EQ(line(Payload("clGetPlatformIDs", kSuccess, {0, 0, kPtr}).scalar(2, 1)),
              "CL_SUCCESS = clGetPlatformIDs ( 0;NULL;[1] )");
    EXPECT_EQ(
        line(Payload("clGetPlatformIDs", kSuccess, {1, kPtr, 0}).array<uint64_t>(1, {kPlatform})),
        "CL_SUCCESS = clGetPlatformIDs ( 1;[0x7f1c44a5e1c0];NULL )");
    EXPECT_EQ(
        line(Payload("clGetDeviceIDs", kSuccess, {kPlatform, 4, 1, kPtr, 0})
                 .array<uint64_t>(3, {kDevice})),
        "CL_SUCCESS = clGetDeviceIDs ( 0x7f1c44a5e1c0;CL_DEVICE_TYPE_GPU;1;[0x1f3a6b0];NULL )");
    EXPECT_EQ(line(Payload("clGetDeviceInfo", kSuccess, {kDevice, 0x102B, 64, kPtr, kPtr})
                       .bytes(3, std::string("gfx900\0", 7))
                       .scalar(4, 7)),
              "CL_SUCCESS = clGetDeviceInfo ( 0x1f3a6b0;CL_DEVICE_NAME;64;[\"gfx900\"];[7] )");
}

TEST(OclFormat, DocumentedExampleLinesObjects) {
    // The documented example line (docs/format.md#api-line-examples) prints a platform
    // 0x7f1c475721c0 in decimal (not the 0x7f1c44a5e1c0 of its other lines); property values
    // are decimal.
    EXPECT_EQ(line(Payload("clCreateContext", kContext, {kPtr, 1, kPtr, 0, 0, kPtr})
                       .array<uint64_t>(0, {0x1084, 0x7f1c475721c0, 0})
                       .array<uint64_t>(2, {kDevice})
                       .scalar(5, 0)),
              "0x2071c40 = clCreateContext ( [{CL_CONTEXT_PLATFORM,139759432704448,NULL}];1;"
              "[0x1f3a6b0];NULL;NULL;[CL_SUCCESS] )");
    EXPECT_EQ(line(Payload("clCreateCommandQueue", kQueue, {kContext, kDevice, 0, 0})),
              "0x20f4a30 = clCreateCommandQueue ( 0x2071c40;0x1f3a6b0;0;NULL )");
    EXPECT_EQ(line(Payload("clCreateBuffer", kBuffer, {kContext, 4 | 32, 4096, 0x7ffd5a3c1e10, 0})),
              "0x2101e80 = clCreateBuffer ( 0x2071c40;CL_MEM_READ_ONLY|CL_MEM_COPY_HOST_PTR;4096;"
              "0x7ffd5a3c1e10;NULL )");
    EXPECT_EQ(line(Payload("clBuildProgram", kSuccess, {kProgram, 1, kPtr, kPtr, 0, 0})
                       .array<uint64_t>(2, {kDevice})
                       .string(3, "-O3")),
              "CL_SUCCESS = clBuildProgram ( 0x21aa300;1;[0x1f3a6b0];\"-O3\";NULL;NULL )");
    EXPECT_EQ(line(Payload("clCreateKernel", kKernel, {kProgram, kPtr, kPtr})
                       .string(1, "reduce")
                       .scalar(2, 0)),
              "0x21ff890 = clCreateKernel ( 0x21aa300;\"reduce\";[CL_SUCCESS] )");
    EXPECT_EQ(line(Payload("clSetKernelArg", kSuccess, {kKernel, 0, 8, kPtr})
                       .array<uint64_t>(3, {kBuffer})),
              "CL_SUCCESS = clSetKernelArg ( 0x21ff890;0;8;[0x2101E80] )");
}

TEST(OclFormat, DocumentedExampleLinesEnqueues) {
    EXPECT_EQ(line(Payload("clEnqueueNDRangeKernel", kSuccess,
                           {kQueue, kKernel, 1, 0, kPtr, kPtr, 0, 0, kPtr})
                       .array<uint64_t>(4, {1048576})
                       .array<uint64_t>(5, {256})
                       .scalar(8, kEvent)),
              "CL_SUCCESS = clEnqueueNDRangeKernel ( 0x20f4a30;0x21ff890;1;NULL;[1048576];[256];0;"
              "NULL;[0x2233aa0] )");
    EXPECT_EQ(
        line(Payload("clEnqueueReadBuffer", kSuccess,
                     {kQueue, kBuffer, 1, 0, 4096, 0x7ffd5a3c2e10, 1, kPtr, 0})
                 .array<uint64_t>(7, {kEvent})),
        "CL_SUCCESS = clEnqueueReadBuffer ( 0x20f4a30;0x2101e80;CL_TRUE;0;4096;0x7ffd5a3c2e10;"
        "1;[0x2233aa0];NULL )");
    OclLineOptions collapsed;
    collapsed.consecutiveCalls = 37;
    EXPECT_EQ(line(Payload("clGetEventInfo", kSuccess, {kEvent, 0x11D3, 4, kPtr, 0})
                       .bytes(3, std::string(4, '\0')),
                   collapsed),
              "CL_SUCCESS = clGetEventInfo ( 0x2233aa0;CL_EVENT_COMMAND_EXECUTION_STATUS;4;"
              "[CL_COMPLETE];NULL /*37 consecutive calls*/ )");
    EXPECT_EQ(
        line(Payload("clEnqueueNDRangeKernel", static_cast<uint64_t>(int64_t{-52}),
                     {kQueue, kKernel, 2, 0, kPtr, 0, 0, 0, 0})
                 .array<uint64_t>(4, {64, 64})),
        "CL_INVALID_KERNEL_ARGS = clEnqueueNDRangeKernel ( 0x20f4a30;0x21ff890;2;NULL;[64,64];"
        "NULL;0;NULL;NULL )");
}

TEST(OclFormat, FailedQueriesEmptyArraysAndUnknownValues) {
    // A failed clGet*Info prints empty brackets for the value; a zero-count list prints [].
    EXPECT_EQ(line(Payload("clGetPlatformInfo", static_cast<uint64_t>(int64_t{-30}),
                           {kPlatform, 0x0902, 4, kPtr, 0})),
              "CL_INVALID_VALUE = clGetPlatformInfo ( 0x7f1c44a5e1c0;CL_PLATFORM_NAME;4;[];NULL )");
    EXPECT_EQ(line(Payload("clWaitForEvents", kSuccess, {0, kPtr}).array<uint64_t>(1, {})),
              "CL_SUCCESS = clWaitForEvents ( 0;[] )");
    EXPECT_EQ(line(Payload("clFinish", static_cast<uint64_t>(int64_t{-9999}), {kQueue})),
              "-9999 = clFinish ( 0x20f4a30 )");
    EXPECT_EQ(line(Payload("clCreateBuffer", 0, {kContext, 1 | (uint64_t{1} << 40), 8, 0, kPtr})
                       .scalar(4, static_cast<uint32_t>(-61))),
              "NULL = clCreateBuffer ( 0x2071c40;CL_MEM_READ_WRITE|1099511627776;8;NULL;"
              "[CL_INVALID_BUFFER_SIZE] )");
    EXPECT_EQ(
        line(Payload("clGetDeviceIDs", kSuccess, {kPlatform, 0xFFFFFFFF, 0, 0, kPtr}).scalar(4, 1)),
        "CL_SUCCESS = clGetDeviceIDs ( 0x7f1c44a5e1c0;CL_DEVICE_TYPE_ALL;0;NULL;[1] )");
}

TEST(OclFormat, QueueProfilingAndStringsAndProperties) {
    EXPECT_EQ(
        line(Payload("clCreateCommandQueueWithProperties", kQueue, {kContext, kDevice, kPtr, 0})
                 .array<uint64_t>(2, {0x1093, 2, 0})),
        "0x20f4a30 = clCreateCommandQueueWithProperties ( 0x2071c40;0x1f3a6b0;"
        "[{CL_QUEUE_PROPERTIES,2,NULL}];NULL )");
    std::vector<uint64_t> cut(64, 0x1084);
    EXPECT_EQ(line(Payload("clCreateContext", kContext, {kPtr, 0, 0, 0, 0, 0}).array(0, cut))
                  .substr(0, 40),
              "0x2071c40 = clCreateContext ( [{CL_CONTE");
    EXPECT_NE(line(Payload("clCreateContext", kContext, {kPtr, 0, 0, 0, 0, 0}).array(0, cut))
                  .find(",4228,...}];0;"),
              std::string::npos);
    EXPECT_EQ(
        line(Payload("clGetProgramBuildInfo", kSuccess, {kProgram, kDevice, 0x1183, 100, kPtr, 0})
                 .bytes(4, std::string("line1\n\"x\"\t") + std::string(60, 'a') + '\0')),
        "CL_SUCCESS = clGetProgramBuildInfo ( 0x21aa300;0x1f3a6b0;CL_PROGRAM_BUILD_LOG;100;"
        "[\"line1\\n\\\"x\\\"\\t" +
            std::string(50, 'a') + "...\"];NULL )");
    EXPECT_EQ(line(Payload("clGetEventProfilingInfo", kSuccess, {kEvent, 0x1282, 8, kPtr, 0})
                       .array<uint64_t>(3, {4035402341000})),
              "CL_SUCCESS = clGetEventProfilingInfo ( 0x2233aa0;CL_PROFILING_COMMAND_START;8;"
              "[4035402341000];NULL )");
    EXPECT_EQ(line(Payload("clGetCommandQueueInfo", kSuccess, {kQueue, 0x1093, 8, kPtr, 0})
                       .array<uint64_t>(3, {3})),
              "CL_SUCCESS = clGetCommandQueueInfo ( 0x20f4a30;CL_QUEUE_PROPERTIES;8;"
              "[CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE|CL_QUEUE_PROFILING_ENABLE];NULL )");
}

TEST(OclFormat, SetKernelArgOfOtherSizesPrintsThePointer) {
    EXPECT_EQ(line(Payload("clSetKernelArg", kSuccess, {kKernel, 3, 4, kPtr})),
              "CL_SUCCESS = clSetKernelArg ( 0x21ff890;3;4;0x7ffd5a3c0000 )");
    EXPECT_EQ(
        line(Payload("clSetKernelArg", kSuccess, {kKernel, 1, 8, kPtr}).array<uint64_t>(3, {0})),
        "CL_SUCCESS = clSetKernelArg ( 0x21ff890;1;8;[0] )");
}

TEST(OclFormat, ImagesAndRegions) {
    struct Desc {
        uint32_t type, pad;
        uint64_t sizes[6];
        uint32_t mips, samples;
        uint64_t buffer;
    } desc{0x10F1, 0, {640, 480, 0, 0, 0, 0}, 0, 0, 0};
    static_assert(sizeof(Desc) == ocl::kImageDescBytes, "cl_image_desc layout");
    const std::string descBytes(reinterpret_cast<const char*>(&desc), sizeof desc);
    EXPECT_EQ(line(Payload("clCreateImage", kBuffer, {kContext, 1, kPtr, kPtr, 0, 0})
                       .array<uint64_t>(2, {0x10B5 | (uint64_t{0x10D2} << 32)})
                       .bytes(3, descBytes)),
              "0x2101e80 = clCreateImage ( 0x2071c40;CL_MEM_READ_WRITE;[{CL_RGBA,CL_UNORM_INT8}];"
              "[{CL_MEM_OBJECT_IMAGE2D,640,480,0,0,0,0,0,0,NULL}];NULL;NULL )");
    const Payload rect = Payload("clEnqueueReadBufferRect", kSuccess,
                                 {kQueue, kBuffer, 0, kPtr, kPtr, kPtr, 0, 0, 0, 0, kPtr, 0, 0, 0})
                             .array<uint64_t>(3, {0, 0, 0})
                             .array<uint64_t>(4, {1, 2, 0})
                             .array<uint64_t>(5, {16, 4, 2});
    EXPECT_EQ(line(rect),
              "CL_SUCCESS = clEnqueueReadBufferRect ( 0x20f4a30;0x2101e80;CL_FALSE;[0,0,0];[1,2,0];"
              "[16,4,2];0;0;0;0;0x7ffd5a3c0000;0;NULL;NULL )");
    perfmarker::record::ApiCallView view;
    const std::string bytes = rect.str();
    ASSERT_TRUE(perfmarker::record::decodeApiCall(bytes, view));
    OclEnqueueFields fields;
    std::string error;
    ASSERT_TRUE(perfmarker::atp::oclEnqueueFields(view, fields, error)) << error;
    EXPECT_TRUE(fields.hasDataSize);
    EXPECT_EQ(fields.dataSize, 128u);
}

TEST(OclFormat, EnqueueFieldsOfKernelsAndTransfers) {
    const std::string nd =
        Payload("clEnqueueNDRangeKernel", kSuccess, {kQueue, kKernel, 2, 0, kPtr, 0, 0, 0, kPtr})
            .array<uint64_t>(4, {64, 32})
            .scalar(8, kEvent)
            .str();
    perfmarker::record::ApiCallView view;
    ASSERT_TRUE(perfmarker::record::decodeApiCall(nd, view));
    OclEnqueueFields f;
    std::string error;
    ASSERT_TRUE(perfmarker::atp::oclEnqueueFields(view, f, error)) << error;
    EXPECT_EQ(f.queue, kQueue);
    EXPECT_EQ(f.kernel, kKernel);
    EXPECT_EQ(f.globalSize, "{64,32}");
    EXPECT_EQ(f.localSize, "{NULL}");
    EXPECT_FALSE(f.hasDataSize);

    const std::string rd =
        Payload("clEnqueueReadBuffer", kSuccess, {kQueue, kBuffer, 1, 0, 4096, kPtr, 0, 0, 0})
            .str();
    ASSERT_TRUE(perfmarker::record::decodeApiCall(rd, view));
    ASSERT_TRUE(perfmarker::atp::oclEnqueueFields(view, f, error)) << error;
    EXPECT_TRUE(f.hasDataSize);
    EXPECT_EQ(f.dataSize, 4096u);
    EXPECT_TRUE(f.globalSize.empty());

    const std::string task = Payload("clEnqueueTask", kSuccess, {kQueue, kKernel, 0, 0, 0}).str();
    ASSERT_TRUE(perfmarker::record::decodeApiCall(task, view));
    ASSERT_TRUE(perfmarker::atp::oclEnqueueFields(view, f, error)) << error;
    EXPECT_EQ(f.globalSize, "{1}");
    EXPECT_EQ(f.localSize, "{1}");

    const std::string finish = Payload("clFinish", kSuccess, {kQueue}).str();
    ASSERT_TRUE(perfmarker::record::decodeApiCall(finish, view));
    EXPECT_FALSE(perfmarker::atp::oclEnqueueFields(view, f, error));
}

TEST(OclFormat, NamesAndIds) {
    EXPECT_EQ(perfmarker::atp::oclCommandTypeName(0x11F0), "CL_COMMAND_NDRANGE_KERNEL");
    EXPECT_EQ(perfmarker::atp::oclCommandTypeName(0x120E), "CL_COMMAND_SVM_MIGRATE_MEM");
    EXPECT_EQ(perfmarker::atp::oclCommandTypeName(0x4080), "CL_COMMAND_WAIT_SIGNAL_AMD");
    EXPECT_EQ(perfmarker::atp::oclCommandTypeName(12345), "12345");
    EXPECT_EQ(perfmarker::atp::oclErrorName(0), "CL_SUCCESS");
    EXPECT_EQ(perfmarker::atp::oclErrorName(-7), "CL_PROFILING_INFO_NOT_AVAILABLE");
    EXPECT_EQ(perfmarker::atp::oclErrorName(-1001), "CL_PLATFORM_NOT_FOUND_KHR");
    EXPECT_EQ(perfmarker::atp::oclErrorName(-1102), "CL_INVALID_FILE_OBJECT_AMD");
    EXPECT_EQ(perfmarker::atp::oclErrorName(-4242), "-4242");
    EXPECT_EQ(perfmarker::atp::oclApiName(66), "clEnqueueNDRangeKernel");
    EXPECT_EQ(perfmarker::atp::oclApiName(124), "clEnqueueSVMFreeAMD");
    EXPECT_EQ(perfmarker::atp::oclApiName(146), "Unknown_function_type");
    EXPECT_TRUE(perfmarker::atp::oclIsEnqueueApi(66));
    EXPECT_FALSE(perfmarker::atp::oclIsEnqueueApi(74));
    EXPECT_EQ(perfmarker::atp::oclHandleString(0), "NULL");
    EXPECT_EQ(perfmarker::atp::oclHandleString(1), "0x1");
    EXPECT_EQ(perfmarker::atp::oclHandleString(0x10), "0x10");
    EXPECT_EQ(perfmarker::atp::oclHandleString(0xabc), "0xabc");
    EXPECT_EQ(perfmarker::atp::oclHandleString(0x100), "0x100");
    EXPECT_EQ(perfmarker::atp::oclHandleString(0x7f3a00c0ffeeULL), "0x7f3a00c0ffee");
    EXPECT_EQ(perfmarker::atp::oclHandleString(~0ULL), "0xffffffffffffffff");
}

// Every API of the table formats from a payload with all arguments zero (no captures) and one
// with every argument non-zero: the generic, type-driven path covers the whole surface.
TEST(OclFormat, EveryApiOfTheTableFormats) {
    size_t count = 0;
    for (const ocl::ApiSpec& api : ocl::apis()) {
        if (api.name.empty()) continue;
        ++count;
        const std::string name(api.name);
        std::vector<uint64_t> zeros(api.params.size(), 0), ones(api.params.size(), 1);
        for (const auto* args : {&zeros, &ones}) {
            std::string out, error;
            EXPECT_TRUE(formatOclApiLine(Payload(name.c_str(), 0, *args).str(), out, error))
                << name << ": " << error;
            EXPECT_NE(out.find(" = " + name + " ( "), std::string::npos) << out;
        }
    }
    EXPECT_EQ(count, 133u);
}

TEST(OclFormat, CatalogueRulesTheAgentCapturesBy) {
    const ocl::ApiSpec* ids = ocl::apiByName("clGetPlatformIDs");
    ASSERT_NE(ids, nullptr);
    EXPECT_EQ(ids->params[1].kind, ocl::ParamKind::HandleArray);
    EXPECT_EQ(ids->params[1].countArg, 0);
    EXPECT_EQ(ids->params[1].countOutArg, 2);
    EXPECT_EQ(ids->params[2].kind, ocl::ParamKind::OutScalar);
    EXPECT_EQ(ids->params[2].elemSize, 4);
    const ocl::ApiSpec* nd = ocl::apiByName("clEnqueueNDRangeKernel");
    ASSERT_NE(nd, nullptr);
    EXPECT_EQ(nd->params[4].kind, ocl::ParamKind::SizeArray);
    EXPECT_EQ(nd->params[4].countArg, 2);
    EXPECT_TRUE(nd->params[4].clamp3);
    EXPECT_EQ(nd->params[7].kind, ocl::ParamKind::HandleArray);
    EXPECT_EQ(nd->params[7].countArg, 6);
    EXPECT_EQ(nd->params[8].kind, ocl::ParamKind::OutHandle);
    const ocl::ApiSpec* info = ocl::apiByName("clGetKernelWorkGroupInfo");
    ASSERT_NE(info, nullptr);
    EXPECT_EQ(info->infoNameArg, 2);
    EXPECT_EQ(info->params[4].kind, ocl::ParamKind::InfoValue);
    EXPECT_EQ(info->params[5].kind, ocl::ParamKind::OutScalar);
    EXPECT_EQ(ocl::apiByName("clCreateContext")->params[3].kind, ocl::ParamKind::Handle);
    EXPECT_EQ(ocl::apiByName("clCreateContext")->params[0].kind, ocl::ParamKind::Properties);
    EXPECT_EQ(ocl::apiByName("clCreateProgramWithSource")->params[2].kind, ocl::ParamKind::Handle);
    EXPECT_EQ(ocl::apiByName("clCreateKernel")->params[1].kind, ocl::ParamKind::String);
}

TEST(OclFormat, MalformedPayloadsAreErrors) {
    const std::string good = Payload("clCreateKernel", kKernel, {kProgram, kPtr, kPtr})
                                 .string(1, "reduce")
                                 .scalar(2, 0)
                                 .str();
    std::string out, error;
    for (size_t n = 0; n < good.size(); ++n) {
        // Every prefix either decodes to a shorter but consistent payload or is rejected.
        const bool ok = formatOclApiLine(good.substr(0, n), out, error);
        if (!ok) {
            EXPECT_FALSE(error.empty()) << n;
        }
    }
    EXPECT_FALSE(formatOclApiLine(good.substr(0, 20), out, error));
    EXPECT_NE(error.find("truncated"), std::string::npos) << error;
    EXPECT_FALSE(formatOclApiLine(good.substr(0, good.size() - 8), out, error));
    EXPECT_NE(error.find("truncated capture"), std::string::npos) << error;

    EXPECT_FALSE(
        formatOclApiLine(Payload("clCreateKernel", kKernel, {kProgram, kPtr}).str(), out, error));
    EXPECT_NE(error.find("expected"), std::string::npos) << error;

    std::string badSlot = good;
    const uint16_t slot = 109;  // reserved (Direct3D 11) on this target
    std::memcpy(&badSlot[12], &slot, 2);
    EXPECT_FALSE(formatOclApiLine(badSlot, out, error));
    EXPECT_NE(error.find("slot"), std::string::npos) << error;

    // A scalar capture of the wrong size, an array that is not whole elements.
    EXPECT_FALSE(formatOclApiLine(
        Payload("clCreateKernel", kKernel, {kProgram, kPtr, kPtr}).bytes(2, "abc").str(), out,
        error));
    EXPECT_FALSE(formatOclApiLine(
        Payload("clGetPlatformIDs", kSuccess, {1, kPtr, 0}).bytes(1, "abcd").str(), out, error));
    EXPECT_FALSE(
        formatOclApiLine(Payload("clFinish", kSuccess, {kQueue}).scalar(5, 1).str(), out, error));
}

}  // namespace
