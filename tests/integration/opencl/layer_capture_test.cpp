// The ApiCall records the layer writes while recording, byte for byte: the layer is initialized
// under a session (scratch directory) in front of a fake next layer, calls go through its
// wrappers, and the records are read back from the recorder and decoded. The checked calls are
// written into recycled chunks, dirtied by earlier records, so that padding the layer fails to
// zero shows. Each
// capture kind of the catalogue (api/ocl_api.h) is checked against what the fake call received
// and wrote, including the bounds, the success-only outputs and the zero padding.
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "agent_exports.h"
#include "agent_state.h"
#include "cl_api.h"
#include "record/api_record.h"
#include "record/collect.h"
#include "record/recorder.h"

namespace {

using perfmarker::cltrace::kDispatchSlotCount;
using perfmarker::record::ApiCallView;
using perfmarker::record::CaptureEncoding;

constexpr char kPlatformName[] = "perfmarker fake platform";  // 24 characters

cl_int CL_API_CALL fakeGetPlatformInfo(cl_platform_id, cl_platform_info, size_t size,
                                       void* value, size_t* sizeRet) {
    if (sizeRet != nullptr) *sizeRet = sizeof kPlatformName;
    if (value == nullptr) return CL_SUCCESS;
    if (size < sizeof kPlatformName) return CL_INVALID_VALUE;
    std::memcpy(value, kPlatformName, sizeof kPlatformName);
    return CL_SUCCESS;
}

cl_int CL_API_CALL fakeGetPlatformIDs(cl_uint, cl_platform_id* platforms, cl_uint* count) {
    if (platforms != nullptr) {
        platforms[0] = reinterpret_cast<cl_platform_id>(0x1100);
        platforms[1] = reinterpret_cast<cl_platform_id>(0x1200);
    }
    if (count != nullptr) *count = 2;
    return CL_SUCCESS;
}

cl_mem CL_API_CALL fakeCreateBuffer(cl_context, cl_mem_flags, size_t, void*, cl_int* err) {
    if (err != nullptr) *err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return nullptr;
}

cl_int CL_API_CALL fakeSetKernelArg(cl_kernel, cl_uint, size_t, const void*) {
    return CL_SUCCESS;
}

cl_mem CL_API_CALL fakeCreateSubBuffer(cl_mem, cl_mem_flags, cl_buffer_create_type, const void*,
                                       cl_int* err) {
    if (err != nullptr) *err = CL_SUCCESS;
    return reinterpret_cast<cl_mem>(0x2200);
}

cl_mem CL_API_CALL fakeCreateImage(cl_context, cl_mem_flags, const cl_image_format*,
                                   const cl_image_desc*, void*, cl_int* err) {
    if (err != nullptr) *err = CL_SUCCESS;
    return reinterpret_cast<cl_mem>(0x2300);
}

// Succeeds when `lengths` is given, else fails (the status array is then not captured).
cl_program CL_API_CALL fakeCreateProgramWithBinary(cl_context, cl_uint n, const cl_device_id*,
                                                   const size_t* lengths, const unsigned char**,
                                                   cl_int* status, cl_int* err) {
    for (cl_uint i = 0; status != nullptr && i < n; ++i) status[i] = i == 0 ? CL_SUCCESS : -42;
    if (err != nullptr) *err = lengths != nullptr ? CL_SUCCESS : CL_INVALID_VALUE;
    return lengths != nullptr ? reinterpret_cast<cl_program>(0x3300) : nullptr;
}

cl_int CL_API_CALL fakeBuildProgram(cl_program, cl_uint, const cl_device_id*, const char*,
                                    void(CL_CALLBACK*)(cl_program, void*), void*) {
    return CL_SUCCESS;
}

cl_sampler CL_API_CALL fakeCreateSamplerWithProperties(cl_context, const cl_sampler_properties*,
                                                       cl_int* err) {
    if (err != nullptr) *err = CL_SUCCESS;
    return reinterpret_cast<cl_sampler>(0x4400);
}

cl_kernel CL_API_CALL fakeCreateKernel(cl_program, const char*, cl_int* err) {
    if (err != nullptr) *err = CL_SUCCESS;
    return reinterpret_cast<cl_kernel>(0x5500);
}

cl_int CL_API_CALL fakeWaitForEvents(cl_uint, const cl_event*) { return CL_SUCCESS; }
cl_int CL_API_CALL fakeFinish(cl_command_queue) { return CL_SUCCESS; }
void CL_API_CALL fakeSvmFree(cl_context, void*) {}
cl_int CL_API_CALL fakeUnloadCompiler() { return CL_SUCCESS; }

cl_icd_dispatch fakeTarget() {
    cl_icd_dispatch t{};
    auto* slots = reinterpret_cast<void**>(&t);
    for (cl_uint i = 0; i < kDispatchSlotCount; ++i) {
        slots[i] = reinterpret_cast<void*>(uintptr_t{0x10000} + i);  // never called
    }
    t.clGetPlatformInfo = &fakeGetPlatformInfo;
    t.clGetPlatformIDs = &fakeGetPlatformIDs;
    t.clCreateBuffer = &fakeCreateBuffer;
    t.clSetKernelArg = &fakeSetKernelArg;
    t.clCreateSubBuffer = &fakeCreateSubBuffer;
    t.clCreateImage = &fakeCreateImage;
    t.clCreateProgramWithBinary = &fakeCreateProgramWithBinary;
    t.clBuildProgram = &fakeBuildProgram;
    t.clCreateSamplerWithProperties = &fakeCreateSamplerWithProperties;
    t.clCreateKernel = &fakeCreateKernel;
    t.clWaitForEvents = &fakeWaitForEvents;
    t.clFinish = &fakeFinish;
    t.clSVMFree = &fakeSvmFree;
    t.clUnloadCompiler = &fakeUnloadCompiler;
    return t;
}

struct Record {
    uint64_t time = 0;
    std::string payload;
};

class Collector : public perfmarker::record::RecordVisitor {
public:
    std::vector<Record> apiCalls;
    void onThread(uint64_t, uint64_t) override {}
    void onRecord(const perfmarker::record::RecordView& r) override {
        if (r.kind == perfmarker::record::RecordKind::ApiCall) {
            apiCalls.push_back({r.time, std::string(r.str0)});
        }
    }
};

std::string bytesOf(const void* p, size_t n) { return {static_cast<const char*>(p), n}; }

template <typename T>
uint64_t word(T v) {
    uint64_t w = 0;
    std::memcpy(&w, &v, sizeof v);
    return w;
}

// What the test program passed, kept until the records are checked.
struct Calls {
    char name[64];
    size_t nameSize = 0;
    char shortName[10];
    size_t shortSize = 0;
    char unbounded[5000];
    cl_platform_id platforms[4] = {};
    cl_uint platformCount = 0;
    cl_int bufferError = 0;
    uint64_t argValue = 0x1122334455667788ull;
    uint32_t smallArg = 7;
    cl_buffer_region region{0x100, 0x80};
    cl_image_format format{CL_RGBA, CL_FLOAT};
    cl_image_desc desc{};
    cl_int imageError = 0;
    cl_device_id devices[2] = {reinterpret_cast<cl_device_id>(0xd1),
                               reinterpret_cast<cl_device_id>(0xd2)};
    size_t lengths[2] = {16, 32};
    cl_int status[2] = {};
    cl_int failedStatus[2] = {};
    cl_int programError = 0;
    cl_sampler_properties samplerProperties[5] = {CL_SAMPLER_NORMALIZED_COORDS, CL_TRUE,
                                                  CL_SAMPLER_FILTER_MODE, CL_FILTER_LINEAR, 0};
    cl_event events[3] = {reinterpret_cast<cl_event>(0xe1), reinterpret_cast<cl_event>(0xe2),
                          reinterpret_cast<cl_event>(0xe3)};
    std::string tempDir;
};

class LayerCapture : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        s_calls = new Calls;
        s_records = new std::vector<Record>;
        Calls& c = *s_calls;
        c.tempDir = std::filesystem::temp_directory_path().string() +
                    "/perfmarker-layer-capture-" + std::to_string(getpid());
        std::filesystem::create_directories(c.tempDir);
        setenv("PERFMARKER_OUTPUT", (c.tempDir + "/trace").c_str(), 1);
        setenv("PERFMARKER_TMPDIR", c.tempDir.c_str(), 1);
        setenv("PERFMARKER_MODE", "timeout", 1);
        setenv("PERFMARKER_INTERVAL_MS", "10", 1);
        setenv("PERFMARKER_MAX_MEMORY_MB", "1", 1);  // chunks are reused early

