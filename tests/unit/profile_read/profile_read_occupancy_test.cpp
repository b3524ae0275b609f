// The `.occupancy` reader: the original-format fixture, other separators, the forms of the
// "Graphics IP Version", header-only files, and every error naming the file and the line.
#include <gtest/gtest.h>

#include "profile/read/occupancy_reader.h"
#include "profile_read_support.h"

namespace {

using namespace perfmarker;
using perfmarker::profile::OccupancyLimiter;
using perfmarker::test::occupancyColumns;
using perfmarker::test::readOccupancyText;

// One row of 26 values joined by `separator`; value `index` replaced by `value`.
std::string occupancyRow(char separator, size_t index = 99, const std::string& value = {}) {
    std::vector<std::string> values{"31880", "reduce", "Fiji", "64",      "40",         "16", "256",
                                    "102",   "65536",  "24",   "16",      "4096",       "64", "256",
                                    "4",     "256",    "4",    "1048576", "4294967295", "40", "40",
                                    "64",    "40",     "100",  "8",       "4"};
    if (index < values.size()) values[index] = value;
    std::string line = values[0];
    for (size_t i = 1; i < values.size(); ++i) line += separator + values[i];
    return line + "\n";
}

const std::string kHeader = "# ProfilerVersion=5.6.0\n# ListSeparator=,\n# KernelCount=1\n";

TEST(OccupancyReader, ReadsTheOriginalFormatFixture) {
    profile::OccupancyInfo info;
    std::vector<profile::OccupancyRow> rows;
    std::string error;
    ASSERT_TRUE(profile::readOccupancyFile(
        test::profileFixture("original.occupancy"), info,
        [&](const profile::OccupancyRow& row, uint64_t) { rows.push_back(row); }, error))
        << error;
    EXPECT_EQ(info.listSeparator, ',');
    EXPECT_EQ(info.kernelCount, 5u);
    EXPECT_EQ(info.rowCount, 5u);
    EXPECT_EQ(info.columns.size(), 26u);
    EXPECT_EQ(info.header.at(1).first, "Application");
    ASSERT_EQ(rows.size(), 5u);
    const profile::OccupancyRow& matmul = rows[1];
    EXPECT_EQ(matmul.threadId, 31880u);
    EXPECT_EQ(matmul.kernelName, "matmul");
    EXPECT_EQ(matmul.deviceName, "Fiji");
    EXPECT_EQ(matmul.computeUnits, 64u);
    EXPECT_EQ(matmul.maxWavesPerCu, 40u);
    EXPECT_EQ(matmul.maxWorkgroupsPerCu, 16u);
    EXPECT_EQ(matmul.maxVgprs, 256u);
    EXPECT_EQ(matmul.maxSgprs, 102u);
    EXPECT_EQ(matmul.maxLds, 65536u);
    EXPECT_EQ(matmul.vgprsUsed, 84u);
    EXPECT_EQ(matmul.sgprsUsed, 40u);
    EXPECT_EQ(matmul.ldsUsed, 16384u);
    EXPECT_EQ(matmul.waveSize, 64u);
    EXPECT_EQ(matmul.workgroupSize, 256u);
    EXPECT_EQ(matmul.wavesPerWorkgroup, 4u);
    EXPECT_EQ(matmul.maxWorkgroupSize, 256u);
    EXPECT_EQ(matmul.maxWavesPerWorkgroup, 4u);
    EXPECT_EQ(matmul.globalSize, 1048576u);
    EXPECT_EQ(matmul.maxGlobalSize, 4294967295u);
    EXPECT_EQ(matmul.vgprLimitedWaves, 12u);
    EXPECT_EQ(matmul.sgprLimitedWaves, 40u);
    EXPECT_EQ(matmul.ldsLimitedWaves, 16u);
    EXPECT_EQ(matmul.workgroupLimitedWaves, 40u);
    EXPECT_DOUBLE_EQ(matmul.occupancyPercent, 30.0);
    EXPECT_EQ(matmul.gfxIpMajor, 8u);
    EXPECT_EQ(matmul.simdsPerCu, 4u);
    // The smallest limited wave count; the first of a tie.
    EXPECT_EQ(matmul.limiter, OccupancyLimiter::Vgpr);
    EXPECT_EQ(rows[0].limiter, OccupancyLimiter::Vgpr);  // 40 40 64 40
    EXPECT_EQ(rows[2].limiter, OccupancyLimiter::Lds);   // 40 40 16 32
}

TEST(OccupancyReader, OtherSeparatorsFromTheColumnLine) {
    for (const char separator : {';', '\t', '|'}) {
        const auto result =
            readOccupancyText("# ProfilerVersion=5.6.0\n" + occupancyColumns(separator) + "\n" +
                              occupancyRow(separator));
        ASSERT_TRUE(result.ok) << result.error;
        EXPECT_EQ(result.info.listSeparator, separator);
        ASSERT_EQ(result.rows.size(), 1u);
        EXPECT_EQ(result.rows[0].ldsUsed, 4096u);
    }
}

TEST(OccupancyReader, LimiterOfEachResource) {
    const std::pair<std::vector<std::string>, OccupancyLimiter> cases[] = {
        {{"10", "40", "40", "40"}, OccupancyLimiter::Vgpr},
        {{"40", "10", "40", "40"}, OccupancyLimiter::Sgpr},
        {{"40", "40", "10", "40"}, OccupancyLimiter::Lds},
        {{"40", "40", "40", "10"}, OccupancyLimiter::Workgroup},
        {{"40", "20", "20", "40"}, OccupancyLimiter::Sgpr},
    };
    for (const auto& [waves, limiter] : cases) {
        std::vector<std::string> values{
            "1",    "k",      "d",      "64",     "40",     "16", "256", "102", "65536",
            "24",   "16",     "4096",   "64",     "256",    "4",  "256", "4",   "1024",
            "4096", waves[0], waves[1], waves[2], waves[3], "25", "9",   "4"};
        std::string line = values[0];
        for (size_t i = 1; i < values.size(); ++i) line += "," + values[i];
        const auto result = readOccupancyText(kHeader + occupancyColumns(',') + "\n" + line);
        ASSERT_TRUE(result.ok) << result.error;
        EXPECT_EQ(result.rows.at(0).limiter, limiter) << line;
    }
}

TEST(OccupancyReader, GraphicsIpVersionsAndPercentSign) {
    const std::pair<std::string, uint32_t> versions[] = {
        {"8", 8}, {"9.0.6", 9}, {"gfx906", 9}, {"gfx90a", 9}, {"gfx1030", 10}, {"gfx1100", 11}};
    for (const auto& [text, major] : versions) {
        const auto result =
            readOccupancyText(kHeader + occupancyColumns(',') + "\n" + occupancyRow(',', 24, text));
        ASSERT_TRUE(result.ok) << result.error;
        EXPECT_EQ(result.rows.at(0).gfxIpMajor, major) << text;
    }
    const auto percent =
        readOccupancyText(kHeader + occupancyColumns(',') + "\n" + occupancyRow(',', 23, "37.5%"));
    ASSERT_TRUE(percent.ok) << percent.error;
    EXPECT_DOUBLE_EQ(percent.rows.at(0).occupancyPercent, 37.5);
}

TEST(OccupancyReader, HeaderOnlyAndHeaderWithoutSpace) {
    const auto empty = readOccupancyText(kHeader + occupancyColumns(',') + "\n");
    ASSERT_TRUE(empty.ok) << empty.error;
    EXPECT_EQ(empty.info.rowCount, 0u);
    const auto tight = readOccupancyText("#ListSeparator=;\n" + occupancyColumns(';') + "\r\n" +
                                         occupancyRow(';'));
    ASSERT_TRUE(tight.ok) << tight.error;
    EXPECT_EQ(tight.info.listSeparator, ';');
    EXPECT_EQ(tight.rows.size(), 1u);
}

TEST(OccupancyReader, ColumnNamesComparedByLettersAndDigits) {
    std::string columns = occupancyColumns(',');
    columns.replace(columns.find("Max. number of VGPR"), 19, "max number of VGPR");
    const auto result = readOccupancyText(kHeader + columns + "\n" + occupancyRow(','));
    EXPECT_TRUE(result.ok) << result.error;
}

TEST(OccupancyReader, ErrorsNameFileAndLine) {
    const std::string columns = occupancyColumns(',') + "\n";
    std::string shortColumns = occupancyColumns(',');
    shortColumns.resize(shortColumns.rfind(','));
    std::string renamed = occupancyColumns(',');
    renamed.replace(renamed.find("Number of compute units"), 23, "Compute units");
    const std::pair<std::string, std::string> cases[] = {
        {"", "x.occupancy: empty: not an occupancy file"},
        {"x,y\n",
         "x.occupancy:1: not an occupancy file: expected the column line (Thread ID, Kernel "
         "Name, ...), found 'x,y'"},
        {kHeader, "x.occupancy:3: the header ends without a column line (Thread ID, Kernel Name"},
        {"# ProfilerVersion=5.6.0\n#junk\n",
         "x.occupancy:2: expected a # Key=Value header line, found '#junk'"},
        {"# ListSeparator=ab\n",
         "x.occupancy:1: ListSeparator= must be one punctuation character or a tab, found 'ab'"},
        {"# KernelCount=many\n", "x.occupancy:1: KernelCount= 'many' is not a whole number"},
        {kHeader + "Kernel Name,Thread ID\n",
         "x.occupancy:4: expected the column line (Thread ID, Kernel Name, ...)"},
        {kHeader + shortColumns + "\n",
         "x.occupancy:4: expected the 26 columns of an occupancy file, found 25"},
        {kHeader + renamed + "\n",
         "x.occupancy:4: column 4 is 'Compute units', expected 'Number of compute units'"},
        {kHeader + columns + "1,k,d\n",
         "x.occupancy:5: expected 26 values (one per column), found 3"},
        {kHeader + columns + occupancyRow(',', 0, "t1"),
         "x.occupancy:5: Thread ID: 't1' is not a whole number"},
        {kHeader + columns + occupancyRow(',', 9, "24.5"),
         "x.occupancy:5: Number of VGPR used: '24.5' is not a whole number"},
        {kHeader + columns + occupancyRow(',', 11, "4294967296"),
         "x.occupancy:5: Amount of LDS used: '4294967296' is not a whole number"},
        {kHeader + columns + occupancyRow(',', 1, ""), "x.occupancy:5: Kernel Name: empty"},
        {kHeader + columns + occupancyRow(',', 2, ""), "x.occupancy:5: Device Name: empty"},
        {kHeader + columns + occupancyRow(',', 23, "150"),
         "x.occupancy:5: Kernel occupancy: '150' is not a percentage"},
        {kHeader + columns + occupancyRow(',', 23, "high"),
         "x.occupancy:5: Kernel occupancy: 'high' is not a percentage"},
        {kHeader + columns + occupancyRow(',', 24, "fiji"),
         "x.occupancy:5: Graphics IP Version: 'fiji' is not a version (9, 9.0.6 or gfx906)"},
        {kHeader + columns + occupancyRow(',') + "# KernelCount=2\n",
         "x.occupancy:6: a header line after the column line"},
    };
    for (const auto& [text, expected] : cases) {
        const auto result = readOccupancyText(text);
        EXPECT_FALSE(result.ok) << text;
        EXPECT_EQ(result.error.substr(0, expected.size()), expected) << text;
    }
}

TEST(OccupancyReader, MissingFileIsNamed) {
    profile::OccupancyInfo info;
    std::string error;
    EXPECT_FALSE(profile::readOccupancyFile("/nonexistent/x.occupancy", info, {}, error));
    EXPECT_EQ(error, "/nonexistent/x.occupancy: cannot open: No such file or directory");
}

}  // namespace
