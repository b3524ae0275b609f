// Attaching a kernel profile to the Perfetto export (export/profile_attach.h,
// docs/export.md#kernel-profiles): the matching rule (enqueue order over all threads, names
// agreeing, one warning at the first disagreement), the JSON of a row, and the exporter putting
// it into the kernel slices of the trace it goes with.
#include <gtest/gtest.h>

#include "../export/export_test_support.h"
#include "export/perfetto_exporter.h"
#include "export/profile_attach.h"
#include "profile_read_support.h"

namespace {

using namespace perfmarker;
using exporter::kNoSlot;
using exporter::TraceKernel;
using perfmarker::test::json;

profile::ProfileCsv loadFixture(const std::string& name) {
    profile::ProfileCsv csv;
    std::string error;
    EXPECT_TRUE(profile::loadProfileCsv(test::profileFixture(name), csv, error)) << error;
    return csv;
}

// The dispatches of tests/fixtures/profile/twokernels.atp in the trace's file order: thread
// 5001's three vecadd first, then thread 5002's four blur2d; enqueued alternately.
std::vector<TraceKernel> twoKernelTrace() {
    std::vector<TraceKernel> kernels;
    for (uint64_t at : {100, 300, 500}) kernels.push_back({at, "vecadd", kernels.size()});
    for (uint64_t at : {200, 400, 600, 700}) kernels.push_back({at, "blur2d", kernels.size()});
    return kernels;
}

uint64_t executionOrderOf(const std::string& args) {
    return json::parse(args)["ExecutionOrder"].get<uint64_t>();
}

TEST(ProfileAttach, MatchesInEnqueueOrderOverAllThreads) {
    const profile::ProfileCsv csv = loadFixture("twokernels.csv");
    const exporter::ProfileMatch match = exporter::matchProfile(twoKernelTrace(), csv, "t.atp");
    EXPECT_EQ(match.matched, 7u);
    EXPECT_EQ(match.warning, "");
    ASSERT_EQ(match.args.size(), 7u);
    // Slot (file order) -> ExecutionOrder (enqueue order).
    const std::map<size_t, uint64_t> expected{{0, 1}, {3, 2}, {1, 3}, {4, 4},
                                              {2, 5}, {5, 6}, {6, 7}};
    for (const auto& [slot, args] : match.args) {
        EXPECT_EQ(executionOrderOf(args), expected.at(slot)) << slot;
    }
}

TEST(ProfileAttach, DispatchWithoutSliceKeepsItsPlace) {
    const profile::ProfileCsv csv = loadFixture("twokernels.csv");
    std::vector<TraceKernel> kernels = twoKernelTrace();
    kernels[3].slot = kNoSlot;  // blur2d enqueued second: no device times
    const exporter::ProfileMatch match = exporter::matchProfile(kernels, csv, "t.atp");
    EXPECT_EQ(match.matched, 7u);
    ASSERT_EQ(match.args.size(), 6u);
    EXPECT_EQ(match.args[1].first, 1u);  // vecadd enqueued third is still ExecutionOrder 3
    EXPECT_EQ(executionOrderOf(match.args[1].second), 3u);
}

TEST(ProfileAttach, NameMismatchStopsWithOneWarning) {
    const profile::ProfileCsv csv = loadFixture("twokernels.csv");
    std::vector<TraceKernel> kernels = twoKernelTrace();
    kernels[4].name = "sharpen";  // enqueued fourth
    kernels[5].name = "sharpen";
    const exporter::ProfileMatch match = exporter::matchProfile(kernels, csv, "t.atp");
    EXPECT_EQ(match.matched, 3u);
    EXPECT_EQ(match.args.size(), 3u);
    EXPECT_EQ(match.warning,
              "t.atp: kernel dispatch 4 is 'sharpen' in the trace but "
              "ExecutionOrder 4 of " +
                  csv.info.file +
                  " is 'blur2d': profile counters attached to the first 3 "
                  "dispatch(es) only");
}

TEST(ProfileAttach, DifferentCountsAttachWhatMatchesAndWarn) {
    const profile::ProfileCsv csv = loadFixture("twokernels.csv");
    std::vector<TraceKernel> fewer = twoKernelTrace();
    fewer.resize(5);
    const exporter::ProfileMatch shorter = exporter::matchProfile(fewer, csv, "t.atp");
    EXPECT_EQ(shorter.matched, 5u);
    EXPECT_EQ(shorter.warning, "t.atp: 5 kernel dispatch(es), " + csv.info.file +
                                   " has 7 row(s): profile counters attached to 5");
    std::vector<TraceKernel> more = twoKernelTrace();
    more.push_back({800, "vecadd", 7});
    const exporter::ProfileMatch longer = exporter::matchProfile(more, csv, "t.atp");
    EXPECT_EQ(longer.matched, 7u);
    EXPECT_NE(longer.warning.find("8 kernel dispatch(es)"), std::string::npos);
}

TEST(ProfileAttach, RowJson) {
    const profile::ProfileCsv ours = loadFixture("twokernels.csv");
    const json blur = json::parse(exporter::profileRowJson(ours.info, ours.rows[5]));
    EXPECT_EQ(blur["Method"], "blur2d__k2_CPU");
    EXPECT_EQ(blur["ExecutionOrder"], 6);
    EXPECT_EQ(blur["GlobalWorkSize"], "256 4 1");
    EXPECT_EQ(blur["WorkGroupSize"], "16 2 1");
    EXPECT_DOUBLE_EQ(blur["Time"].get<double>(), 0.1);
    EXPECT_EQ(blur["LocalMemSize"], 4096);
    EXPECT_FALSE(blur.contains("VGPRs"));             // NA
    EXPECT_FALSE(blur.contains("context-switches"));  // NA
    EXPECT_TRUE(blur["task-clock"].is_number_unsigned());
    EXPECT_EQ(blur["task-clock"], 300000);
    EXPECT_DOUBLE_EQ(blur["ipc"].get<double>(), 1.0);

    const profile::ProfileCsv original = loadFixture("original_semicolon.csv");
    const json matmul = json::parse(exporter::profileRowJson(original.info, original.rows[1]));
    EXPECT_EQ(matmul["WorkGroupSize"], "NULL");
    EXPECT_FALSE(matmul.contains("ScratchRegs"));
    EXPECT_FALSE(matmul.contains("CacheHit"));
    EXPECT_EQ(matmul["Wavefronts"], 16384);
    EXPECT_DOUBLE_EQ(matmul["VALUUtilization"].get<double>(), 96.25);

    profile::ProfileCsvInfo bare;
    EXPECT_EQ(exporter::profileRowJson(bare, profile::DispatchRow{}), "{}");
}

class PerfettoAttach : public ::testing::Test {
protected:
    json exportTwoFiles(std::vector<profile::ProfileCsv> profiles,
                        size_t memoryBudget = size_t{32} << 20) {
        exporter::PerfettoOptions options{m_scratch.file("out.json"), uint64_t{256} << 20};
        options.memoryBudget = memoryBudget;
        exporter::PerfettoExporter out(options);
        out.setProfiles(std::move(profiles));
        out.onFileBegin("/traces/twokernels.5000.atp");
        // Thread 5001's calls come first in the file, as a trace's thread blocks do.
        uint64_t index = 0;
        for (uint64_t at : {100, 300, 500}) {
            out.onOclApiCall(m_records.kernelEnqueue(5001, index++, at * 1000, at * 1000 + 10,
                                                     at * 1000 + 20, at * 1000 + 50, 0, "vecadd"));
        }
        atp::OclApiCall native = m_records.kernelEnqueue(5002, 0, 150000, 150010, 150020, 150030, 1,
                                                         "NATIVE_KERNEL (0x401a2b)");
        native.command.commandName = "CL_COMMAND_NATIVE_KERNEL";
        out.onOclApiCall(native);
        index = 1;
        for (uint64_t at : {200, 400, 600, 700}) {
            out.onOclApiCall(m_records.kernelEnqueue(5002, index++, at * 1000, at * 1000 + 10,
                                                     at * 1000 + 20, at * 1000 + 50, 1, "blur2d"));
        }
        out.onFileEnd("/traces/twokernels.5000.atp");
        out.onFileBegin("/traces/other.5001.atp");
        out.onOclApiCall(
            m_records.kernelEnqueue(7, 0, 900000, 900010, 900020, 900050, 0, "vecadd"));
        out.onFileEnd("/traces/other.5001.atp");
        std::string error;
        EXPECT_TRUE(out.finish(error)) << error;
        m_warnings = out.warnings().messages();
        return test::parseJsonFile(m_scratch.file("out.json"));
    }