        static const cl_icd_dispatch target = fakeTarget();
        const cl_icd_dispatch* layer = nullptr;
        cl_uint entries = 0;
        ASSERT_EQ(clInitLayer(kDispatchSlotCount, &target, &entries, &layer), CL_SUCCESS);
        ASSERT_NE(perfmarker::cltrace::g_recorder, nullptr) << "no session";
        dirtyChunks(*layer, c);
        makeCalls(*layer, c);

        std::string error;
        perfmarker::record::Recorder* recorder = perfmarker::cltrace::g_recorder;
        ASSERT_TRUE(recorder->stop(error)) << error;
        Collector collector;
        ASSERT_TRUE(recorder->collect(collector, error)) << error;
        ASSERT_GE(collector.apiCalls.size(), kDirtyingCalls);
        for (size_t i = 0; i < kDirtyingCalls; ++i) {
            ApiCallView v;
            ASSERT_TRUE(perfmarker::record::decodeApiCall(collector.apiCalls[i].payload, v));
            ASSERT_EQ(v.head.slot, 1u) << "a dirtying call";
        }
        s_records->assign(collector.apiCalls.begin() + kDirtyingCalls, collector.apiCalls.end());
        // Nothing left for the exit flush and the merge at unload: the test owns its files.
        perfmarker::cltrace::g_recorder = nullptr;
        std::error_code ignored;
        std::filesystem::remove_all(c.tempDir, ignored);
    }

    // Records of 4 KiB of 0xa5 bytes through three times the memory cap: past the cap a thread
    // only gets chunks the writer recycled, and the calls below reuse them.
    static constexpr size_t kDirtyingCalls = 800;
    static void dirtyChunks(const cl_icd_dispatch& layer, Calls& c) {
        std::memset(c.unbounded, 0xa5, sizeof c.unbounded);
        for (size_t i = 0; i < kDirtyingCalls; ++i) {
            layer.clGetPlatformInfo(reinterpret_cast<cl_platform_id>(0x1100), 0, 4096, c.unbounded,
                                    nullptr);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }

    static void makeCalls(const cl_icd_dispatch& layer, Calls& c) {
        const auto platform = reinterpret_cast<cl_platform_id>(0x1100);
        const auto context = reinterpret_cast<cl_context>(0xc0);
        std::memset(c.name, 'x', sizeof c.name);
        std::memset(c.unbounded, 'u', sizeof c.unbounded);
        c.desc.image_type = CL_MEM_OBJECT_IMAGE2D;
        c.desc.image_width = 640;
        c.desc.image_height = 480;
        // 0-2: a query result, a failed one (buffer too small), one without a size output.
        layer.clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof c.name, c.name, &c.nameSize);
        layer.clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof c.shortName, c.shortName,
                                &c.shortSize);
        layer.clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof c.unbounded, c.unbounded,
                                nullptr);
        // 3-4: an output array limited by its output count; an error output on failure.
        layer.clGetPlatformIDs(4, c.platforms, &c.platformCount);
        layer.clCreateBuffer(context, CL_MEM_READ_ONLY, 4096, nullptr, &c.bufferError);
        // 5-6: a kernel argument by value (8 bytes: captured; 4 bytes: not).
        layer.clSetKernelArg(reinterpret_cast<cl_kernel>(0x5500), 0, 8, &c.argValue);
        layer.clSetKernelArg(reinterpret_cast<cl_kernel>(0x5500), 1, 4, &c.smallArg);
        // 7-8: fixed-size structures.
        layer.clCreateSubBuffer(reinterpret_cast<cl_mem>(0x2000), 0, CL_BUFFER_CREATE_TYPE_REGION,
                                &c.region, nullptr);
        layer.clCreateImage(context, 0, &c.format, &c.desc, nullptr, &c.imageError);
        // 9-10: an input array and a status array written only on success.
        const unsigned char* binaries[2] = {nullptr, nullptr};
        layer.clCreateProgramWithBinary(context, 2, c.devices, c.lengths, binaries, c.status,
                                        &c.programError);
        layer.clCreateProgramWithBinary(context, 2, c.devices, nullptr, binaries, c.failedStatus,
                                        nullptr);
        // 11-12: a string and a null string.
        layer.clBuildProgram(reinterpret_cast<cl_program>(0x3300), 2, c.devices,
                             "-cl-fast-relaxed-math", nullptr, nullptr);
        layer.clBuildProgram(reinterpret_cast<cl_program>(0x3300), 0, nullptr, nullptr, nullptr,
                             nullptr);
        // 13-15: a property list, a special case (the kernel's name), a handle list.
        layer.clCreateSamplerWithProperties(context, c.samplerProperties, nullptr);
        layer.clCreateKernel(reinterpret_cast<cl_program>(0x3300), "vadd", nullptr);
        layer.clWaitForEvents(3, c.events);
        // Paused: passed through, not recorded.
        amdtCodeXLStopProfiling();
        layer.clFinish(reinterpret_cast<cl_command_queue>(0x42));
        amdtCodeXLResumeProfiling();
        // 16-17: no result (void) and no argument.
        int svm = 0;
        layer.clSVMFree(context, &svm);
        layer.clUnloadCompiler();
    }

    static void TearDownTestSuite() {
        delete s_calls;
        delete s_records;
    }

    static const Record& record(size_t i) { return (*s_records)[i]; }

    static ApiCallView view(size_t i) {
        ApiCallView v;
        EXPECT_TRUE(perfmarker::record::decodeApiCall(record(i).payload, v)) << "record " << i;
        return v;
    }

    // The captured value of argument `arg` of record `i` with its encoding; "<none>" if absent.
    static std::string captured(size_t i, size_t arg, CaptureEncoding expected) {
        const ApiCallView v = view(i);
        CaptureEncoding encoding{};
        std::string_view bytes;
        if (!v.captured(arg, encoding, bytes)) return "<none>";
        EXPECT_EQ(static_cast<int>(encoding), static_cast<int>(expected))
            << "record " << i << " argument " << arg;
        return std::string(bytes);
    }

    static Calls* s_calls;
    static std::vector<Record>* s_records;
};

