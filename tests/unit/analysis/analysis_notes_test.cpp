// What the summary leaves out, and says so (docs/summary.md#trace-notes): calls and commands
// without times (unknown) or ending before they start are in no duration, average or marker
// attribution; the notes page counts them per file and names the lines; a trace cut at the API
// call cap gets no leak messages.
#include <gtest/gtest.h>

#include "analysis_test_util.h"

namespace perfmarker::analysis {
namespace {

using test::cell;
using test::findTable;
using test::Records;

atp::OclApiCall kernelCall(Records& r, uint64_t start, uint64_t end, uint64_t line) {
    auto call =
        r.ocl(1, "CL_SUCCESS", "clEnqueueNDRangeKernel",
              {"0x100", "0x300", "1", "NULL", "[4096]", "[64]", "0", "NULL", "NULL"}, 10, 20);
    r.command(call, "CL_COMMAND_NDRANGE_KERNEL", start, end);
    r.kernel(call, "k", "{4096}", "{64}");
    call.timestampLine = atp::SourceLocation{"a.atp", line};
    return call;
}

TEST(AnalysisNotes, UnknownDeviceTimesAreNotAveragedIn) {
    Records r;
    TraceSummary summary;
    summary.onFileBegin("a.atp");
    summary.onOclApiCall(kernelCall(r, 1000, 2000, 5));
    summary.onOclApiCall(kernelCall(r, 0, 0, 6));  // the device times never arrived
    summary.onOclApiCall(kernelCall(r, 3000, 6000, 7));
    auto read = r.ocl(1, "CL_SUCCESS", "clEnqueueReadBuffer", {"0x100", "0x200"}, 30, 40);
    r.command(read, "CL_COMMAND_READ_BUFFER", 0, 0);
    r.dataSize(read, 64);
    summary.onOclApiCall(read);
    summary.onFileEnd("a.atp");
    const auto tables = summary.tables();
    const Table* kernels = findTable(tables, "CLKernelSummary");
    ASSERT_NE(kernels, nullptr);
    EXPECT_EQ(cell(*kernels, 0, "# of Calls"), "2");
    EXPECT_EQ(cell(*kernels, 0, "Avg Time(ms)"), "0.00200");  // (1000 + 3000) / 2, not / 3
    EXPECT_EQ(cell(*kernels, 0, "Min Time(ms)"), "0.00100");
    EXPECT_EQ(cell(*kernels, 0, "Max Time(ms)"), "0.00300");
    const Table* top = findTable(tables, "CLTopKernelSummary");
    ASSERT_NE(top, nullptr);
    EXPECT_EQ(top->rows.size(), 2u);
    const Table* contexts = findTable(tables, "CLContextSummary");
    ASSERT_NE(contexts, nullptr);
    EXPECT_EQ(cell(*contexts, 0, "# of Kernel Dispatch - gfx900"), "2");
    EXPECT_EQ(cell(*contexts, 0, "# of Read"), "0");
    EXPECT_EQ(findTable(tables, "CLDataTransferSummary"), nullptr);
    const Table* notes = findTable(tables, "TraceNotes");
    ASSERT_NE(notes, nullptr);
    EXPECT_EQ(notes->columns, (std::vector<std::string>{"File", "Line", "Note"}));
    ASSERT_EQ(notes->rows.size(), 1u);
    EXPECT_EQ(notes->rows[0],
              (std::vector<std::string>{"a.atp", "",
                                        "2 commands without device times (unknown), left out"}));
    EXPECT_EQ(
        notes->notes,
        (std::vector<std::string>{"Left out of every page: 2 records without times (unknown)"}));
}

TEST(AnalysisNotes, HsaDispatchesTransfersAndCallsWithoutTimes) {
    Records r;
    TraceSummary summary;
    summary.onFileBegin("h.atp");
    summary.onHsaKernelDispatch(r.dispatch("fill", "gfx900", 0, 0));
    summary.onHsaKernelDispatch(r.dispatch("fill", "gfx900", 100, 600));
    auto copy = r.hsa(4, "HSA_STATUS_SUCCESS", "hsa_amd_memory_async_copy",
                      {"dst=0x1", "dst_agent={handle=1,name=gfx900}", "src=0x2",
                       "src_agent={handle=2,name=cpu}", "size=64"},
                      10, 20);
    copy.hasTransferTimes = true;  // transfer times 0, 0: unknown
    summary.onHsaApiCall(copy);
    summary.onHsaApiCall(r.hsa(4, "HSA_STATUS_SUCCESS", "hsa_init", {}, 0, 0));
    summary.onFileEnd("h.atp");
    const auto tables = summary.tables();
    const Table* kernels = findTable(tables, "HSAKernelSummary");
    ASSERT_NE(kernels, nullptr);
    EXPECT_EQ(cell(*kernels, 0, "# of Calls"), "1");
    EXPECT_EQ(cell(*kernels, 0, "Avg Time(ms)"), cell(*kernels, 0, "Min Time(ms)"));
    EXPECT_EQ(findTable(tables, "HSADataTransferSummary"), nullptr);
    const Table* api = findTable(tables, "HSAAPISummary");
    ASSERT_NE(api, nullptr);
    ASSERT_EQ(api->rows.size(), 1u);  // hsa_init has no times: not on the page
    EXPECT_EQ(api->rows[0][0], "hsa_amd_memory_async_copy");
    const Table* notes = findTable(tables, "TraceNotes");
    ASSERT_NE(notes, nullptr);
    std::vector<std::string> texts;
    for (const auto& row : notes->rows) texts.push_back(row[2]);
    EXPECT_EQ(texts, (std::vector<std::string>{
                         "1 API calls without times (unknown), left out",
                         "1 async copies without transfer times (unknown), left out",
                         "1 kernel dispatches without device times (unknown), left out"}));
}

TEST(AnalysisNotes, EndsBeforeStartIsNamedWithItsLineAndLeftOut) {
    Records r;
    SummaryOptions options;
    options.maxMessagesPerRule = 2;
    TraceSummary summary(options);
    summary.onFileBegin("b.atp");
    for (uint64_t line = 10; line < 13; ++line) {
        auto call = r.ocl(1, "CL_SUCCESS", "clFinish", {"0x1"}, 500, 400);
        call.timestampLine = atp::SourceLocation{"b.atp", line};
        summary.onOclApiCall(call);
    }
    summary.onOclApiCall(kernelCall(r, 900, 800, 13));
    summary.onFileEnd("b.atp");
    const auto tables = summary.tables();
    const Table* api = findTable(tables, "CLAPISummary");
    ASSERT_NE(api, nullptr);
    ASSERT_EQ(api->rows.size(), 1u);  // only clEnqueueNDRangeKernel, whose host times are fine
    EXPECT_EQ(findTable(tables, "CLKernelSummary"), nullptr);
    const Table* notes = findTable(tables, "TraceNotes");
    ASSERT_NE(notes, nullptr);
    ASSERT_EQ(notes->rows.size(), 2u);  // --max-messages rows
    EXPECT_EQ(notes->rows[0], (std::vector<std::string>{"b.atp", "10",
                                                        "clFinish: the call ends 100 ns before it "
                                                        "starts: left out"}));
    EXPECT_EQ(notes->notes, (std::vector<std::string>{
                                "Left out of every page: 4 records that end before they start",
                                "2 more notes not listed"}));
}

TEST(AnalysisNotes, MarkersAreNotCreditedWithUnknownTimes) {
    Records r;
    TraceSummary summary;
    summary.onFileBegin("m.atp");
    summary.onOclApiCall(kernelCall(r, 0, 0, 3));  // host 10..20, device unknown
    summary.onOclApiCall(r.ocl(1, "CL_SUCCESS", "clFinish", {"0x1"}, 0, 0));
    r.marker(summary, 1, atp::MarkerKind::Begin, 5, "frame");
    r.marker(summary, 1, atp::MarkerKind::End, 50);
    summary.onFileEnd("m.atp");
    const auto tables = summary.tables();
    const Table* markers = findTable(tables, "MarkerSummary");
    ASSERT_NE(markers, nullptr);
    EXPECT_EQ(cell(*markers, 0, "# of API Calls"), "1");
    EXPECT_EQ(cell(*markers, 0, "API Time(ms)"), "0.00001");
    EXPECT_EQ(cell(*markers, 0, "Device Time(ms)"), "0");
}

// A trace cut at the call cap: the releases of the objects still alive may lie after the cut.
TEST(AnalysisNotes, ACutTraceHasNoLeakMessages) {
    for (const bool cut : {false, true}) {
        Records r;
        TraceSummary summary;
        summary.onFileBegin("c.atp");
        summary.onHeader("TraceFileVersion", "3.2", atp::SourceLocation{"c.atp", 1});
        if (cut) summary.onHeader("ApiCallsLeftOut", "25", atp::SourceLocation{"c.atp", 2});
        summary.onOclApiCall(r.ocl(1, "0x200", "clCreateBuffer",
                                   {"0x10", "0", "64", "NULL", "[CL_SUCCESS]"}, 10, 20));
        summary.onHsaApiCall(r.hsa(
            2, "HSA_STATUS_SUCCESS", "hsa_signal_create",
            {"initial_value=1", "num_consumers=0", "consumers=NULL", "signal=[{77}]"}, 30, 40));
        summary.onFileEnd("c.atp");
        const auto tables = summary.tables();
        const Table* rules = findTable(tables, "BestPractices");
        const Table* notes = findTable(tables, "TraceNotes");
        if (!cut) {
            ASSERT_NE(rules, nullptr);
            EXPECT_EQ(rules->rows.size(), 2u);  // the buffer and the signal
            EXPECT_EQ(notes, nullptr);
            continue;
        }
        EXPECT_EQ(rules, nullptr);
        ASSERT_NE(notes, nullptr);
        ASSERT_EQ(notes->rows.size(), 1u);
        EXPECT_EQ(notes->rows[0],
                  (std::vector<std::string>{
                      "c.atp", "2",
                      "the trace was cut at the API call cap: 25 API calls after the cut are "
                      "not in it; 2 objects still alive at the cut are not reported as leaks "
                      "(their release may lie after it)"}));
    }
}

TEST(AnalysisNotes, TheCutIsPerFile) {
    Records r;
    TraceSummary summary;
    summary.onFileBegin("cut.atp");
    summary.onHeader("ApiCallsLeftOut", "3", atp::SourceLocation{"cut.atp", 2});
    summary.onOclApiCall(
        r.ocl(1, "0x200", "clCreateBuffer", {"0x10", "0", "64", "NULL", "[CL_SUCCESS]"}, 10, 20));
    summary.onFileEnd("cut.atp");
    summary.onFileBegin("whole.atp");
    summary.onOclApiCall(
        r.ocl(1, "0x300", "clCreateBuffer", {"0x10", "0", "64", "NULL", "[CL_SUCCESS]"}, 10, 20));
    summary.onFileEnd("whole.atp");
    const auto tables = summary.tables();
    const Table* rules = findTable(tables, "BestPractices");
    ASSERT_NE(rules, nullptr);
    ASSERT_EQ(rules->rows.size(), 1u);
    EXPECT_EQ(cell(*rules, 0, "Message"),
              "Memory leak detected [Ref = 1, Handle = 0x300]: Object created by clCreateBuffer");
}

}  // namespace
}  // namespace perfmarker::analysis
