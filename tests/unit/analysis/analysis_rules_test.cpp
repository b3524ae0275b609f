// The best-practice rules (docs/summary.md#best-practice-rules), each seen firing and not firing.
#include <gtest/gtest.h>

#include "analysis_test_util.h"

namespace perfmarker::analysis {
namespace {

using test::cell;
using test::findTable;
using test::Records;

// The messages of the BestPractices page ("" entries when there is no page).
std::vector<std::string> messages(const TraceSummary& summary) {
    std::vector<std::string> out;
    const auto tables = summary.tables();
    const Table* table = findTable(tables, "BestPractices");
    if (table == nullptr) return out;
    for (size_t i = 0; i < table->rows.size(); ++i) out.push_back(cell(*table, i, "Message"));
    return out;
}

class AnalysisRules : public ::testing::Test {
protected:
    void ocl(std::string ret, std::string name, std::vector<std::string> params) {
        m_summary.onOclApiCall(m_records.ocl(1, std::move(ret), std::move(name), std::move(params),
                                             m_time, m_time + 10));
        m_time += 100;
    }
    // A successful enqueue on `queue` returning `event` ("NULL" for none).
    void enqueue(std::string name, std::string type, std::string queue, std::string event,
                 std::vector<std::string> params = {}, std::string device = "gfx900") {
        params.insert(params.begin(), queue);
        params.push_back(event);
        auto call =
            m_records.ocl(1, "CL_SUCCESS", std::move(name), std::move(params), m_time, m_time + 10);
        m_records.command(call, std::move(type), m_time, m_time + 50, 0, queue, 0, "0x10",
                          std::move(device));
        m_summary.onOclApiCall(call);
        m_time += 100;
    }