Calls* LayerCapture::s_calls = nullptr;
std::vector<Record>* LayerCapture::s_records = nullptr;

TEST_F(LayerCapture, RecordsEveryCallOnceInOrderAndNoneWhilePaused) {
    const uint16_t expectedSlots[] = {
        1, 1, 1, 0, 14, 38, 38, 82, 96, 27, 27, 30, 30, 133, 34, 41,
        static_cast<uint16_t>(offsetof(cl_icd_dispatch, clSVMFree) / sizeof(void*)),
        static_cast<uint16_t>(offsetof(cl_icd_dispatch, clUnloadCompiler) / sizeof(void*))};
    ASSERT_EQ(s_records->size(), std::size(expectedSlots));
    for (size_t i = 0; i < s_records->size(); ++i) {
        const ApiCallView v = view(i);
        EXPECT_EQ(v.head.slot, expectedSlots[i]) << "record " << i;
        EXPECT_GE(v.head.endTime, record(i).time) << "record " << i;
        EXPECT_EQ(v.head.enqueueId, 0u) << "record " << i;
        if (i > 0) {
            EXPECT_GE(record(i).time, record(i - 1).time) << "record " << i;
        }
    }
}

TEST_F(LayerCapture, QueryResultIsTheRecordByteForByte) {
    const Calls& c = *s_calls;
    ASSERT_GE(s_records->size(), 1u);
    const ApiCallView v = view(0);
    std::string expected;
    auto put = [&expected](uint64_t w) { expected += bytesOf(&w, 8); };
    put(v.head.endTime);
    put(uint64_t{1} | (uint64_t{1} << 32) | (uint64_t{5} << 48));  // CL_FUNC_TYPE id, slot, 5 args
    put(CL_SUCCESS);
    put(0);  // enqueue id
    put(0x1100);
    put(CL_PLATFORM_NAME);
    put(sizeof c.name);
    put(word(&c.name[0]));
    put(word(&c.nameSize));
    // param_value: the 25 bytes the call wrote (the rest of the buffer is not), padded to 32.
    put(uint64_t{3} | (uint64_t{1} << 16) | (uint64_t{sizeof kPlatformName} << 32));
    expected += bytesOf(kPlatformName, sizeof kPlatformName);
    expected += std::string(32 - sizeof kPlatformName, '\0');
    // param_value_size_ret: a scalar.
    put(uint64_t{4} | (uint64_t{3} << 16) | (uint64_t{8} << 32));
    put(sizeof kPlatformName);
    EXPECT_EQ(record(0).payload, expected);
    EXPECT_EQ(c.nameSize, sizeof kPlatformName);
}

