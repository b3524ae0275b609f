// The exporters on traces from the field (docs/export.md#unknown-times,
// docs/export.md#how-outputs-are-written): times of 0 (unknown) and intervals that end before
// they start give no slice or row (CSV: empty fields), and an export that is abandoned or fails
// leaves every file it would have replaced as it was, with no temporary file behind.
#include <gtest/gtest.h>

#include <limits>

#include "export/csv_exporter.h"
#include "export/perfetto_exporter.h"
#include "export/vtune_exporter.h"
#include "export_test_support.h"

namespace {

using namespace perfmarker;
using namespace perfmarker::exporter;
using perfmarker::test::eventsWithPh;
using perfmarker::test::ExportScratch;
using perfmarker::test::filesIn;
using perfmarker::test::json;
using perfmarker::test::RecordFactory;
using perfmarker::test::slurp;
using perfmarker::test::writeText;

// One file: a call whose command has no device times, one whose command ends before it starts,
// one whose own times are unknown but whose command is fine, a fine one, and two dispatches.
void feedFieldTrace(Exporter& out, RecordFactory& records) {
    out.onFileBegin("field.atp");
    atp::OclApiCall unknown = records.kernelEnqueue(1, 0, 5000, 5100, 0, 0, 0, "never");
    unknown.command.queued = unknown.command.submit = 0;
    out.onOclApiCall(unknown);
    out.onOclApiCall(records.kernelEnqueue(1, 1, 5200, 5300, 7000, 6000, 0, "backwards"));
    out.onOclApiCall(records.kernelEnqueue(1, 2, 0, 0, 5500, 5600, 0, "untimedcall"));
    out.onOclApiCall(records.kernelEnqueue(1, 3, 5700, 5800, 5900, 6900, 0, "fine"));
    atp::HsaKernelDispatch dispatch;
    dispatch.kernelName = "lost";
    dispatch.agentName = "gfx900";
    dispatch.agentIndexText = "0x7f3c1a004000";
    dispatch.hasAgentIndex = false;
    out.onHsaKernelDispatch(dispatch);  // start and end 0
    dispatch.kernelName = "kept";
    dispatch.start = 8000;
    dispatch.end = 8500;
    out.onHsaKernelDispatch(dispatch);
    out.onFileEnd("field.atp");
}

TEST(ExportUnknownTimes, PerfettoDrawsOnlyKnownIntervals) {
    ExportScratch scratch;
    RecordFactory records;
    PerfettoExporter out(PerfettoOptions{scratch.file("t.json"), uint64_t{1} << 20});
    feedFieldTrace(out, records);
    std::string error;
    ASSERT_TRUE(out.finish(error)) << error;
    const json trace = test::parseJsonFile(scratch.file("t.json"));
    test::expectValidTrace(trace);
    std::map<std::string, json> slices;
    size_t enqueueCalls = 0;
    double earliest = std::numeric_limits<double>::max();
    for (const json& event : trace["traceEvents"]) {
        if (event["ph"] == "M") continue;  // metadata carries ts 0 by convention
        earliest = std::min(earliest, event["ts"].get<double>());
        if (event["ph"] != "X") continue;
        slices[event["name"]] = event;
        enqueueCalls += event["name"] == "clEnqueueNDRangeKernel";
    }
    EXPECT_DOUBLE_EQ(earliest, 5.0);  // the first real timestamp (5000 ns), not 0
    EXPECT_EQ(slices.count("never"), 0u);
    EXPECT_EQ(slices.count("backwards"), 0u);
    EXPECT_EQ(slices.count("lost"), 0u);
    ASSERT_EQ(slices.count("untimedcall"), 1u);  // the command, without its call's slice
    ASSERT_EQ(slices.count("fine"), 1u);
    ASSERT_EQ(slices.count("kept"), 1u);
    EXPECT_EQ(slices["kept"]["args"]["agent index"], "0x7f3c1a004000");
    EXPECT_EQ(enqueueCalls, 3u);                     // the untimed call has none
    EXPECT_EQ(eventsWithPh(trace, "s").size(), 1u);  // only "fine" has a call to flow from
    EXPECT_TRUE(slices["fine"]["args"].contains("queued"));
}

TEST(ExportUnknownTimes, PerfettoLeavesOutUnknownQueuedTimes) {
    ExportScratch scratch;
    RecordFactory records;
    PerfettoExporter out(PerfettoOptions{scratch.file("t.json"), uint64_t{1} << 20});
    out.onFileBegin("q.atp");
    atp::OclApiCall call = records.kernelEnqueue(1, 0, 100, 200, 300, 400);
    call.command.queued = 0;
    out.onOclApiCall(call);
    out.onFileEnd("q.atp");
    std::string error;
    ASSERT_TRUE(out.finish(error)) << error;
    for (const json& event : eventsWithPh(test::parseJsonFile(scratch.file("t.json")), "X")) {
        if (event["name"] != "reduce") continue;
        EXPECT_FALSE(event["args"].contains("queued"));
        EXPECT_TRUE(event["args"].contains("submit"));
    }
}

TEST(ExportUnknownTimes, VtuneHasNoRowsWithoutTimes) {
    ExportScratch scratch;
    RecordFactory records;
    VtuneExporter out(VtuneOptions{scratch.file("run"), "h", 0});
    feedFieldTrace(out, records);
    std::string error;
    ASSERT_TRUE(out.finish(error)) << error;
    EXPECT_EQ(slurp(scratch.file("run-kernels-hostname-h.csv")),
              std::string(VtuneExporter::kHeader) + "\nuntimedcall,5500,5600,4194304,\n" +
                  "fine,5900,6900,4194304,\nkept,8000,8500,4194304,\n");
    const std::string api = slurp(scratch.file("run-api-hostname-h.csv"));
    EXPECT_EQ(std::count(api.begin(), api.end(), '\n'), 4);  // the header and three calls
    EXPECT_EQ(api.find(",0,"), std::string::npos) << api;
}

TEST(ExportUnknownTimes, CsvLeavesUnknownFieldsEmpty) {
    ExportScratch scratch;
    RecordFactory records;
    CsvExporter out(scratch.file("run"));
    feedFieldTrace(out, records);
    std::string error;
    ASSERT_TRUE(out.finish(error)) << error;
    const std::string enqueues = slurp(scratch.file("run-enqueues.csv"));
    // Every command keeps its row; unknown times are empty fields, a backward one stays as it
    // was recorded (negative duration).
    EXPECT_NE(enqueues.find("gfx900,,,,,,0x21ff890,never,"), std::string::npos) << enqueues;
    EXPECT_NE(enqueues.find("gfx900,5210,5220,7000,6000,-1000,0x21ff890,backwards,"),
              std::string::npos)
        << enqueues;
    EXPECT_NE(enqueues.find(",gfx900,,,,,,,lost,"), std::string::npos) << enqueues;
    const std::string api = slurp(scratch.file("run-api.csv"));
    EXPECT_NE(api.find("clEnqueueNDRangeKernel,CL_SUCCESS,,,,"), std::string::npos) << api;
}

// ---- outputs are replaced only by a finished export --------------------------------------------

TEST(ExportOutputs, AnAbandonedExportLeavesEveryFileAsItWas) {
    ExportScratch scratch;
    RecordFactory records;
    writeText(scratch.file("t.json"), "old 1");
    writeText(scratch.file("t-2.json"), "old 2");
    PerfettoExporter perfetto(PerfettoOptions{scratch.file("t.json"), 2048});
    perfetto.onFileBegin("big.atp");
    for (uint64_t i = 1; i < 100; ++i) {
        perfetto.onOclApiCall(
            records.kernelEnqueue(1, i, 1000 * i, 1000 * i + 10, 1000 * i + 20, 1000 * i + 90));
    }
    perfetto.abandon();  // as after a parse error
    CsvExporter csv(scratch.file("c"));
    feedFieldTrace(csv, records);
    csv.abandon();
    VtuneExporter vtune(VtuneOptions{scratch.file("v"), "h", 0});
    feedFieldTrace(vtune, records);
    vtune.abandon();
    EXPECT_EQ(slurp(scratch.file("t.json")), "old 1");
    EXPECT_EQ(slurp(scratch.file("t-2.json")), "old 2");
    EXPECT_EQ(filesIn(scratch.path()), (std::vector<std::string>{"t-2.json", "t.json"}));
}

TEST(ExportOutputs, AFailedPartKeepsEveryPartOut) {
    ExportScratch scratch;
    RecordFactory records;
    writeText(scratch.file("t.json"), "old");
    std::filesystem::create_directory(scratch.file("t-3.json"));  // the third part cannot be
    PerfettoExporter out(PerfettoOptions{scratch.file("t.json"), 2048});
    out.onFileBegin("big.atp");
    for (uint64_t i = 1; i < 100; ++i) {
        out.onOclApiCall(
            records.kernelEnqueue(1, i, 1000 * i, 1000 * i + 10, 1000 * i + 20, 1000 * i + 90));
    }
    out.onFileEnd("big.atp");
    std::string error;
    EXPECT_FALSE(out.finish(error));
    EXPECT_NE(error.find("t-3.json: cannot create"), std::string::npos) << error;
    EXPECT_EQ(slurp(scratch.file("t.json")), "old");
    EXPECT_EQ(filesIn(scratch.path()), (std::vector<std::string>{"t-3.json", "t.json"}));
}

TEST(ExportOutputs, AFinishedExportReplacesTheFiles) {
    ExportScratch scratch;
    RecordFactory records;
    writeText(scratch.file("c-api.csv"), "old");
    CsvExporter out(scratch.file("c"));
    feedFieldTrace(out, records);
    std::string error;
    ASSERT_TRUE(out.finish(error)) << error;
    EXPECT_EQ(slurp(scratch.file("c-api.csv")).rfind(CsvExporter::kApiHeader, 0), 0u);
    EXPECT_EQ(filesIn(scratch.path()),
              (std::vector<std::string>{"c-api.csv", "c-enqueues.csv", "c-markers.csv"}));
}

}  // namespace
