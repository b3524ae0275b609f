// The marker summary: nesting and self time, EndEx renames, API and device time inside
// markers, unbalanced markers.
#include <gtest/gtest.h>

#include "analysis_test_util.h"

namespace perfmarker::analysis {
namespace {

using atp::MarkerKind;
using test::cell;
using test::findTable;
using test::Records;

const Table& markerTable(const std::vector<Table>& tables) {
    const Table* table = findTable(tables, "MarkerSummary");
    if (table == nullptr) throw std::runtime_error("no MarkerSummary");
    return *table;
}

TEST(AnalysisMarkers, SelfTimeSubtractsNestedChildren) {
    Records r;
    TraceSummary summary;
    r.marker(summary, 1, MarkerKind::Begin, 0, "Frame", "Render");
    r.marker(summary, 1, MarkerKind::Begin, 1000000, "Upload");
    r.marker(summary, 1, MarkerKind::Begin, 1500000, "Inner");
    r.marker(summary, 1, MarkerKind::End, 1600000);
    r.marker(summary, 1, MarkerKind::End, 3000000);
    r.marker(summary, 1, MarkerKind::Begin, 4000000, "Upload");
    r.marker(summary, 1, MarkerKind::End, 5000000);
    r.marker(summary, 1, MarkerKind::End, 10000000);
    const auto tables = summary.tables();
    const Table& markers = markerTable(tables);
    ASSERT_EQ(markers.rows.size(), 3u);
    EXPECT_EQ(markers.rows[0],
              (std::vector<std::string>{"Frame", "Render", "1", "10.00000", "10.00000", "10.00000",
                                        "10.00000", "7.00000", "0", "0", "0"}));
    EXPECT_EQ(cell(markers, 1, "Marker Name"), "Upload");
    EXPECT_EQ(cell(markers, 1, "# of Calls"), "2");
    EXPECT_EQ(cell(markers, 1, "Total Time(ms)"), "3.00000");
    EXPECT_EQ(cell(markers, 1, "Self Time(ms)"), "2.90000");
    EXPECT_EQ(cell(markers, 1, "Min Time(ms)"), "1.00000");
    EXPECT_EQ(cell(markers, 1, "Max Time(ms)"), "2.00000");
    EXPECT_EQ(cell(markers, 2, "Self Time(ms)"), "0.10000");
    EXPECT_TRUE(markers.notes.empty());
}

TEST(AnalysisMarkers, ThreadsNestIndependentlyAndEndExRenames) {
    Records r;
    TraceSummary summary;
    r.marker(summary, 1, MarkerKind::Begin, 0, "A");
    r.marker(summary, 2, MarkerKind::Begin, 100, "B");
    r.marker(summary, 1, MarkerKind::End, 1000);
    r.marker(summary, 2, MarkerKind::EndEx, 3000, "Renamed", "Io");
    const auto tables = summary.tables();
    const Table& markers = markerTable(tables);
    ASSERT_EQ(markers.rows.size(), 2u);
    EXPECT_EQ(cell(markers, 0, "Marker Name"), "Renamed");
    EXPECT_EQ(cell(markers, 0, "Group"), "Io");
    EXPECT_EQ(cell(markers, 0, "Self Time(ms)"), "0.00290");
    EXPECT_EQ(cell(markers, 1, "Marker Name"), "A");
    EXPECT_EQ(cell(markers, 1, "Self Time(ms)"), "0.00100");
}

TEST(AnalysisMarkers, ApiAndDeviceTimeOfCallsInsideTheMarker) {
    Records r;
    TraceSummary summary;
    summary.onFileBegin("t.atp");
    // API calls come before the marker section in a trace; they are kept until the file ends.
    summary.onOclApiCall(r.ocl(1, "CL_SUCCESS", "clFlush", {"0x1"}, 50, 60));  // before
    auto kernel = r.ocl(1, "CL_SUCCESS", "clEnqueueNDRangeKernel", {"0x100"}, 200, 300);
    r.command(kernel, "CL_COMMAND_NDRANGE_KERNEL", 1000, 6000);
    r.kernel(kernel, "k", "{1}", "{1}");
    summary.onOclApiCall(kernel);
    summary.onOclApiCall(r.ocl(1, "CL_SUCCESS", "clFinish", {"0x1"}, 400, 7000));
    summary.onOclApiCall(r.ocl(2, "CL_SUCCESS", "clFlush", {"0x1"}, 400, 500));  // other thread
    auto copy = r.hsa(1, "HSA_STATUS_SUCCESS", "hsa_amd_memory_async_copy", {}, 7100, 7200);
    copy.hasTransferTimes = true;
    copy.transferStart = 8000;
    copy.transferEnd = 9000;
    summary.onHsaApiCall(copy);
    summary.onOclApiCall(r.ocl(1, "CL_SUCCESS", "clFlush", {"0x1"}, 9000, 9100));  // after
    r.marker(summary, 1, MarkerKind::Begin, 100, "Outer");
    r.marker(summary, 1, MarkerKind::Begin, 150, "Inner");
    r.marker(summary, 1, MarkerKind::End, 350);
    r.marker(summary, 1, MarkerKind::End, 8000);
    summary.onFileEnd("t.atp");
    const auto tables = summary.tables();
    const Table& markers = markerTable(tables);
    ASSERT_EQ(markers.rows.size(), 2u);
    EXPECT_EQ(cell(markers, 0, "Marker Name"), "Outer");
    EXPECT_EQ(cell(markers, 0, "# of API Calls"), "3");
    EXPECT_EQ(cell(markers, 0, "API Time(ms)"), "0.00680");
    EXPECT_EQ(cell(markers, 0, "Device Time(ms)"), "0.00600");
    EXPECT_EQ(cell(markers, 1, "Marker Name"), "Inner");
    EXPECT_EQ(cell(markers, 1, "# of API Calls"), "1");
    EXPECT_EQ(cell(markers, 1, "API Time(ms)"), "0.00010");
    EXPECT_EQ(cell(markers, 1, "Device Time(ms)"), "0.00500");
}

TEST(AnalysisMarkers, UnbalancedMarkersAreCountedAndNoted) {
    Records r;
    TraceSummary summary;
    summary.onFileBegin("t.atp");
    r.marker(summary, 5, MarkerKind::End, 10);  // end without a begin
    r.marker(summary, 5, MarkerKind::Begin, 20, "Open");
    r.marker(summary, 6, MarkerKind::Begin, 30, "Closed");
    r.marker(summary, 6, MarkerKind::End, 40);
    summary.onFileEnd("t.atp");
    const auto tables = summary.tables();
    const Table& markers = markerTable(tables);
    ASSERT_EQ(markers.rows.size(), 1u);
    EXPECT_EQ(cell(markers, 0, "Marker Name"), "Closed");
    ASSERT_EQ(markers.notes.size(), 3u);
    EXPECT_EQ(markers.notes[0],
              "Unbalanced markers: 1 end(s) without a begin, 1 begin(s) without an end");
    EXPECT_EQ(markers.notes[1], "t.atp:1: thread 5: marker end without a begin (ignored)");
    EXPECT_EQ(markers.notes[2], "t.atp: thread 5: 1 marker(s) never ended (first: \"Open\")");
}

TEST(AnalysisMarkers, OpenMarkersAtTablesTimeAreReportedWithoutEndingTheFile) {
    Records r;
    TraceSummary summary;
    r.marker(summary, 1, MarkerKind::Begin, 20, "Open");
    EXPECT_EQ(markerTable(summary.tables()).notes.size(), 2u);
    r.marker(summary, 1, MarkerKind::End, 40);  // the copy did not consume the open marker
    const auto tables = summary.tables();
    EXPECT_EQ(markerTable(tables).rows.size(), 1u);
    EXPECT_TRUE(markerTable(tables).notes.empty());
}

TEST(AnalysisMarkers, ManyUnbalancedEndsAreCappedInTheNotes) {
    Records r;
    TraceSummary summary;
    for (int i = 0; i < 25; ++i) r.marker(summary, 1, MarkerKind::End, 10);
    const auto tables = summary.tables();  // markerTable() points into it
    const Table& markers = markerTable(tables);
    EXPECT_TRUE(markers.rows.empty());
    ASSERT_EQ(markers.notes.size(), 22u);  // summary, 20 notes, "... and 5 more"
    EXPECT_EQ(markers.notes.back(), "... and 5 more");
}

}  // namespace
}  // namespace perfmarker::analysis