TEST_F(LayerCapture, QueryResultOnlyAfterSuccessAndBoundedWithoutASizeOutput) {
    const Calls& c = *s_calls;
    ASSERT_GE(s_records->size(), 3u);
    EXPECT_EQ(view(1).head.ret, static_cast<uint64_t>(int64_t{CL_INVALID_VALUE}));
    EXPECT_EQ(captured(1, 3, CaptureEncoding::Bytes), "<none>");
    EXPECT_EQ(captured(1, 4, CaptureEncoding::Scalar), bytesOf(&c.shortSize, 8));
    // No size output: param_value_size bytes, cut at 4096.
    const std::string value = captured(2, 3, CaptureEncoding::Bytes);
    ASSERT_EQ(value.size(), 4096u);
    EXPECT_EQ(value, bytesOf(c.unbounded, 4096));
    EXPECT_EQ(captured(2, 4, CaptureEncoding::Scalar), "<none>");
}

TEST_F(LayerCapture, OutputArrayIsLimitedByItsOutputCount) {
    const Calls& c = *s_calls;
    ASSERT_GE(s_records->size(), 5u);
    EXPECT_EQ(captured(3, 1, CaptureEncoding::Bytes), bytesOf(c.platforms, 2 * 8));
    const uint64_t count = 2;
    EXPECT_EQ(captured(3, 2, CaptureEncoding::Scalar), bytesOf(&count, 8));
    // An error output is captured on failure too, zero-extended from its 4 bytes.
    EXPECT_EQ(view(4).head.ret, 0u);
    const uint64_t error = static_cast<uint32_t>(CL_MEM_OBJECT_ALLOCATION_FAILURE);
    EXPECT_EQ(captured(4, 4, CaptureEncoding::Scalar), bytesOf(&error, 8));
    EXPECT_EQ(c.bufferError, CL_MEM_OBJECT_ALLOCATION_FAILURE);
}

