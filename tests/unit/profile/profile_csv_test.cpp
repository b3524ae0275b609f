// The kernel profile CSV's text (src/profile/format/profile_csv.h, docs/profile.md#the-csv-file):
// the header lines in their order, the column lines of both APIs, and every column's formatting
// (widths, NA, NULL, separators, counters).
#include "profile/format/profile_csv.h"

#include <gtest/gtest.h>

#include <string>

#include "atp/format/atp_header.h"

namespace perfmarker::profile {
namespace {

ProfileHeader openClHeader() {
    ProfileHeader h;
    h.api = ProfileApi::OpenCL;
    h.application = "/opt/app/bin/vecadd";
    h.applicationArgs = {"--size", "1024"};
    h.workingDirectory = "/opt/app";
    h.osVersion = "Linux Build 6.1.0";
    h.displayName = "run 1";
    DeviceDescription device;
    device.name = "gfx900";
    device.properties = {{"Platform Vendor", "Advanced Micro Devices, Inc."},
                         {"Platform Name", "AMD Accelerated Parallel Processing"}};
    h.devices.push_back(device);
    return h;
}

DispatchRow openClRow() {
    DispatchRow r;
    r.method = "reduce__k1_gfx9001";
    r.executionOrder = 1;
    r.threadId = 4592;
    r.callIndex = 66;
    r.globalSize = {1048576, 1, 1};
    r.groupSize = {256, 1, 1};
    r.timeMs = 0.25;
    r.localMemBytes = 4096;
    r.vgprs = 24;
    r.sgprs = 16;
    r.scratchRegs = 0;
    r.privateMemBytes = 32;
    return r;
}

TEST(ProfileCsvHeader, OpenClLinesInTheOriginalOrder) {
    const std::string expected =
        "#ProfileFileVersion=5.6\n"
        "#ProfilerVersion=" +
        std::string(atp::profilerVersion()) +
        "\n"
        "#API=OpenCL\n"
        "#Application=/opt/app/bin/vecadd\n"
        "#ApplicationArgs=--size 1024\n"
        "#WorkingDirectory=/opt/app\n"
        "#Device gfx900 Platform Vendor=Advanced Micro Devices, Inc.\n"
        "#Device gfx900 Platform Name=AMD Accelerated Parallel Processing\n"
        "#OS Version=Linux Build 6.1.0\n"
        "#DisplayName=run 1\n"
        "#ListSeparator=,\n"
        "Method, ExecutionOrder, ThreadID, CallIndex, GlobalWorkSize, WorkGroupSize, Time, "
        "LocalMemSize, VGPRs, SGPRs, ScratchRegs, PrivateMemSize\n";
    EXPECT_EQ(formatProfileHeader(openClHeader(), {}), expected);
}

TEST(ProfileCsvHeader, EnvironmentLinesOnlyWhenSet) {
    ProfileHeader h = openClHeader();
    h.devices.clear();
    h.fullEnvironment = false;
    h.envVars = {{"GPU_MAX_HEAP_SIZE", "100"}, {"A", "b=c"}};
    const std::string text = formatProfileHeader(h, {});
    EXPECT_NE(text.find("#WorkingDirectory=/opt/app\n#FullEnvironment=0\n"
                        "#EnvVar=GPU_MAX_HEAP_SIZE=100\n#EnvVar=A=b=c\n#OS Version="),
              std::string::npos)
        << text;
    EXPECT_EQ(formatProfileHeader(openClHeader(), {}).find("FullEnvironment"), std::string::npos);
}

TEST(ProfileCsvHeader, HsaHasNoDeviceLinesAndItsOwnColumns) {
    ProfileHeader h = openClHeader();
    h.api = ProfileApi::Hsa;
    h.listSeparator = ';';
    const std::vector<CounterColumn> counters = {{"Wavefronts", CounterKind::Integer},
                                                 {"VALUBusy", CounterKind::Float}};
    const std::string text = formatProfileHeader(h, counters);
    EXPECT_NE(text.find("#API=HSA\n"), std::string::npos);
    EXPECT_EQ(text.find("#Device"), std::string::npos);
    EXPECT_NE(text.find("#DisplayName=run 1\n#ListSeparator=;\n"
                        "Method; ExecutionOrder; ThreadID; GlobalWorkSize; WorkGroupSize; "
                        "LocalMemSize; VGPRs; SGPRs; PrivateMemSize; Wavefronts; VALUBusy\n"),
              std::string::npos)
        << text;
}

TEST(ProfileCsvHeader, LineBreaksInValuesBecomeSpaces) {
    ProfileHeader h = openClHeader();
    h.applicationArgs = {"a\nb", "c\r\nd"};
    h.displayName = "two\nlines";
    const std::string text = formatProfileHeader(h, {});
    EXPECT_NE(text.find("#ApplicationArgs=a b c  d\n"), std::string::npos) << text;
    EXPECT_NE(text.find("#DisplayName=two lines\n"), std::string::npos) << text;
}

TEST(ProfileCsvHeader, EmptyOsVersionIsTheRunningSystems) {
    ProfileHeader h = openClHeader();
    h.osVersion.clear();
    EXPECT_NE(formatProfileHeader(h, {}).find("#OS Version=" + atp::osVersionString() + "\n"),
              std::string::npos);
}

TEST(ProfileCsvColumns, NamesPerApiThenCounters) {
    const std::vector<CounterColumn> counters = {{"task-clock", CounterKind::Float}};
    const std::vector<std::string> cl = columnNames(ProfileApi::OpenCL, counters);
    ASSERT_EQ(cl.size(), 13u);
    EXPECT_EQ(cl[3], "CallIndex");
    EXPECT_EQ(cl[6], "Time");
    EXPECT_EQ(cl[10], "ScratchRegs");
    EXPECT_EQ(cl[11], "PrivateMemSize");
    EXPECT_EQ(cl[12], "task-clock");
    const std::vector<std::string> hsa = columnNames(ProfileApi::Hsa, {});
    const std::vector<std::string> expected = {
        "Method",       "ExecutionOrder", "ThreadID", "GlobalWorkSize", "WorkGroupSize",
        "LocalMemSize", "VGPRs",          "SGPRs",    "PrivateMemSize"};
    EXPECT_EQ(hsa, expected);
}

TEST(ProfileCsvRow, OpenClWidths) {
    // {%7lu %7lu %7lu}, {%5lu %5lu %5lu}, %15.5f, then plain integers.
    EXPECT_EQ(formatDispatchRow(ProfileApi::OpenCL, ',', openClRow(), {}),
              "reduce__k1_gfx9001, 1, 4592, 66, {1048576       1       1}, {  256     1     1}, "
              "        0.25000, 4096, 24, 16, 0, 32\n");
}

TEST(ProfileCsvRow, WideValuesRunOverTheirWidth) {
    DispatchRow r = openClRow();
    r.globalSize = {123456789, 22, 3};
    r.groupSize = {1234567, 2, 3};
    r.timeMs = 1234567890.123456;
    const std::string text = formatDispatchRow(ProfileApi::OpenCL, ',', r, {});
    EXPECT_NE(text.find(", {123456789      22       3}, {1234567     2     3}, 1234567890.12346, "),
              std::string::npos)
        << text;
}

TEST(ProfileCsvRow, NullGroupSizeAndUnknownValuesInOpenCl) {
    DispatchRow r = openClRow();
    r.groupSize = {0, 0, 0};
    r.timeMs.reset();
    r.localMemBytes.reset();
    r.vgprs.reset();
    r.sgprs.reset();
    r.scratchRegs.reset();
    r.privateMemBytes.reset();
    EXPECT_EQ(formatDispatchRow(ProfileApi::OpenCL, ',', r, {}),
              "reduce__k1_gfx9001, 1, 4592, 66, {1048576       1       1}, NULL, NA, NA, NA, NA, "
              "NA, NA\n");
}

TEST(ProfileCsvRow, HsaHasNoCallIndexTimeOrScratchAndKeepsZeroGroups) {
    DispatchRow r = openClRow();
    r.method = "_Z6reducePfS_i__k3_gfx90a1";
    r.groupSize = {0, 0, 0};
    r.vgprs = 64;
    r.sgprs = 48;
    EXPECT_EQ(
        formatDispatchRow(ProfileApi::Hsa, ',', r, {}),
        "_Z6reducePfS_i__k3_gfx90a1, 1, 4592, {1048576       1       1}, {    0     0     0}, "
        "4096, 64, 48, 32\n");
}

TEST(ProfileCsvRow, CountersIntegerFloatAndMissing) {
    DispatchRow r = openClRow();
    const std::vector<CounterColumn> counters = {{"instructions", CounterKind::Integer},
                                                 {"task-clock", CounterKind::Float},
                                                 {"cycles", CounterKind::Integer},
                                                 {"ratio", CounterKind::Float}};
    r.counters = {123456789012.0, 3.14159};  // the last two are missing: NA
    const std::string text = formatDispatchRow(ProfileApi::OpenCL, ';', r, counters);
    EXPECT_EQ(text,
              "reduce__k1_gfx9001; 1; 4592; 66; {1048576       1       1}; {  256     1     1}; "
              "        0.25000; 4096; 24; 16; 0; 32; 123456789012;         3.14; NA; NA\n");
}

TEST(ProfileCsvRow, LineBreakInAMethodNameBecomesASpace) {
    DispatchRow r = openClRow();
    r.method = "a\nb";
    EXPECT_EQ(formatDispatchRow(ProfileApi::Hsa, ',', r, {}).substr(0, 5), "a b, ");
}

TEST(ProfileCsvMethod, GpuAndCpuNames) {
    EXPECT_EQ(methodName("reduce", 1, "Fiji", 1, true), "reduce__k1_Fiji1");
    EXPECT_EQ(methodName("vadd", 12, "gfx90a", 2, true), "vadd__k12_gfx90a2");
    EXPECT_EQ(methodName("vadd", 7, "pthread-cpu", 1, false), "vadd__k7_CPU");
}

}  // namespace
}  // namespace perfmarker::profile
