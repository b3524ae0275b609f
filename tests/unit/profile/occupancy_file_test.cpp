// The `.occupancy` file (src/profile/format/occupancy_file.h,
// docs/profile.md#the-occupancy-file): header, the 26-column line, rows with the bare separator,
// and the safe writer (rows in a temporary file until finish).
#include "profile/format/occupancy_file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "atp/format/atp_header.h"

namespace perfmarker::profile {
namespace {

namespace fs = std::filesystem;

OccupancyRow sampleRow() {
    OccupancyRow r;
    r.threadId = 4711;
    r.kernelName = "reduce";
    r.deviceName = "gfx90a";
    r.computeUnits = 110;
    r.maxWavesPerCu = 32;
    r.maxWorkgroupsPerCu = 16;
    r.maxVgprs = 512;
    r.maxSgprs = 102;
    r.maxLds = 65536;
    r.vgprsUsed = 96;
    r.sgprsUsed = 48;
    r.ldsUsed = 16384;
    r.waveSize = 64;
    r.workgroupSize = 512;
    r.wavesPerWorkgroup = 8;
    r.maxWorkgroupSize = 1024;
    r.maxWavesPerWorkgroup = 16;
    r.globalSize = 512000;
    r.maxGlobalSize = 4294967295ull;
    r.vgprLimitedWaves = 16;
    r.sgprLimitedWaves = 32;
    r.ldsLimitedWaves = 32;
    r.workgroupLimitedWaves = 32;
    r.occupancyPercent = 50;
    r.gfxIpMajor = 9;
    r.simdsPerCu = 4;
    return r;
}

std::string readFile(const fs::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

class OccupancyFileTest : public ::testing::Test {
protected:
    void SetUp() override {
        const char* tmp = std::getenv("TMPDIR");
        m_dir = fs::path(tmp != nullptr ? tmp : "/tmp") /
                ("perfmarker_occupancy_" + std::to_string(getpid()) + "_" +
                 ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(m_dir);
        fs::create_directories(m_dir);
    }
    void TearDown() override { fs::remove_all(m_dir); }
    size_t filesInDir() const {
        return static_cast<size_t>(std::distance(fs::directory_iterator(m_dir), {}));
    }
    fs::path m_dir;
};

const char kColumnLine[] =
    "Thread ID,Kernel Name,Device Name,Number of compute units,Max. number of wavefronts per CU,"
    "Max. number of work-group per CU,Max. number of VGPR,Max. number of SGPR,Max. amount of LDS,"
    "Number of VGPR used,Number of SGPR used,Amount of LDS used,Size of wavefront,Work-group size,"
    "Wavefronts per work-group,Max work-group size,Max wavefronts per work-group,Global work size,"
    "Maximum global work size,Nbr VGPR-limited waves,Nbr SGPR-limited waves,Nbr LDS-limited "
    "waves,Nbr of WG-limited waves,Kernel occupancy,Graphics IP Version,Number of SIMDs per CU\n";

TEST(OccupancyFileFormat, HeaderAndColumnLine) {
    OccupancyHeader h;
    h.application = "/opt/app/bin/reduce";
    h.applicationArgs = {"-n", "10"};
    const std::string expected = "# ProfilerVersion=" + std::string(atp::profilerVersion()) +
                                 "\n# Application=/opt/app/bin/reduce\n# ApplicationArgs=-n 10\n"
                                 "# ListSeparator=,\n# KernelCount=3\n" +
                                 kColumnLine;
    EXPECT_EQ(formatOccupancyHeader(h, 3), expected);
    EXPECT_EQ(occupancyColumnNames().size(), 26u);
    EXPECT_EQ(occupancyColumnNames()[23], "Kernel occupancy");
}

TEST(OccupancyFileFormat, RowWithTheBareSeparator) {
    EXPECT_EQ(formatOccupancyRow(sampleRow(), ','),
              "4711,reduce,gfx90a,110,32,16,512,102,65536,96,48,16384,64,512,8,1024,16,512000,"
              "4294967295,16,32,32,32,50,9,4\n");
    OccupancyRow r = sampleRow();
    r.occupancyPercent = 31.25;
    const std::string text = formatOccupancyRow(r, ';');
    EXPECT_NE(text.find(";32;31.25;9;4\n"), std::string::npos) << text;
    r.occupancyPercent = 100.0 * 13 / 15;  // 86.666... -> two decimals
    EXPECT_NE(formatOccupancyRow(r, ',').find(",86.67,"), std::string::npos);
    r.occupancyPercent = 97.5;
    EXPECT_NE(formatOccupancyRow(r, ',').find(",97.5,"), std::string::npos);
}

TEST(OccupancyFileFormat, SeparatorInTheHeaderAndColumns) {
    OccupancyHeader h;
    h.listSeparator = ';';
    const std::string text = formatOccupancyHeader(h, 0);
    EXPECT_NE(text.find("# ListSeparator=;\n# KernelCount=0\nThread ID;Kernel Name;"),
              std::string::npos);
}

TEST_F(OccupancyFileTest, WriterRowsStayInATemporaryFileUntilFinish) {
    const fs::path target = m_dir / "run.occupancy";
    OccupancyHeader h;
    h.application = "/bin/app";
    OccupancyFileWriter writer;
    std::string error;
    ASSERT_TRUE(writer.open(target.string(), h, error)) << error;
    ASSERT_TRUE(writer.append(sampleRow()));
    OccupancyRow second = sampleRow();
    second.kernelName = "scan";
    ASSERT_TRUE(writer.append(second));
    EXPECT_EQ(writer.rowCount(), 2u);
    // Before finish: no target, one temporary file holding the rows (what a crash leaves).
    EXPECT_FALSE(fs::exists(target));
    ASSERT_EQ(filesInDir(), 1u);
    const fs::path temp = fs::directory_iterator(m_dir)->path();
    EXPECT_EQ(temp.filename().string().rfind("run.occupancy.tmp.", 0), 0u);
    EXPECT_EQ(readFile(temp),
              formatOccupancyRow(sampleRow(), ',') + formatOccupancyRow(second, ','));

    ASSERT_TRUE(writer.finish(error)) << error;
    EXPECT_EQ(filesInDir(), 1u);  // the temporary files are gone
    EXPECT_EQ(readFile(target), formatOccupancyHeader(h, 2) + formatOccupancyRow(sampleRow(), ',') +
                                    formatOccupancyRow(second, ','));
}

TEST_F(OccupancyFileTest, WriterWithoutRowsWritesTheHeader) {
    const fs::path target = m_dir / "empty.occupancy";
    OccupancyFileWriter writer;
    std::string error;
    ASSERT_TRUE(writer.open(target.string(), OccupancyHeader{}, error)) << error;
    ASSERT_TRUE(writer.finish(error)) << error;
    EXPECT_EQ(readFile(target), formatOccupancyHeader(OccupancyHeader{}, 0));
}

TEST_F(OccupancyFileTest, WriterReportsADirectoryThatIsNotThere) {
    OccupancyFileWriter writer;
    std::string error;
    EXPECT_FALSE(writer.open((m_dir / "missing" / "x.occupancy").string(), {}, error));
    EXPECT_NE(error.find("missing"), std::string::npos) << error;
    EXPECT_FALSE(writer.finish(error));
}

TEST_F(OccupancyFileTest, StagedFileFinishReplacesAnOldTarget) {
    const fs::path target = m_dir / "p.csv";
    std::ofstream(target) << "old\n";
    StagedFile file;
    std::string error;
    ASSERT_TRUE(file.open(target.string(), error)) << error;
    ASSERT_TRUE(file.append("new\n"));
    EXPECT_EQ(readFile(target), "old\n");
    ASSERT_TRUE(file.finish(error)) << error;
    EXPECT_EQ(readFile(target), "new\n");
    EXPECT_EQ(filesInDir(), 1u);
}

}  // namespace
}  // namespace perfmarker::profile