TEST_F(LayerCapture, KernelArgumentValueOnlyWhenPointerSized) {
    const Calls& c = *s_calls;
    ASSERT_GE(s_records->size(), 7u);
    EXPECT_EQ(captured(5, 3, CaptureEncoding::Bytes), bytesOf(&c.argValue, 8));
    EXPECT_EQ(captured(6, 3, CaptureEncoding::Bytes), "<none>");
    EXPECT_EQ(view(6).arg(2), 4u);
}

TEST_F(LayerCapture, FixedSizeStructures) {
    const Calls& c = *s_calls;
    ASSERT_GE(s_records->size(), 9u);
    EXPECT_EQ(captured(7, 3, CaptureEncoding::Bytes), bytesOf(&c.region, 16));
    EXPECT_EQ(captured(7, 4, CaptureEncoding::Scalar), "<none>");  // null errcode_ret
    EXPECT_EQ(captured(8, 2, CaptureEncoding::Bytes), bytesOf(&c.format, 8));
    EXPECT_EQ(captured(8, 3, CaptureEncoding::Bytes), bytesOf(&c.desc, 72));
    const uint64_t success = 0;
    EXPECT_EQ(captured(8, 5, CaptureEncoding::Scalar), bytesOf(&success, 8));
}

TEST_F(LayerCapture, InputArraysAndStatusArraysWrittenOnSuccess) {
    const Calls& c = *s_calls;
    ASSERT_GE(s_records->size(), 11u);
    EXPECT_EQ(captured(9, 2, CaptureEncoding::Bytes), bytesOf(c.devices, 16));
    EXPECT_EQ(captured(9, 5, CaptureEncoding::Bytes), bytesOf(c.status, 8));
    EXPECT_EQ(c.status[1], -42);
    EXPECT_EQ(view(10).head.ret, 0u);
    EXPECT_EQ(captured(10, 2, CaptureEncoding::Bytes), bytesOf(c.devices, 16));
    EXPECT_EQ(captured(10, 5, CaptureEncoding::Bytes), "<none>");
}

TEST_F(LayerCapture, StringsWithoutTerminatorAndPropertyListsWithIt) {
    const Calls& c = *s_calls;
    ASSERT_GE(s_records->size(), 16u);
    EXPECT_EQ(captured(11, 3, CaptureEncoding::String), "-cl-fast-relaxed-math");
    EXPECT_EQ(captured(11, 2, CaptureEncoding::Bytes), bytesOf(c.devices, 16));
    EXPECT_EQ(captured(12, 3, CaptureEncoding::String), "<none>");
    EXPECT_EQ(captured(12, 2, CaptureEncoding::Bytes), "<none>");
    EXPECT_EQ(captured(13, 1, CaptureEncoding::Bytes), bytesOf(c.samplerProperties, 5 * 8));
    EXPECT_EQ(captured(14, 1, CaptureEncoding::String), "vadd");
    EXPECT_EQ(view(14).head.ret, 0x5500u);
    EXPECT_EQ(captured(15, 1, CaptureEncoding::Bytes), bytesOf(c.events, 3 * 8));
}

TEST_F(LayerCapture, VoidAndArgumentlessCalls) {
    ASSERT_EQ(s_records->size(), 18u);
    const ApiCallView svmFree = view(16);
    EXPECT_EQ(svmFree.head.argCount, 2u);
    EXPECT_EQ(svmFree.head.ret, 0u);
    EXPECT_EQ(svmFree.arg(0), 0xc0u);
    EXPECT_EQ(svmFree.captureBytes, 0u);
    EXPECT_EQ(record(17).payload.size(), sizeof(perfmarker::record::ApiCallHead));
    EXPECT_EQ(view(17).head.argCount, 0u);
}

}  // namespace
