// The layer's contract with the loader (clGetLayerInfo, clInitLayer and the table it returns)
// and the runtime control entry points, driven directly with fake "next layer" tables.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "agent_exports.h"
#include "cl_api.h"

namespace {

using perfmarker::cltrace::kDispatchSlotCount;

void** slotsOf(cl_icd_dispatch* table) { return reinterpret_cast<void**>(table); }
void* const* slotsOf(const cl_icd_dispatch* table) { return reinterpret_cast<void* const*>(table); }

// The fake next layer: records what reaches it.
cl_command_queue g_finishQueue = nullptr;
cl_int CL_API_CALL fakeFinish(cl_command_queue queue) {
    g_finishQueue = queue;
    return -1234;
}

cl_context g_bufferContext = nullptr;
size_t g_bufferSize = 0;
cl_mem CL_API_CALL fakeCreateBuffer(cl_context context, cl_mem_flags, size_t size, void*,
                                    cl_int* errcode_ret) {
    g_bufferContext = context;
    g_bufferSize = size;
    if (errcode_ret != nullptr) *errcode_ret = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    return reinterpret_cast<cl_mem>(0x5000);
}

void* g_freed = nullptr;
void CL_API_CALL fakeSvmFree(cl_context, void* pointer) { g_freed = pointer; }

// A full table: the three fakes, and a distinct marker value in every other slot (never called).
cl_icd_dispatch fakeTarget() {
    cl_icd_dispatch t{};
    for (cl_uint i = 0; i < kDispatchSlotCount; ++i) {
        slotsOf(&t)[i] = reinterpret_cast<void*>(uintptr_t{0x10000} + i);
    }
    t.clFinish = &fakeFinish;
    t.clCreateBuffer = &fakeCreateBuffer;
    t.clSVMFree = &fakeSvmFree;
    return t;
}

const cl_icd_dispatch* init(const cl_icd_dispatch* target, cl_uint entries, cl_uint* ret) {
    const cl_icd_dispatch* layer = nullptr;
    EXPECT_EQ(clInitLayer(entries, target, ret, &layer), CL_SUCCESS);
    return layer;
}

TEST(LayerInfo, ApiVersionIs100) {
    cl_layer_api_version version = 0;
    size_t size = 0;
    EXPECT_EQ(clGetLayerInfo(CL_LAYER_API_VERSION, sizeof version, &version, &size), CL_SUCCESS);
    EXPECT_EQ(version, static_cast<cl_layer_api_version>(CL_LAYER_API_VERSION_100));
    EXPECT_EQ(size, sizeof version);
}

TEST(LayerInfo, NameFollowsTheGetInfoRules) {
    size_t size = 0;
    EXPECT_EQ(clGetLayerInfo(0x4241 /* CL_LAYER_NAME */, 0, nullptr, &size), CL_SUCCESS);
    EXPECT_EQ(size, sizeof "perfmarker OpenCL trace layer");
    std::string name(size, '?');
    EXPECT_EQ(clGetLayerInfo(0x4241, size, name.data(), nullptr), CL_SUCCESS);
    EXPECT_STREQ(name.c_str(), "perfmarker OpenCL trace layer");
    EXPECT_EQ(clGetLayerInfo(0x4241, size - 1, name.data(), nullptr), CL_INVALID_VALUE);
    EXPECT_EQ(clGetLayerInfo(0x4241, 0, nullptr, nullptr), CL_SUCCESS);
}

TEST(LayerInfo, RejectsUnknownQueriesAndShortBuffers) {
    cl_layer_api_version version = 0;
    EXPECT_EQ(clGetLayerInfo(0x4242, sizeof version, &version, nullptr), CL_INVALID_VALUE);
    char small[2];
    EXPECT_EQ(clGetLayerInfo(CL_LAYER_API_VERSION, sizeof small, small, nullptr), CL_INVALID_VALUE);
}

TEST(LayerInit, RejectsMissingArguments) {
    const cl_icd_dispatch target = fakeTarget();
    const cl_icd_dispatch* layer = nullptr;
    cl_uint entries = 0;
    EXPECT_EQ(clInitLayer(kDispatchSlotCount, nullptr, &entries, &layer), CL_INVALID_VALUE);
    EXPECT_EQ(clInitLayer(kDispatchSlotCount, &target, nullptr, &layer), CL_INVALID_VALUE);
    EXPECT_EQ(clInitLayer(kDispatchSlotCount, &target, &entries, nullptr), CL_INVALID_VALUE);
    EXPECT_EQ(clInitLayer(0, &target, &entries, &layer), CL_INVALID_VALUE);
}

TEST(LayerInit, WrapsEveryCallableSlotAndPassesReservedSlotsThrough) {
    const cl_icd_dispatch target = fakeTarget();
    cl_uint entries = 0;
    const cl_icd_dispatch* layer = init(&target, kDispatchSlotCount + 40, &entries);
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(entries, kDispatchSlotCount);
#define PM_CL_API(slot, funcTypeId, isEnqueue, ReturnType, name, params, args) \
    EXPECT_NE(slotsOf(layer)[slot], nullptr) << #name;                         \
    EXPECT_NE(slotsOf(layer)[slot], slotsOf(&target)[slot]) << #name " not wrapped";
#define PM_CL_API_RESERVED(slot, funcTypeId, isEnqueue, field) \
    EXPECT_EQ(slotsOf(layer)[slot], slotsOf(&target)[slot]) << #field " not passed through";
#include "api/cl_api_table.inc"
}

TEST(LayerInit, LeavesSlotsTheTargetDoesNotProvideEmpty) {
    cl_icd_dispatch full = fakeTarget();
    full.clGetDeviceInfo = nullptr;  // a next layer without this entry point
    // Exactly `provided` slots of storage: reading any further is a heap overflow (ASan).
    const cl_uint provided = 48;  // up to clFinish (47)
    std::unique_ptr<void*[]> storage(new void*[provided]);
    std::memcpy(storage.get(), &full, provided * sizeof(void*));
    cl_uint entries = 0;
    const cl_icd_dispatch* layer =
        init(reinterpret_cast<const cl_icd_dispatch*>(storage.get()), provided, &entries);
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(entries, kDispatchSlotCount);
    EXPECT_EQ(layer->clGetDeviceInfo, nullptr);
    EXPECT_NE(layer->clFinish, nullptr);
    for (cl_uint i = provided; i < kDispatchSlotCount; ++i) {
        EXPECT_EQ(slotsOf(layer)[i], nullptr) << "slot " << i;
    }
}

TEST(LayerInit, WrappersPassArgumentsAndResultsThrough) {
    const cl_icd_dispatch target = fakeTarget();
    cl_uint entries = 0;
    const cl_icd_dispatch* layer = init(&target, kDispatchSlotCount, &entries);
    ASSERT_NE(layer, nullptr);

    const auto queue = reinterpret_cast<cl_command_queue>(0x77);
    EXPECT_EQ(layer->clFinish(queue), -1234);
    EXPECT_EQ(g_finishQueue, queue);

    const auto context = reinterpret_cast<cl_context>(0x99);
    cl_int err = 0;
    EXPECT_EQ(layer->clCreateBuffer(context, CL_MEM_READ_ONLY, 4096, nullptr, &err),
              reinterpret_cast<cl_mem>(0x5000));
    EXPECT_EQ(err, CL_MEM_OBJECT_ALLOCATION_FAILURE);
    EXPECT_EQ(g_bufferContext, context);
    EXPECT_EQ(g_bufferSize, 4096u);

    int svm = 0;
    layer->clSVMFree(context, &svm);
    EXPECT_EQ(g_freed, &svm);
}

TEST(LayerControl, StopAndResumeToggleThePausedStateAndCallsStillPassThrough) {
    const cl_icd_dispatch target = fakeTarget();
    cl_uint entries = 0;
    const cl_icd_dispatch* layer = init(&target, kDispatchSlotCount, &entries);
    ASSERT_NE(layer, nullptr);
    EXPECT_EQ(perfmarkerAgentIsPaused(), 0);
    amdtCodeXLStopProfiling();
    EXPECT_EQ(perfmarkerAgentIsPaused(), 1);
    g_finishQueue = nullptr;
    EXPECT_EQ(layer->clFinish(reinterpret_cast<cl_command_queue>(0x42)), -1234);
    EXPECT_EQ(g_finishQueue, reinterpret_cast<cl_command_queue>(0x42));
    amdtCodeXLResumeProfiling();
    EXPECT_EQ(perfmarkerAgentIsPaused(), 0);
}

}  // namespace
