// The kernel profile CSV reader: our files (the fixture and a round trip through our writer),
// the original's with `;` and tab separators, HSA columns, NA and NULL values, integer and float
// counters, header-only files, and every error naming the file and the line.
#include <gtest/gtest.h>

#include <cmath>

#include "profile/format/profile_csv.h"
#include "profile/read/csv_reader.h"
#include "profile_read_support.h"

namespace {

using namespace perfmarker;
using perfmarker::profile::CounterKind;
using perfmarker::profile::ProfileApi;
using perfmarker::test::readCsvFixture;
using perfmarker::test::readCsvText;

using Size = std::array<uint64_t, 3>;

TEST(ProfileCsvReader, ReadsOurFixture) {
    const auto result = readCsvFixture("twokernels.csv");
    ASSERT_TRUE(result.ok) << result.error;
    const profile::ProfileCsvInfo& info = result.info;
    EXPECT_EQ(info.api, ProfileApi::OpenCL);
    EXPECT_EQ(info.listSeparator, ',');
    EXPECT_TRUE(info.hasTime);
    EXPECT_EQ(info.columns.size(), 15u);
    EXPECT_EQ(info.columns[11], "PrivateMemSize");
    ASSERT_EQ(info.counters.size(), 3u);
    EXPECT_EQ(info.counters[0].name, "task-clock");
    EXPECT_EQ(info.counters[0].kind, CounterKind::Integer);
    EXPECT_EQ(info.counters[1].kind, CounterKind::Integer);
    EXPECT_EQ(info.counters[2].name, "ipc");
    EXPECT_EQ(info.counters[2].kind, CounterKind::Float);
    ASSERT_NE(info.headerValue("Device pthread-cpu Platform Vendor"), nullptr);
    EXPECT_EQ(*info.headerValue("Device pthread-cpu Platform Vendor"), "The pocl project");
    EXPECT_EQ(info.headerValue("NoSuchKey"), nullptr);
    EXPECT_EQ(info.rowCount, 7u);
    ASSERT_EQ(result.rows.size(), 7u);
    EXPECT_EQ(result.lines.front(), 17u);

    const profile::DispatchRow& blur = result.rows[1];
    EXPECT_EQ(blur.method, "blur2d__k2_CPU");
    EXPECT_EQ(blur.executionOrder, 2u);
    EXPECT_EQ(blur.threadId, 5002u);
    EXPECT_EQ(blur.callIndex, 9u);
    EXPECT_EQ(blur.globalSize, (Size{256, 4, 1}));
    EXPECT_EQ(blur.groupSize, (Size{16, 2, 1}));
    ASSERT_TRUE(blur.timeMs);
    EXPECT_DOUBLE_EQ(*blur.timeMs, 0.2);
    EXPECT_EQ(blur.localMemBytes, 4096u);
    EXPECT_FALSE(blur.vgprs);
    EXPECT_FALSE(blur.sgprs);
    EXPECT_FALSE(blur.scratchRegs);
    EXPECT_EQ(blur.privateMemBytes, 16u);
    ASSERT_EQ(blur.counters.size(), 3u);
    EXPECT_EQ(blur.counters[0], 400000.0);
    EXPECT_EQ(blur.counters[1], 3.0);
    EXPECT_DOUBLE_EQ(blur.counters[2], 0.75);
    EXPECT_TRUE(std::isnan(result.rows[5].counters[1]));  // context-switches NA
}

TEST(ProfileCsvReader, RoundTripsWhatOurWriterWrites) {
    for (const ProfileApi api : {ProfileApi::OpenCL, ProfileApi::Hsa}) {
        profile::ProfileHeader header;
        header.api = api;
        header.application = "/bin/app";
        header.osVersion = "Linux test";
        header.listSeparator = ';';
        const std::vector<profile::CounterColumn> counters{{"cycles", CounterKind::Integer},
                                                           {"ratio", CounterKind::Float}};
        profile::DispatchRow row;
        row.method = profile::methodName("scale", 4, "gfx", 2, true);
        row.executionOrder = 1;
        row.threadId = 77;
        row.callIndex = 12;
        row.globalSize = {2048, 2, 1};
        row.timeMs = 1.5;
        row.localMemBytes = 512;
        row.vgprs = 32;
        row.privateMemBytes = 8;
        row.counters = {123456789, 0.25};
        std::string text = profile::formatProfileHeader(header, counters);
        text += profile::formatDispatchRow(api, ';', row, counters);
        const auto result = readCsvText(text);
        ASSERT_TRUE(result.ok) << result.error << "\n" << text;
        EXPECT_EQ(result.info.api, api);
        EXPECT_EQ(result.info.listSeparator, ';');
        EXPECT_EQ(result.info.columns, profile::columnNames(api, counters));
        ASSERT_EQ(result.rows.size(), 1u);
        const profile::DispatchRow& read = result.rows[0];
        EXPECT_EQ(read.method, "scale__k4_gfx2");
        EXPECT_EQ(read.threadId, 77u);
        EXPECT_EQ(read.callIndex, api == ProfileApi::OpenCL ? 12u : 0u);
        EXPECT_EQ(read.globalSize, (Size{2048, 2, 1}));
        EXPECT_EQ(read.groupSize, (Size{0, 0, 0}));  // NULL (OpenCL) or {0 0 0} (HSA)
        EXPECT_EQ(read.timeMs.has_value(), api == ProfileApi::OpenCL);
        EXPECT_EQ(read.localMemBytes, 512u);
        EXPECT_EQ(read.vgprs, 32u);
        EXPECT_FALSE(read.sgprs);
        EXPECT_EQ(read.privateMemBytes, 8u);
        EXPECT_EQ(read.counters, (std::vector<double>{123456789, 0.25}));
        EXPECT_EQ(result.info.counters[0].kind, CounterKind::Integer);
        EXPECT_EQ(result.info.counters[1].kind, CounterKind::Float);
    }
}

TEST(ProfileCsvReader, OriginalWithSemicolons) {
    const auto result = readCsvFixture("original_semicolon.csv");
    ASSERT_TRUE(result.ok) << result.error;
    EXPECT_EQ(result.info.listSeparator, ';');
    EXPECT_EQ(*result.info.headerValue("Device Fiji Platform Vendor"),
              "Advanced Micro Devices, Inc.");
    ASSERT_EQ(result.rows.size(), 3u);
    const profile::DispatchRow& reduce = result.rows[0];
    EXPECT_EQ(reduce.globalSize, (Size{1048576, 1, 1}));
    EXPECT_EQ(reduce.groupSize, (Size{256, 1, 1}));
    EXPECT_EQ(reduce.vgprs, 24u);
    EXPECT_EQ(reduce.sgprs, 16u);
    EXPECT_EQ(reduce.scratchRegs, 0u);
    EXPECT_FALSE(reduce.privateMemBytes);  // not a column of the original
    const profile::DispatchRow& matmul = result.rows[1];
    EXPECT_EQ(matmul.groupSize, (Size{0, 0, 0}));  // NULL
    EXPECT_FALSE(matmul.scratchRegs);              // NA
    EXPECT_TRUE(std::isnan(matmul.counters[4]));   // CacheHit NA
    const std::vector<CounterKind> kinds{CounterKind::Integer, CounterKind::Integer,
                                         CounterKind::Float, CounterKind::Float,
                                         CounterKind::Float};
    ASSERT_EQ(result.info.counters.size(), kinds.size());
    for (size_t i = 0; i < kinds.size(); ++i) {
        EXPECT_EQ(result.info.counters[i].kind, kinds[i]) << result.info.counters[i].name;
    }
}

TEST(ProfileCsvReader, OriginalWithTabsFoundFromTheColumnLine) {
    const auto result = readCsvFixture("original_tab.csv");
    ASSERT_TRUE(result.ok) << result.error;
    EXPECT_EQ(result.info.headerValue("ListSeparator"), nullptr);
    EXPECT_EQ(result.info.listSeparator, '\t');
    ASSERT_EQ(result.rows.size(), 2u);
    EXPECT_EQ(result.rows[1].groupSize, (Size{256, 1, 1}));
    EXPECT_DOUBLE_EQ(*result.rows[1].timeMs, 0.185);
    EXPECT_EQ(result.info.counters[1].name, "MemUnitBusy");
    EXPECT_EQ(result.info.counters[1].kind, CounterKind::Float);
}

TEST(ProfileCsvReader, TabSeparatorInTheHeader) {
    for (const std::string separator : {"\t", "\\t"}) {
        const auto result = readCsvText("#ListSeparator=" + separator +
                                        "\nMethod\tExecutionOrder\tThreadID\tGlobalWorkSize\t"
                                        "WorkGroupSize\nk\t1\t2\t{8 8 1}\t{4 4 1}\n");
        ASSERT_TRUE(result.ok) << result.error;
        EXPECT_EQ(result.info.listSeparator, '\t');
        EXPECT_EQ(result.rows.at(0).globalSize, (Size{8, 8, 1}));
    }
}

TEST(ProfileCsvReader, HsaColumns) {
    const auto result = readCsvFixture("hsa.csv");
    ASSERT_TRUE(result.ok) << result.error;
    EXPECT_EQ(result.info.api, ProfileApi::Hsa);
    EXPECT_FALSE(result.info.hasTime);
    ASSERT_EQ(result.rows.size(), 2u);
    EXPECT_EQ(result.rows[0].callIndex, 0u);
    EXPECT_FALSE(result.rows[0].timeMs);
    EXPECT_EQ(result.rows[0].vgprs, 8u);
    EXPECT_EQ(result.info.counters.at(0).name, "Wavefronts");
}

TEST(ProfileCsvReader, ApiFromTheColumnsWithoutTheHeaderKey) {
    const std::string hsa = "Method, ExecutionOrder, ThreadID, GlobalWorkSize, WorkGroupSize\n";
    EXPECT_EQ(readCsvText(hsa).info.api, ProfileApi::Hsa);
    const std::string ocl =
        "Method, ExecutionOrder, ThreadID, CallIndex, GlobalWorkSize, WorkGroupSize\n";
    EXPECT_EQ(readCsvText(ocl).info.api, ProfileApi::OpenCL);
}

TEST(ProfileCsvReader, HeaderOnlyIsZeroDispatches) {
    const auto result = readCsvFixture("header_only.csv");
    ASSERT_TRUE(result.ok) << result.error;
    EXPECT_EQ(result.info.rowCount, 0u);
    EXPECT_TRUE(result.rows.empty());
    EXPECT_TRUE(result.info.counters.empty());
}

TEST(ProfileCsvReader, CrLfByteOrderMarkBlankLinesAndTrailingSeparators) {
    const auto result = readCsvText(
        "\xEF\xBB\xBF#ProfileFileVersion=5.6\r\nMethod, ExecutionOrder, ThreadID, GlobalWorkSize, "
        "WorkGroupSize, c, \r\n\r\nk, 1, 2, {1024}, { 64 }, 5, \r\n\r\n");
    ASSERT_TRUE(result.ok) << result.error;
    EXPECT_EQ(result.info.header.at(0).first, "ProfileFileVersion");
    EXPECT_EQ(result.info.columns.size(), 6u);
    ASSERT_EQ(result.rows.size(), 1u);
    EXPECT_EQ(result.lines[0], 4u);
    EXPECT_EQ(result.rows[0].globalSize, (Size{1024, 1, 1}));
    EXPECT_EQ(result.rows[0].groupSize, (Size{64, 1, 1}));
    EXPECT_EQ(result.rows[0].counters, std::vector<double>{5});
}

TEST(ProfileCsvReader, LoadKeepsEveryRow) {
    profile::ProfileCsv csv;
    std::string error;
    ASSERT_TRUE(profile::loadProfileCsv(test::profileFixture("twokernels.csv"), csv, error))
        << error;
    EXPECT_EQ(csv.rows.size(), 7u);
    EXPECT_EQ(csv.rows.back().executionOrder, 7u);
    EXPECT_EQ(csv.info.counters.at(2).kind, CounterKind::Float);
}

TEST(ProfileCsvReader, MissingFileIsNamed) {
    profile::ProfileCsv csv;
    std::string error;
    EXPECT_FALSE(profile::loadProfileCsv("/nonexistent/p.csv", csv, error));
    EXPECT_EQ(error, "/nonexistent/p.csv: cannot open: No such file or directory");
}

// Every refusal names the file and the line.
const std::string kHead = "#ProfileFileVersion=5.6\n#API=OpenCL\n";
const std::string kColumns =
    "Method, ExecutionOrder, ThreadID, CallIndex, GlobalWorkSize, WorkGroupSize, Time, VGPRs, "
    "cycles\n";

// A row of kColumns with field `index` replaced by `value`.
std::string row(size_t index = 99, const std::string& value = {}) {
    std::vector<std::string> fields{"k__k1_CPU", "1",   "7",  "0", "{   64 1 1}",
                                    "NULL",      "0.5", "NA", "10"};
    if (index < fields.size()) fields[index] = value;
    std::string line = fields[0];
    for (size_t i = 1; i < fields.size(); ++i) line += ", " + fields[i];
    return line + "\n";
}

TEST(ProfileCsvReader, ValidBaseOfTheErrorCases) {
    const auto result = readCsvText(kHead + kColumns + row());
    ASSERT_TRUE(result.ok) << result.error;
    EXPECT_EQ(result.rows.size(), 1u);
}

TEST(ProfileCsvReader, ErrorsNameFileAndLine) {
    const std::pair<std::string, std::string> cases[] = {
        {"", "p.csv: empty: not a kernel profile file"},
        {"a,b,c\n",
         "p.csv:1: not a kernel profile file: expected the column line (Method, "
         "ExecutionOrder, ...), found 'a,b,c'"},
        {kHead, "p.csv:2: the header ends without a column line (Method, ExecutionOrder, ...)"},
        {"#ProfileFileVersion=5.6\n#junk\n",
         "p.csv:2: expected a #Key=Value header line, found '#junk'"},
        {"#ListSeparator=ab\n",
         "p.csv:1: #ListSeparator= must be one punctuation character or a tab, found 'ab'"},
        {"#ListSeparator=x\n",
         "p.csv:1: #ListSeparator= must be one punctuation character or a tab, found 'x'"},
        {"#API=CUDA\n", "p.csv:1: #API= must be OpenCL or HSA, found 'CUDA'"},
        {kHead + "Kernel, Order\n",
         "p.csv:3: expected the column line (Method, ExecutionOrder, ...), found 'Kernel, Order'"},
        {"#ListSeparator=;\nMethod, ExecutionOrder\n",
         "p.csv:2: the column line has no ';' (the #ListSeparator=) between its columns"},
        {kHead + "Method, ExecutionOrder, ThreadID, GlobalWorkSize\n",
         "p.csv:3: the column line has no WorkGroupSize column"},
        {kHead + "Method, , ThreadID\n", "p.csv:3: the column line has an empty column name"},
        {kHead + "Method, ExecutionOrder, ExecutionOrder\n",
         "p.csv:3: the column 'ExecutionOrder' twice"},
        {kHead + kColumns + "k__k1_CPU, 1, 7\n",
         "p.csv:4: expected 9 values (one per column), found 3"},
        {kHead + kColumns + row(0, ""), "p.csv:4: Method: empty"},
        {kHead + kColumns + row(1, "x"), "p.csv:4: ExecutionOrder: 'x' is not a whole number"},
        {kHead + kColumns + row(2, "-1"), "p.csv:4: ThreadID: '-1' is not a whole number"},
        {kHead + kColumns + row(3, "NA"), "p.csv:4: CallIndex: 'NA' is not a whole number"},
        {kHead + kColumns + row(4, "{1 2 3 4}"),
         "p.csv:4: GlobalWorkSize: expected a size such as {   1024       1       1} or NULL, "
         "found '{1 2 3 4}'"},
        {kHead + kColumns + row(4, "[64]"), "p.csv:4: GlobalWorkSize: expected a size"},
        {kHead + kColumns + row(4, "{}"), "p.csv:4: GlobalWorkSize: expected a size"},
        {kHead + kColumns + row(4, "{a}"), "p.csv:4: GlobalWorkSize: expected a size"},
        {kHead + kColumns + row(5, "64"), "p.csv:4: WorkGroupSize: expected a size"},
        {kHead + kColumns + row(6, "fast"), "p.csv:4: Time: 'fast' is not a time in ms (or NA)"},
        {kHead + kColumns + row(6, "-0.5"), "p.csv:4: Time: '-0.5' is not a time in ms (or NA)"},
        {kHead + kColumns + row(7, "12.5"), "p.csv:4: VGPRs: '12.5' is not a whole number"},
        {kHead + kColumns + row(8, "lots"), "p.csv:4: cycles: 'lots' is not a number (or NA)"},
        {kHead + kColumns + row() + "#ListSeparator=,\n",
         "p.csv:5: a header line after the column line"},
    };
    for (const auto& [text, expected] : cases) {
        const auto result = readCsvText(text);
        EXPECT_FALSE(result.ok) << text;
        EXPECT_EQ(result.error.substr(0, expected.size()), expected) << text;
    }
}

TEST(ProfileCsvReader, SplitsMethodNames) {
    const profile::MethodName gpu = profile::splitMethod("reduce__k1_Fiji1");
    EXPECT_EQ(gpu.kernel, "reduce");
    EXPECT_EQ(gpu.device, "Fiji1");
    EXPECT_TRUE(gpu.hasKernelId);
    EXPECT_EQ(gpu.kernelId, 1u);
    EXPECT_EQ(profile::splitMethod("mul__k3_CPU").device, "CPU");
    const profile::MethodName nested = profile::splitMethod("my__kernel__k12_gfx9001");
    EXPECT_EQ(nested.kernel, "my__kernel");
    EXPECT_EQ(nested.device, "gfx9001");
    EXPECT_EQ(nested.kernelId, 12u);
    for (const char* plain : {"plain", "x__kab_CPU", "x__k1_", "__k1_CPU", "a__k_CPU"}) {
        const profile::MethodName name = profile::splitMethod(plain);
        EXPECT_EQ(name.kernel, plain);
        EXPECT_EQ(name.device, "");
        EXPECT_FALSE(name.hasKernelId);
    }
}

}  // namespace
