// Sanity of the generated API table (src/api/cl_api_table.inc) against the
// OpenCL headers the project compiles with, and of its CL_FUNC_TYPE ids.
#include <gtest/gtest.h>

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <vector>

#include "cl_api.h"

// Compile time: each slot is the field of cl_icd_dispatch at that offset, and each prototype
// is exactly the header's cl_api_<name> type.
#define PM_CL_API(slot, funcTypeId, isEnqueue, ReturnType, name, params, args)    \
    static_assert(offsetof(cl_icd_dispatch, name) == (slot) * sizeof(void*),      \
                  #name " is not at slot " #slot);                                \
    static_assert(std::is_same_v<ReturnType(CL_API_CALL*) params, cl_api_##name>, \
                  #name ": the table's prototype differs from cl_api_" #name);
#define PM_CL_API_RESERVED(slot, funcTypeId, isEnqueue, field)                \
    static_assert(offsetof(cl_icd_dispatch, field) == (slot) * sizeof(void*), \
                  #field " is not at slot " #slot);
#include "api/cl_api_table.inc"

namespace {

struct Entry {
    int slot;  // -1: not a dispatch slot
    int funcTypeId;
    int isEnqueue;
    std::string name;
    bool wrapped;
};

const std::vector<Entry>& entries() {
    static const std::vector<Entry> all = {
#define PM_CL_API(slot, funcTypeId, isEnqueue, ReturnType, name, params, args) \
    {slot, funcTypeId, isEnqueue, #name, true},
#define PM_CL_API_RESERVED(slot, funcTypeId, isEnqueue, field) \
    {slot, funcTypeId, isEnqueue, #field, false},
#define PM_CL_API_NOT_IN_DISPATCH(funcTypeId, isEnqueue, name) \
    {-1, funcTypeId, isEnqueue, #name, false},
#include "api/cl_api_table.inc"
    };
    return all;
}

constexpr int kUnknownFuncType =
#define PM_CL_FUNC_TYPE_UNKNOWN(funcTypeId) funcTypeId
#include "api/cl_api_table.inc"
    ;

TEST(ClApiTable, SlotsAreTheWholeDispatchTableInOrder) {
    int next = 0;
    for (const Entry& e : entries()) {
        if (e.slot < 0) continue;
        EXPECT_EQ(e.slot, next++) << e.name;
    }
    EXPECT_EQ(static_cast<size_t>(next), sizeof(cl_icd_dispatch) / sizeof(void*));
    EXPECT_EQ(static_cast<cl_uint>(next), perfmarker::cltrace::kDispatchSlotCount);
}

TEST(ClApiTable, EveryFuncTypeIdAppearsExactlyOnce) {
    std::map<int, std::string> byId;
    std::set<std::string> names;
    for (const Entry& e : entries()) {
        EXPECT_TRUE(names.insert(e.name).second) << e.name << " listed twice";
        if (e.funcTypeId < 0) continue;
        EXPECT_LT(e.funcTypeId, kUnknownFuncType) << e.name;
        EXPECT_TRUE(byId.emplace(e.funcTypeId, e.name).second)
            << "id " << e.funcTypeId << ": " << byId[e.funcTypeId] << " and " << e.name;
    }
    EXPECT_EQ(kUnknownFuncType, 146);
    EXPECT_EQ(byId.size(), static_cast<size_t>(kUnknownFuncType)) << "ids 0..145, no gaps";
    // Spot checks of the interoperability numbering.
    EXPECT_EQ(byId[0], "clGetPlatformIDs");
    EXPECT_EQ(byId[13], "clCreateBuffer");
    EXPECT_EQ(byId[66], "clEnqueueNDRangeKernel");
    EXPECT_EQ(byId[91], "clSetCommandQueueProperty");
    EXPECT_EQ(byId[124], "clEnqueueSVMFreeAMD");
    EXPECT_EQ(byId[145], "clSetProgramSpecializationConstant");
}

TEST(ClApiTable, EnqueueFlagFollowsTheFormatsIdRanges) {
    const std::pair<int, int> ranges[] = {{52, 73},   {101, 105}, {114, 118},
                                          {124, 128}, {135, 136}, {139, 139}};
    for (const Entry& e : entries()) {
        bool inRange = false;
        for (auto [lo, hi] : ranges)
            inRange = inRange || (e.funcTypeId >= lo && e.funcTypeId <= hi);
        EXPECT_EQ(e.isEnqueue, inRange ? 1 : 0) << e.name;
        if (e.isEnqueue) {
            EXPECT_EQ(e.name.rfind("clEnqueue", 0), 0u) << e.name;
        }
    }
}

TEST(ClApiTable, OnlyTheWindowsOnlySlotsAreReserved) {
    for (const Entry& e : entries()) {
        if (e.slot < 0 || e.wrapped) continue;
        const bool windowsOnly =
            e.name.find("D3D1") != std::string::npos || e.name.find("DX9") != std::string::npos;
        EXPECT_TRUE(windowsOnly) << e.name << " has no prototype";
    }
}

}  // namespace