    Records m_records;
    TraceSummary m_summary;
    uint64_t m_time = 1000;
};

TEST_F(AnalysisRules, RetCodeAnalyzer) {
    ocl("CL_SUCCESS", "clFlush", {"0x1"});
    ocl("CL_INVALID_VALUE", "clGetDeviceInfo", {"0x1", "CL_DEVICE_NAME", "0", "NULL", "NULL"});
    ocl("NULL", "clCreateBuffer", {"0x10", "0", "64", "NULL", "[CL_INVALID_BUFFER_SIZE]"});
    ocl("NULL", "clCreateBuffer", {"0x10", "0", "64", "NULL", "NULL"});  // no code printed
    ocl("0x200", "clCreateKernel", {"0x30", "\"k\"", "[CL_SUCCESS]"});
    ocl("NULL", "clSVMAlloc", {"0x10", "0", "64", "0"});
    ocl("-9999", "clFinish", {"0x1"});
    EXPECT_EQ(messages(m_summary),
              (std::vector<std::string>{"clGetDeviceInfo returns CL_INVALID_VALUE",
                                        "clCreateBuffer returns CL_INVALID_BUFFER_SIZE",
                                        "clFinish returns -9999",
                                        // the kernel is never released
                                        "Memory leak detected [Ref = 1, Handle = 0x200]: "
                                        "Object created by clCreateKernel"}));
    const auto tables = m_summary.tables();
    const Table* page = findTable(tables, "BestPractices");
    ASSERT_NE(page, nullptr);
    EXPECT_EQ(page->rows[0], (std::vector<std::string>{"1", "1", "1", "Error",
                                                       "clGetDeviceInfo returns "
                                                       "CL_INVALID_VALUE"}));
    EXPECT_EQ(cell(*page, 3, "Type"), "Warning");
}

TEST_F(AnalysisRules, RefTrackerBalancesRetainReleaseAndEvents) {
    m_summary.onFileBegin("a.atp");
    ocl("0x200", "clCreateBuffer", {"0x10", "0", "64", "NULL", "NULL"});
    ocl("CL_SUCCESS", "clRetainMemObject", {"0x200"});
    ocl("CL_SUCCESS", "clReleaseMemObject", {"0x200"});
    ocl("CL_SUCCESS", "clReleaseMemObject", {"0x200"});
    ocl("CL_SUCCESS", "clCreateKernelsInProgram", {"0x30", "2", "[0x301,0x302]", "[2]"});
    ocl("CL_SUCCESS", "clReleaseKernel", {"0x301"});
    ocl("CL_INVALID_KERNEL", "clReleaseKernel", {"0x302"});  // failed: does not count
    enqueue("clEnqueueNDRangeKernel", "CL_COMMAND_NDRANGE_KERNEL", "0x100", "[0x900]",
            {"0x301", "1", "NULL", "[4096]", "[64]", "0", "NULL"});
    enqueue("clEnqueueNDRangeKernel", "CL_COMMAND_NDRANGE_KERNEL", "0x100", "[0x901]",
            {"0x301", "1", "NULL", "[4096]", "[64]", "0", "NULL"});
    enqueue("clEnqueueNDRangeKernel", "CL_COMMAND_NDRANGE_KERNEL", "0x100", "NULL",
            {"0x301", "1", "NULL", "[4096]", "[64]", "0", "NULL"});
    ocl("CL_SUCCESS", "clReleaseEvent", {"0x900"});
    ocl("0x7000", "clSVMAlloc", {"0x10", "0", "64", "0"});
    ocl("", "clSVMFree", {"0x10", "0x7000"});
    m_summary.onFileEnd("a.atp");
    EXPECT_EQ(messages(m_summary),
              (std::vector<std::string>{
                  "clReleaseKernel returns CL_INVALID_KERNEL",
                  "Memory leak detected [Ref = 1, Handle = 0x302]: Object created by "
                  "clCreateKernelsInProgram",
                  "Memory leak detected [Ref = 1, Handle = 0x901]: Object created by "
                  "clEnqueueNDRangeKernel"}));
}

TEST_F(AnalysisRules, RefTrackerCountsPerFile) {
    m_summary.onFileBegin("a.atp");
    ocl("0x200", "clCreateBuffer", {"0x10", "0", "64", "NULL", "NULL"});
    m_summary.onFileEnd("a.atp");
    m_summary.onFileBegin("b.atp");
    ocl("CL_SUCCESS", "clReleaseMemObject", {"0x200"});  // another process's object
    m_summary.onFileEnd("b.atp");
    EXPECT_EQ(messages(m_summary).size(), 1u);
}

TEST_F(AnalysisRules, BlockingWriteOnInOrderQueuesOnly) {
    ocl("0x100", "clCreateCommandQueueWithProperties",
        {"0x10", "0x1", "[{CL_QUEUE_PROPERTIES,3,NULL}]", "NULL"});  // out of order
    enqueue("clEnqueueWriteBuffer", "CL_COMMAND_WRITE_BUFFER", "0x100", "NULL",
            {"0x200", "CL_TRUE", "0", "64", "0x5", "0", "NULL"});
    enqueue("clEnqueueWriteBuffer", "CL_COMMAND_WRITE_BUFFER", "0x101", "NULL",
            {"0x200", "CL_FALSE", "0", "64", "0x5", "0", "NULL"});
    enqueue("clEnqueueWriteBuffer", "CL_COMMAND_WRITE_BUFFER", "0x101", "NULL",
            {"0x200", "CL_TRUE", "0", "64", "0x5", "0", "NULL"});
    ocl("0x102", "clCreateCommandQueue",
        {"0x10", "0x1", "CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE", "NULL"});
    enqueue("clEnqueueWriteImage", "CL_COMMAND_WRITE_IMAGE", "0x102", "NULL", {"0x200", "CL_TRUE"});
    const auto all = messages(m_summary);
    EXPECT_EQ(std::count(all.begin(), all.end(),
                         "clEnqueueWriteBuffer: Unnecessary synchronization: Blocking write."),
              1);
    EXPECT_EQ(std::count(all.begin(), all.end(),
                         "clEnqueueWriteImage: Unnecessary synchronization: Blocking write."),
              0);
}

TEST_F(AnalysisRules, BadWorkGroupSize) {
    const auto launch = [&](std::string global, std::string local, std::string device) {
        enqueue("clEnqueueNDRangeKernel", "CL_COMMAND_NDRANGE_KERNEL", "0x100", "NULL",
                {"0x300", "1", "NULL", global, local, "0", "NULL"}, device);
    };
    launch("[1024]", "[64]", "gfx900");
    launch("[64,64]", "[4,4]", "gfx900");
    launch("[4096]", "[96]", "gfx900");
    launch("[4096]", "[256]", "gfx900");
    launch("[4096]", "NULL", "gfx900");
    launch("[16]", "[1]", "CPU_Device");
    enqueue("clEnqueueTask", "CL_COMMAND_TASK", "0x100", "NULL", {"0x300", "0", "NULL"});
    auto all = messages(m_summary);
    all.erase(std::remove_if(all.begin(), all.end(),
                             [](const std::string& m) { return m.find("deprecated") != m.npos; }),
              all.end());
    EXPECT_EQ(all, (std::vector<std::string>{
                       "clEnqueueNDRangeKernel: Global work size [1024] is too small (fewer "
                       "than 2560 work-items): the device is underused.",
                       "clEnqueueNDRangeKernel: Work-group size [4,4] is too small (fewer than "
                       "64 work-items): the device is underused.",
                       "clEnqueueNDRangeKernel: Work-group size [96] is not a multiple of 64 "
                       "(the wavefront size): part of a wavefront idles.",
                       "clEnqueueTask: Global work size [1] is too small (fewer than 2560 "
                       "work-items): the device is underused."}));
}

TEST_F(AnalysisRules, DataTransferAnalyzerPersistentMemoryMaps) {
    ocl("0x200", "clCreateBuffer",
        {"0x10", "CL_MEM_READ_WRITE|CL_MEM_USE_PERSISTENT_MEM_AMD", "64", "NULL", "NULL"});
    ocl("0x201", "clCreateBuffer", {"0x10", "CL_MEM_READ_WRITE", "64", "NULL", "NULL"});
    const auto map = [&](std::string buffer, std::string flags) {
        auto call = m_records.ocl(
            1, "0x7000", "clEnqueueMapBuffer",
            {"0x100", buffer, "CL_TRUE", flags, "0", "64", "0", "NULL", "NULL", "NULL"}, m_time,
            m_time + 10);
        m_summary.onOclApiCall(call);
        m_time += 100;
    };
    map("0x200", "CL_MAP_READ");
    map("0x200", "CL_MAP_WRITE");
    map("0x201", "CL_MAP_READ|CL_MAP_WRITE");
    auto all = messages(m_summary);
    const auto hits = std::count_if(all.begin(), all.end(), [](const std::string& m) {
        return m.rfind(
                   "clEnqueueMapBuffer: Mapping a buffer created with "
                   "CL_MEM_USE_PERSISTENT_MEM_AMD",
                   0) == 0;
    });
    EXPECT_EQ(hits, 1);
}

TEST_F(AnalysisRules, SyncAnalyzerFlagsImpliedSynchronization) {
    const std::vector<std::string> kernel = {"0x300", "1", "NULL", "[4096]", "[64]", "0", "NULL"};
    enqueue("clEnqueueNDRangeKernel", "CL_COMMAND_NDRANGE_KERNEL", "0x100", "[0x900]", kernel);
    ocl("CL_SUCCESS", "clFinish", {"0x100"});  // redundant
    enqueue("clEnqueueNDRangeKernel", "CL_COMMAND_NDRANGE_KERNEL", "0x100", "[0x901]", kernel);
    ocl("CL_SUCCESS", "clWaitForEvents", {"1", "[0x901]"});  // redundant
    enqueue("clEnqueueNDRangeKernel", "CL_COMMAND_NDRANGE_KERNEL", "0x100", "[0x902]", kernel);
    auto busy =
        m_records.ocl(1, "CL_SUCCESS", "clGetEventInfo",
                      {"0x902", "CL_EVENT_COMMAND_EXECUTION_STATUS", "4", "[CL_COMPLETE]", "NULL"},
                      m_time, m_time + 10);
    busy.comment = m_records.keep("37 consecutive calls");
    m_summary.onOclApiCall(busy);  // redundant busy wait
    enqueue("clEnqueueReadBuffer", "CL_COMMAND_READ_BUFFER", "0x100", "[0x903]",
            {"0x200", "CL_FALSE", "0", "64", "0x5", "0", "NULL"});
    ocl("CL_SUCCESS", "clFinish", {"0x100"});  // needed: after a read
    enqueue("clEnqueueNDRangeKernel", "CL_COMMAND_NDRANGE_KERNEL", "0x100", "[0x904]", kernel);
    ocl("CL_SUCCESS", "clFinish", {"0x100"});  // other queue next: needed
    enqueue("clEnqueueNDRangeKernel", "CL_COMMAND_NDRANGE_KERNEL", "0x101", "[0x905]", kernel);
    ocl("CL_SUCCESS", "clWaitForEvents", {"1", "[0x777]"});  // unknown event: needed
    enqueue("clEnqueueNDRangeKernel", "CL_COMMAND_NDRANGE_KERNEL", "0x100", "[0x906]", kernel);
    auto all = messages(m_summary);
    std::vector<std::string> sync;
    for (const std::string& m : all) {
        if (m.rfind("Redundant", 0) == 0) sync.push_back(m);
    }
    EXPECT_EQ(sync, (std::vector<std::string>{
                        "Redundant synchronization detected. Synchronization API = clFinish",
                        "Redundant synchronization detected. Synchronization API = "
                        "clWaitForEvents",
                        "Redundant synchronization detected. Synchronization API = "
                        "clGetEventInfo"}));
}

TEST_F(AnalysisRules, DeprecatedFunctions) {
    ocl("0x100", "clCreateCommandQueue", {"0x10", "0x1", "0", "NULL"});
    ocl("0x101", "clCreateCommandQueueWithProperties", {"0x10", "0x1", "NULL", "NULL"});
    ocl("CL_SUCCESS", "clEnqueueBarrier", {"0x100"});
    ocl("CL_SUCCESS", "clReleaseCommandQueue", {"0x100"});
    ocl("CL_SUCCESS", "clReleaseCommandQueue", {"0x101"});
    EXPECT_EQ(messages(m_summary),
              (std::vector<std::string>{"clCreateCommandQueue is deprecated. Use "
                                        "clCreateCommandQueueWithProperties instead.",
                                        "clEnqueueBarrier is deprecated. Use "
                                        "clEnqueueBarrierWithWaitList instead."}));
}

TEST_F(AnalysisRules, MessagesPerRuleAreCapped) {
    SummaryOptions options;
    options.maxMessagesPerRule = 2;
    TraceSummary summary(options);
    for (int i = 0; i < 3; ++i) {
        summary.onOclApiCall(m_records.ocl(1, "CL_SUCCESS", "clUnloadCompiler", {}, 1, 2));
    }
    const auto tables = summary.tables();
    const Table* page = findTable(tables, "BestPractices");
    ASSERT_NE(page, nullptr);
    EXPECT_EQ(page->rows.size(), 2u);
    EXPECT_EQ(page->notes,
              (std::vector<std::string>{
                  "Maximum number of messages for DeprecatedFunctionAnalyzer exceeded"}));
}

TEST_F(AnalysisRules, HsaReturnCodesAndReferences) {
    const auto hsa = [&](std::string ret, std::string name, std::vector<std::string> params) {
        m_summary.onHsaApiCall(
            m_records.hsa(2, std::move(ret), std::move(name), std::move(params), 1, 2));
    };
    m_summary.onFileBegin("h.atp");
    hsa("HSA_STATUS_SUCCESS", "hsa_init", {});
    hsa("HSA_STATUS_ERROR_INVALID_ARGUMENT", "hsa_agent_get_info", {"agent={handle=1}"});
    hsa("HSA_STATUS_INFO_BREAK", "hsa_iterate_agents", {"callback=0"});
    hsa("", "hsa_signal_store_relaxed", {"signal={5}", "value=1"});
    hsa("HSA_STATUS_SUCCESS", "hsa_signal_create",
        {"initial_value=1", "num_consumers=0", "consumers=NULL", "signal=[{140246450118912}]"});
    hsa("HSA_STATUS_SUCCESS", "hsa_signal_create",
        {"initial_value=1", "num_consumers=0", "consumers=NULL", "signal=[{77}]"});
    hsa("", "hsa_signal_destroy", {"signal={140246450118912}"});
    hsa("HSA_STATUS_SUCCESS", "hsa_queue_create", {"agent={handle=1}", "size=4"});
    hsa("HSA_STATUS_SUCCESS", "hsa_queue_destroy", {"queue=[{0,1}]"});
    hsa("HSA_STATUS_SUCCESS", "hsa_soft_queue_create", {"region={1}", "size=4"});
    hsa("HSA_STATUS_SUCCESS", "hsa_amd_memory_pool_allocate",
        {"memory_pool={9}", "size=64", "flags=0", "ptr=[0x7f00]"});
    m_summary.onFileEnd("h.atp");
    EXPECT_EQ(messages(m_summary),
              (std::vector<std::string>{
                  "hsa_agent_get_info returns HSA_STATUS_ERROR_INVALID_ARGUMENT",
                  "Memory leak detected [Ref = 1, Handle = __HSA_INIT_SHUTDOWN_PSEUDO_HANDLE]: "
                  "Object created by hsa_init",
                  "Memory leak detected [Ref = 1, Handle = 77]: Object created by "
                  "hsa_signal_create",
                  "Memory leak detected [Ref = 1, Handle = __HSA_QUEUE_PSEUDO_HANDLE]: Object "
                  "created by hsa_soft_queue_create",
                  "Memory leak detected [Ref = 1, Handle = 0x7f00]: Object created by "
                  "hsa_amd_memory_pool_allocate"}));
}

TEST_F(AnalysisRules, NoPageWithoutMessages) {
    ocl("CL_SUCCESS", "clFlush", {"0x1"});
    EXPECT_TRUE(messages(m_summary).empty());
    EXPECT_EQ(findTable(m_summary.tables(), "BestPractices"), nullptr);
}

}  // namespace
}  // namespace perfmarker::analysis