    // ExecutionOrder of each kernel slice by its start (µs), 0 when it has no profile.
    static std::map<double, uint64_t> profiledSlices(const json& trace) {
        std::map<double, uint64_t> slices;
        for (const json& event : test::eventsWithPh(trace, "X")) {
            if (event["cat"] != "kernels") continue;
            const json& args = event["args"];
            slices[event["ts"].get<double>()] =
                args.contains("profile") ? args["profile"]["ExecutionOrder"].get<uint64_t>() : 0;
        }
        return slices;
    }

    test::ExportScratch m_scratch;
    test::RecordFactory m_records;
    std::vector<std::string> m_warnings;
};

// The rows reach their slices the same when the device commands wait in the temporary file (a
// budget of 0: every command is written out as it comes).
TEST_F(PerfettoAttach, RowsReachSlicesThatWaitedInTheTemporaryFile) {
    const json kept = exportTwoFiles({loadFixture("twokernels.csv")});
    const json spilled = exportTwoFiles({loadFixture("twokernels.csv")}, 0);
    EXPECT_EQ(spilled, kept);
    EXPECT_FALSE(profiledSlices(spilled).empty());
    size_t rows = 0;
    for (const auto& [ts, order] : profiledSlices(spilled)) rows += order != 0 ? 1 : 0;
    EXPECT_GT(rows, 0u);
}

TEST_F(PerfettoAttach, KernelSlicesOfTheirTraceGetTheRows) {
    std::vector<profile::ProfileCsv> profiles;
    profiles.push_back(loadFixture("twokernels.csv"));
    const json trace = exportTwoFiles(std::move(profiles));
    test::expectValidTrace(trace);
    const std::map<double, uint64_t> expected{
        {100.02, 1}, {200.02, 2}, {300.02, 3}, {400.02, 4},
        {500.02, 5}, {600.02, 6}, {700.02, 7}, {150.02, 0},  // the native kernel has no row
        {900.02, 0}};                                        // the second trace has no profile
    EXPECT_EQ(profiledSlices(trace), expected);
    EXPECT_TRUE(m_warnings.empty()) << m_warnings.front();
    for (const json& event : test::eventsWithPh(trace, "X")) {
        if (event["ts"].get<double>() != 200.02) continue;
        EXPECT_EQ(event["args"]["global size"], "{1048576}");  // the trace's own args stay
        EXPECT_EQ(event["args"]["profile"]["Method"], "blur2d__k2_CPU");
        EXPECT_EQ(event["args"]["profile"]["task-clock"], 400000);
    }
}

TEST_F(PerfettoAttach, ProfileOfAnotherApiAttachesNothing) {
    std::vector<profile::ProfileCsv> profiles;
    profiles.push_back(loadFixture("hsa.csv"));
    const json trace = exportTwoFiles(std::move(profiles));
    for (const auto& [ts, order] : profiledSlices(trace)) EXPECT_EQ(order, 0u) << ts;
    ASSERT_EQ(m_warnings.size(), 1u);
    EXPECT_NE(m_warnings[0].find("twokernels.5000.atp: 0 kernel dispatch(es)"), std::string::npos)
        << m_warnings[0];
}

TEST_F(PerfettoAttach, HsaDispatchesInDeviceStartOrder) {
    const profile::ProfileCsv csv = loadFixture("hsa.csv");
    exporter::PerfettoExporter out(
        exporter::PerfettoOptions{m_scratch.file("out.json"), uint64_t{256} << 20});
    out.setProfiles({csv});
    out.onFileBegin("/traces/hsa.atp");
    for (uint64_t start : {5000, 3000}) {
        atp::HsaKernelDispatch dispatch;
        dispatch.kernelName = "vector_copy";
        dispatch.start = start;
        dispatch.end = start + 100;
        dispatch.agentName = "gfx900";
        out.onHsaKernelDispatch(dispatch);
    }
    out.onFileEnd("/traces/hsa.atp");
    std::string error;
    ASSERT_TRUE(out.finish(error)) << error;
    EXPECT_TRUE(out.warnings().messages().empty());
    const json trace = test::parseJsonFile(m_scratch.file("out.json"));
    EXPECT_EQ(profiledSlices(trace), (std::map<double, uint64_t>{{3.0, 1}, {5.0, 2}}));
}

}  // namespace
