// The OpenCL and HSA summary pages, fed with typed records (no reader involved).
#include <gtest/gtest.h>

#include "analysis_test_util.h"

namespace perfmarker::analysis {
namespace {

using test::cell;
using test::findTable;
using test::Records;

TEST(AnalysisPages, NothingFedGivesNoTables) {
    TraceSummary summary;
    EXPECT_TRUE(summary.tables().empty());
}

TEST(AnalysisPages, ClApiSummarySortsByCumulativeTime) {
    Records r;
    TraceSummary summary;
    summary.onOclApiCall(r.ocl(1, "CL_SUCCESS", "clFlush", {"0x100"}, 100, 100));
    summary.onOclApiCall(r.ocl(1, "CL_SUCCESS", "clFinish", {"0x100"}, 200, 3200));
    summary.onOclApiCall(r.ocl(1, "CL_SUCCESS", "clFlush", {"0x100"}, 300, 1300));
    summary.onOclApiCall(r.ocl(1, "CL_SUCCESS", "clFinish", {"0x100"}, 5000, 4000));
    const auto tables = summary.tables();
    const Table* api = findTable(tables, "CLAPISummary");
    ASSERT_NE(api, nullptr);
    EXPECT_EQ(api->title, "API Summary Page");
    ASSERT_EQ(api->rows.size(), 2u);
    // The clFinish that ends before it starts is left out, not counted as 0 (notes page).
    EXPECT_EQ(api->rows[0], (std::vector<std::string>{"clFinish", "0.00300", "75.00", "1",
                                                      "0.00300", "0.00300", "0.00300"}));
    EXPECT_EQ(api->rows[1], (std::vector<std::string>{"clFlush", "0.00100", "25.00", "2", "0.00050",
                                                      "0.00100", "0.00100"}));
    EXPECT_EQ(findTable(tables, "CLKernelSummary"), nullptr);  // pages only with data
    ASSERT_NE(findTable(tables, "TraceNotes"), nullptr);
}

TEST(AnalysisPages, CollapsedGetEventInfoCountsEveryCall) {
    Records r;
    TraceSummary summary;
    auto call = r.ocl(1, "CL_SUCCESS", "clGetEventInfo", {"0x9"}, 1, 371);
    call.consecutiveCalls = 37;
    summary.onOclApiCall(call);
    const auto tables = summary.tables();
    const Table& api = *findTable(tables, "CLAPISummary");
    EXPECT_EQ(cell(api, 0, "# of Calls"), "37");
    EXPECT_EQ(cell(api, 0, "Max Time(ms)"), "0.00001");  // 10 ns each
    EXPECT_EQ(cell(api, 0, "Min Time(ms)"), "0.00001");
}

TEST(AnalysisPages, KernelSummaryAndTopKernels) {
    Records r;
    SummaryOptions options;
    options.topCount = 2;
    TraceSummary summary(options);
    const uint64_t durations[] = {1000000, 3000000, 2000000};
    for (uint64_t d : durations) {
        auto call =
            r.ocl(7, "CL_SUCCESS", "clEnqueueNDRangeKernel",
                  {"0x100", "0x300", "1", "NULL", "[4096]", "[64]", "0", "NULL", "NULL"}, 1, 11);
        r.command(call, "CL_COMMAND_NDRANGE_KERNEL", 100, 100 + d, 2, "0x100", 1, "0x10");
        r.kernel(call, d == 2000000 ? "other" : "reduce", "{4096}", "{64}");
        summary.onOclApiCall(call);
        summary.onOclApiCall(r.ocl(7, "CL_SUCCESS", "clGetEventInfo", {"0x9"}, 20, 30));
    }
    const auto tables = summary.tables();
    const Table* kernels = findTable(tables, "CLKernelSummary");
    ASSERT_NE(kernels, nullptr);
    ASSERT_EQ(kernels->rows.size(), 2u);
    EXPECT_EQ(kernels->rows[0],
              (std::vector<std::string>{"reduce", "gfx900", "2", "4.00000", "66.67", "2.00000",
                                        "3.00000", "1.00000"}));
    const Table* top = findTable(tables, "CLTopKernelSummary");
    ASSERT_NE(top, nullptr);
    EXPECT_EQ(top->title, "Top 2 Kernels Page");
    ASSERT_EQ(top->rows.size(), 2u);  // exactly topCount (the original showed one more)
    EXPECT_EQ(top->rows[0], (std::vector<std::string>{"reduce", "1", "2", "gfx900", "3.00000",
                                                      "{4096}", "{64}", "7", "1"}));
    EXPECT_EQ(cell(*top, 1, "Call Index"), "2");  // clGetEventInfo lines have no call index
}

TEST(AnalysisPages, ContextSummaryCountsObjectsKernelsAndTransfers) {
    Records r;
    TraceSummary summary;
    summary.onFileBegin("a.atp");
    summary.onOclApiCall(r.ocl(1, "0x10", "clCreateContext", {"NULL", "1"}, 10, 20));
    summary.onOclApiCall(r.ocl(1, "0x20", "clCreateContext", {"NULL", "1"}, 30, 40));
    summary.onOclApiCall(
        r.ocl(1, "0x100", "clCreateCommandQueue", {"0x10", "0x1", "0", "NULL"}, 50, 60));
    summary.onOclApiCall(r.ocl(1, "0x200", "clCreateBuffer", {"0x10", "0", "64"}, 60, 70));
    summary.onOclApiCall(r.ocl(1, "0x201", "clCreateBuffer", {"0x10", "0", "64"}, 70, 80));
    summary.onOclApiCall(r.ocl(1, "0x202", "clCreateImage", {"0x20", "0"}, 80, 90));
    summary.onOclApiCall(r.ocl(1, "NULL", "clCreateBuffer", {"0x20", "0", "64"}, 90, 95));
    auto kernel = r.ocl(1, "CL_SUCCESS", "clEnqueueNDRangeKernel", {"0x100", "0x300"}, 100, 110);
    r.command(kernel, "CL_COMMAND_NDRANGE_KERNEL", 1000, 3000);
    r.kernel(kernel, "k", "{1}", "{NULL}");
    summary.onOclApiCall(kernel);
    auto read = r.ocl(1, "CL_SUCCESS", "clEnqueueReadBuffer", {"0x100", "0x200"}, 120, 130);
    r.command(read, "CL_COMMAND_READ_BUFFER", 4000, 5000);
    r.dataSize(read, 2048);
    summary.onOclApiCall(read);
    auto map = r.ocl(1, "0x7000", "clEnqueueMapBuffer", {"0x100", "0x200"}, 140, 150);
    r.command(map, "CL_COMMAND_MAP_BUFFER", 6000, 6500);
    r.dataSize(map, 1024);
    summary.onOclApiCall(map);
    summary.onFileEnd("a.atp");
    const auto tables = summary.tables();
    const Table* contexts = findTable(tables, "CLContextSummary");
    ASSERT_NE(contexts, nullptr);
    ASSERT_EQ(contexts->rows.size(), 3u);  // contexts 0 and 1, then Total
    EXPECT_EQ(cell(*contexts, 0, "Context ID"), "0");
    EXPECT_EQ(cell(*contexts, 0, "# of Queues"), "1");
    EXPECT_EQ(cell(*contexts, 0, "# of Buffers"), "2");
    EXPECT_EQ(cell(*contexts, 1, "# of Images"), "1");
    EXPECT_EQ(cell(*contexts, 1, "# of Buffers"), "0");  // the failed create does not count
    EXPECT_EQ(cell(*contexts, 0, "# of Kernel Dispatch - gfx900"), "1");
    EXPECT_EQ(cell(*contexts, 0, "Total Kernel Time(ms) - gfx900"), "0.00200");
    EXPECT_EQ(cell(*contexts, 1, "# of Kernel Dispatch - gfx900"), "NA");
    EXPECT_EQ(cell(*contexts, 0, "# of Memory Transfer"), "2");
    EXPECT_EQ(cell(*contexts, 0, "Total Memory Time(ms)"), "0.00150");
    EXPECT_EQ(cell(*contexts, 0, "Size of Read"), "2.00 KB");
    EXPECT_EQ(cell(*contexts, 0, "# of Map"), "1");
    EXPECT_EQ(cell(*contexts, 0, "Size of Write"), "0.00 Byte");
    EXPECT_EQ(cell(*contexts, 2, "Context ID"), "Total");
    EXPECT_EQ(cell(*contexts, 2, "# of Buffers"), "2");
    EXPECT_EQ(cell(*contexts, 2, "# of Images"), "1");
    EXPECT_EQ(cell(*contexts, 2, "# of Kernel Dispatch - gfx900"), "1");
}

TEST(AnalysisPages, DataTransferSummaryAndTopTransfers) {
    Records r;
    TraceSummary summary;
    auto add = [&](const char* type, uint64_t start, uint64_t end, uint64_t bytes) {
        auto call = r.ocl(3, "CL_SUCCESS", "clEnqueueSomething", {"0x100"}, 1, 2);
        r.command(call, type, start, end);
        r.dataSize(call, bytes);
        summary.onOclApiCall(call);
    };
    add("CL_COMMAND_WRITE_BUFFER", 1, 1000001, uint64_t{1} << 20);
    add("CL_COMMAND_WRITE_BUFFER", 1, 1000001, uint64_t{1} << 20);
    add("CL_COMMAND_READ_IMAGE", 1, 501, 4096);          // too short for an image rate
    add("CL_COMMAND_READ_BUFFER", 5000, 4000, 4096);     // ends before it starts: left out
    add("CL_COMMAND_UNMAP_MEM_OBJECT", 5000, 4000, 64);  // map and unmap too (noted)
    const auto tables = summary.tables();
    const Table* transfers = findTable(tables, "CLDataTransferSummary");
    ASSERT_NE(transfers, nullptr);
    ASSERT_EQ(transfers->rows.size(), 2u);
    EXPECT_EQ(transfers->rows[0],
              (std::vector<std::string>{"READ_IMAGE", "0", "0", "1", "0.00050", "4.00 KB", "NA"}));
    EXPECT_EQ(transfers->rows[1], (std::vector<std::string>{"WRITE_BUFFER", "0", "0", "2",
                                                            "2.00000", "2.00 MB", "1000.000"}));
    const Table* notes = findTable(tables, "TraceNotes");
    ASSERT_NE(notes, nullptr);
    ASSERT_EQ(notes->rows.size(), 2u);
    EXPECT_EQ(notes->rows[1][2],
              "clEnqueueSomething: the command ends 1000 ns before it starts: "
              "left out");
    const Table* top = findTable(tables, "CLTopDataTransferSummary");
    ASSERT_NE(top, nullptr);
    ASSERT_EQ(top->rows.size(), 3u);
    EXPECT_EQ(top->rows[0], (std::vector<std::string>{"WRITE_BUFFER", "0", "0", "1.00000",
                                                      "1.00 MB", "1000.000", "3", "0"}));
    EXPECT_EQ(cell(*top, 1, "Call Index"), "1");
}

TEST(AnalysisPages, HsaApiKernelAndTransferPages) {
    Records r;
    TraceSummary summary;
    summary.onHsaApiCall(r.hsa(4, "HSA_STATUS_SUCCESS", "hsa_init", {}, 1, 1001));
    auto copy =
        r.hsa(4, "HSA_STATUS_SUCCESS", "hsa_amd_memory_async_copy",
              {"dst=0x7f8c1c000000", "dst_agent={handle=31298480,name=gfx900}",
               "src=0x7f8c2d600000", "src_agent={handle=30811232,name=AMD&nbsp;Ryzen}",
               "size=1048576", "num_dep_signals=0", "dep_signals=NULL", "completion_signal={1}"},
              2000, 3000);
    copy.hasTransferTimes = true;
    copy.transferStart = 10000;
    copy.transferEnd = 1010000;
    summary.onHsaApiCall(copy);
    auto untimed = copy;
    untimed.hasTransferTimes = false;
    summary.onHsaApiCall(untimed);  // no transfer times: API page only
    auto rect = r.hsa(4, "HSA_STATUS_SUCCESS", "hsa_amd_memory_async_copy_rect", {}, 1, 1);
    rect.hasTransferTimes = true;
    summary.onHsaApiCall(rect);
    summary.onHsaKernelDispatch(r.dispatch("reduce(float*, int)", "gfx900", 100, 2100));
    summary.onHsaKernelDispatch(r.dispatch("reduce(float*, int)", "gfx900", 100, 1100));
    summary.onHsaKernelDispatch(r.dispatch("fill", "gfx900", 1, 501));
    const auto tables = summary.tables();
    const Table* api = findTable(tables, "HSAAPISummary");
    ASSERT_NE(api, nullptr);
    EXPECT_EQ(api->rows.size(), 3u);
    EXPECT_EQ(cell(*api, 0, "API Name"), "hsa_amd_memory_async_copy");
    EXPECT_EQ(cell(*api, 0, "# of Calls"), "2");
    const Table* kernels = findTable(tables, "HSAKernelSummary");
    ASSERT_NE(kernels, nullptr);
    EXPECT_EQ(kernels->rows[0],
              (std::vector<std::string>{"reduce(float*, int)", "gfx900", "2", "0.00300", "85.71",
                                        "0.00150", "0.00200", "0.00100"}));
    const Table* top = findTable(tables, "HSATopKernelSummary");
    ASSERT_NE(top, nullptr);
    EXPECT_EQ(top->rows[2], (std::vector<std::string>{"fill", "gfx900", "0.00050"}));
    const Table* transfers = findTable(tables, "HSADataTransferSummary");
    ASSERT_NE(transfers, nullptr);
    ASSERT_EQ(transfers->rows.size(), 1u);
    EXPECT_EQ(transfers->rows[0],
              (std::vector<std::string>{"30811232", "AMD Ryzen", "31298480", "gfx900", "1",
                                        "1.00000", "1.00 MB", "1000.000"}));
    const Table* topCopies = findTable(tables, "HSATopDataTransferSummary");
    ASSERT_NE(topCopies, nullptr);
    EXPECT_EQ(cell(*topCopies, 0, "Thread ID"), "4");
    EXPECT_EQ(cell(*topCopies, 0, "Call Index"), "1");
    EXPECT_EQ(findTable(tables, "CLAPISummary"), nullptr);
}

TEST(AnalysisPages, TablesComeInAFixedOrder) {
    Records r;
    TraceSummary summary;
    summary.onHsaApiCall(r.hsa(1, "HSA_STATUS_ERROR", "hsa_init", {}, 1, 2));
    summary.onOclApiCall(r.ocl(1, "CL_SUCCESS", "clFlush", {"0x1"}, 1, 2));
    r.marker(summary, 1, atp::MarkerKind::Begin, 0, "m");
    r.marker(summary, 1, atp::MarkerKind::End, 5);
    std::vector<std::string> ids;
    for (const Table& table : summary.tables()) ids.push_back(table.id);
    EXPECT_EQ(ids, (std::vector<std::string>{"CLAPISummary", "HSAAPISummary", "MarkerSummary",
                                             "BestPractices"}));
}

}  // namespace
}  // namespace perfmarker::analysis
