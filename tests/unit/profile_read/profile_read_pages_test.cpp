// The Kernel Profile Page and the Occupancy Page (analysis/profile/profile_pages.h): every cell
// computed by hand from the fixture rows, several files on one page, notes, and the way
// ProfilePages reads files (by content, refusing what is neither).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "analysis/profile/profile_pages.h"
#include "analysis/render.h"
#include "profile_read_support.h"

namespace {

using namespace perfmarker;
using perfmarker::analysis::ProfilePages;
using perfmarker::analysis::Table;
using perfmarker::test::profileFixture;
using Rows = std::vector<std::vector<std::string>>;

Table onlyTable(const ProfilePages& pages) {
    const std::vector<Table> tables = pages.tables();
    EXPECT_EQ(tables.size(), 1u);
    return tables.empty() ? Table{} : tables.front();
}

Table pageOf(const std::vector<std::string>& fixtures) {
    ProfilePages pages;
    for (const std::string& name : fixtures) {
        std::string error;
        EXPECT_TRUE(pages.addFile(profileFixture(name), error)) << error;
    }
    return onlyTable(pages);
}

TEST(KernelProfilePage, OurFixture) {
    const Table table = pageOf({"twokernels.csv"});
    EXPECT_EQ(table.id, "KernelProfileSummary");
    EXPECT_EQ(table.title, "Kernel Profile Page");
    EXPECT_EQ(table.columns,
              (std::vector<std::string>{
                  "Kernel Name", "Device Name", "# of Dispatches", "Total Time(ms)", "Avg Time(ms)",
                  "Max Time(ms)", "Min Time(ms)", "task-clock Total", "task-clock Avg",
                  "context-switches Total", "context-switches Avg", "ipc Total", "ipc Avg"}));
    // blur2d: 0.2 + 0.3 + 0.1 + 0.4 = 1.0 ms over 4; task-clock 400000 + 500000 + 300000 +
    // 600000; context-switches 3 + 1 + NA + 2 = 6 over the 3 known; ipc 0.75 + 0.5 + 1.0 + 0.35.
    // vecadd: 0.05 + 0.07 + 0.03 = 0.15 ms over 3; 120000 + 140000 + 100000; 2 + 0 + 1;
    // 1.25 + 1.5 + 1.75. blur2d first: the larger total time.
    EXPECT_EQ(table.rows, (Rows{{"blur2d", "CPU", "4", "1.00000", "0.25000", "0.40000", "0.10000",
                                 "1800000", "450000.00", "6", "2.00", "2.60", "0.65"},
                                {"vecadd", "CPU", "3", "0.15000", "0.05000", "0.07000", "0.03000",
                                 "360000", "120000.00", "3", "1.00", "4.50", "1.50"}}));
    EXPECT_TRUE(table.notes.empty());
}

TEST(KernelProfilePage, OriginalWithSemicolons) {
    const Table table = pageOf({"original_semicolon.csv"});
    ASSERT_EQ(table.columns.size(), 17u);
    EXPECT_EQ(table.columns[7], "Wavefronts Total");
    EXPECT_EQ(table.columns[16], "CacheHit Avg");
    // matmul: 1.25 ms once; reduce: 0.48012 + 0.52000 = 1.00012 ms, FetchSize 4096.25 +
    // 4095.75 = 8192, CacheHit 87.5 + 88.5 = 176 (matmul's is NA).
    EXPECT_EQ(table.rows, (Rows{{"matmul", "Fiji1", "1", "1.25000", "1.25000", "1.25000", "1.25000",
                                 "16384", "16384.00", "1536", "1536.00", "96.25", "96.25",
                                 "12288.00", "12288.00", "NA", "NA"},
                                {"reduce", "Fiji1", "2", "1.00012", "0.50006", "0.52000", "0.48012",
                                 "32768", "16384.00", "424", "212.00", "199.50", "99.75", "8192.00",
                                 "4096.00", "176.00", "88.00"}}));
}

TEST(KernelProfilePage, HsaFileHasNoTimeColumns) {
    const Table table = pageOf({"hsa.csv"});
    EXPECT_EQ(table.columns,
              (std::vector<std::string>{"Kernel Name", "Device Name", "# of Dispatches",
                                        "Wavefronts Total", "Wavefronts Avg", "VALUInsts Total",
                                        "VALUInsts Avg"}));
    EXPECT_EQ(table.rows,
              (Rows{{"vector_copy", "gfx9001", "2", "32768", "16384.00", "6", "3.00"}}));
}

TEST(KernelProfilePage, SeveralFilesShareOnePage) {
    const Table table = pageOf({"hsa.csv", "twokernels.csv", "original_tab.csv"});
    ASSERT_EQ(table.columns.size(), 7u + 2 * 6);
    EXPECT_EQ(table.columns[7], "Wavefronts Total");  // first seen first
    EXPECT_EQ(table.columns[11], "task-clock Total");
    ASSERT_EQ(table.rows.size(), 4u);
    EXPECT_EQ(table.rows[0][0], "blur2d");
    // histogram: 0.215 + 0.185 ms; Wavefronts 1024 twice; MemUnitBusy 42.5 + 57.5.
    EXPECT_EQ(table.rows[1],
              (std::vector<std::string>{"histogram", "Ellesmere1", "2", "0.40000", "0.20000",
                                        "0.21500", "0.18500", "2048", "1024.00", "NA", "NA", "NA",
                                        "NA", "NA", "NA", "NA", "NA", "100.00", "50.00"}));
    // The HSA kernel has no time: its time cells say so, and it sorts last.
    EXPECT_EQ(table.rows[3][0], "vector_copy");
    EXPECT_EQ(std::vector<std::string>(table.rows[3].begin() + 3, table.rows[3].begin() + 7),
              std::vector<std::string>(4, "NA"));
}

TEST(KernelProfilePage, NotesOnHeaderOnlyFilesAndUnknownTimes) {
    ProfilePages pages;
    std::string error;
    ASSERT_TRUE(pages.addFile(profileFixture("header_only.csv"), error)) << error;
    std::istringstream in(
        "Method, ExecutionOrder, ThreadID, CallIndex, GlobalWorkSize, WorkGroupSize, Time\n"
        "a, 1, 1, 0, {1 1 1}, NULL, NA\n"
        "a, 2, 1, 1, {1 1 1}, NULL, 2.5\n"
        "b, 3, 1, 2, {1 1 1}, NULL, 2.5\n");
    ASSERT_TRUE(pages.addCsv(in, "t.csv", error)) << error;
    const Table table = onlyTable(pages);
    // Equal totals: more dispatches first. a and b have no kernel-id suffix, so no device.
    EXPECT_EQ(table.rows, (Rows{{"a", "", "2", "2.50000", "2.50000", "2.50000", "2.50000"},
                                {"b", "", "1", "2.50000", "2.50000", "2.50000", "2.50000"}}));
    EXPECT_EQ(table.notes, (std::vector<std::string>{
                               profileFixture("header_only.csv") +
                                   ": no kernel dispatches (the application ran no kernel)",
                               "1 dispatch(es) with Time NA, left out of the time columns"}));
}

TEST(OccupancyPage, OriginalFormatFixture) {
    const Table table = pageOf({"original.occupancy"});
    EXPECT_EQ(table.id, "OccupancySummary");
    EXPECT_EQ(table.title, "Occupancy Page");
    EXPECT_EQ(table.columns,
              (std::vector<std::string>{"Kernel Name", "Device Name", "# of Dispatches", "VGPRs",
                                        "SGPRs", "LDS Used", "Work-group Size", "Limiting Resource",
                                        "Waves per CU", "Occupancy(%)"}));
    // matmul: min(12, 40, 16, 40) = 12 of 40 waves, 30 %. histogram: its 128-item dispatch
    // has min(40, 40, 16, 32) = 16 waves (40 %), its 256-item one min(40, 40, 32, 40) = 32
    // (80 %). reduce: min(40, 40, 64, 40) = 40, three resources tie.
    EXPECT_EQ(
        table.rows,
        (Rows{{"matmul", "Fiji", "1", "84", "40", "16.00 KB", "256", "VGPR", "12 of 40", "30.00"},
              {"histogram", "Fiji", "2", "16", "24", "8.00 KB", "128-256", "LDS", "16 of 40",
               "40.00-80.00"},
              {"reduce", "Fiji", "2", "24", "16", "4.00 KB", "256", "VGPR, SGPR, Work-group",
               "40 of 40", "100.00"}}));
    ASSERT_EQ(table.notes.size(), 1u);
    EXPECT_NE(table.notes[0].find("min-max"), std::string::npos);
}

TEST(OccupancyPage, HeaderOnlyFileGetsANote) {
    ProfilePages pages;
    std::istringstream in("# ProfilerVersion=5.6.0\n" + test::occupancyColumns(',') + "\n");
    std::string error;
    ASSERT_TRUE(pages.addOccupancy(in, "none.occupancy", error)) << error;
    const Table table = onlyTable(pages);
    EXPECT_TRUE(table.rows.empty());
    EXPECT_EQ(table.notes,
              std::vector<std::string>{"none.occupancy: no kernel dispatches to a GPU"});
}

TEST(ProfilePages, BothPagesInOrderAndRendered) {
    ProfilePages pages;
    std::string error;
    ASSERT_TRUE(pages.addFile(profileFixture("original.occupancy"), error)) << error;
    ASSERT_TRUE(pages.addFile(profileFixture("twokernels.csv"), error)) << error;
    const std::vector<Table> tables = pages.tables();
    ASSERT_EQ(tables.size(), 2u);
    EXPECT_EQ(tables[0].id, "KernelProfileSummary");
    EXPECT_EQ(tables[1].id, "OccupancySummary");
    const std::string json = analysis::renderJson(tables);
    EXPECT_NE(json.find("\"OccupancySummary\""), std::string::npos) << json;
    EXPECT_TRUE(ProfilePages().tables().empty());
}

class ScratchFiles {
public:
    ScratchFiles() {
        std::string pattern = (std::filesystem::temp_directory_path() / "pm-prof-XXXXXX").string();
        if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        m_dir = pattern;
    }
    ~ScratchFiles() {
        std::error_code ignored;
        std::filesystem::remove_all(m_dir, ignored);
    }
    std::string write(const std::string& name, const std::string& text) const {
        const std::string path = m_dir + "/" + name;
        std::ofstream(path, std::ios::binary) << text;
        return path;
    }

private:
    std::string m_dir;
};

TEST(ProfilePages, ReadsFilesByContent) {
    ScratchFiles files;
    ProfilePages pages;
    std::string error;
    // An occupancy file named .csv is read as one, and a CSV with another name as a CSV.
    std::ifstream occupancy(profileFixture("original.occupancy"));
    std::stringstream text;
    text << occupancy.rdbuf();
    EXPECT_TRUE(pages.addFile(files.write("occ.csv", text.str()), error)) << error;
    EXPECT_TRUE(pages.addFile(files.write("p.txt",
                                          "Method, ExecutionOrder, ThreadID, "
                                          "GlobalWorkSize, WorkGroupSize\nk, 1, 1, {1}, "
                                          "{1}\n"),
                              error))
        << error;
    const std::vector<Table> tables = pages.tables();
    ASSERT_EQ(tables.size(), 2u);
    EXPECT_EQ(tables[0].rows.size(), 1u);
    EXPECT_EQ(tables[1].rows.size(), 3u);
}

TEST(ProfilePages, RefusesWhatIsNeither) {
    ScratchFiles files;
    ProfilePages pages;
    std::string error;
    const std::string csv = files.write("x.csv", "name,value\n1,2\n");
    EXPECT_FALSE(pages.addFile(csv, error));
    EXPECT_EQ(error, csv +
                         ":1: not a kernel profile file: expected the column line (Method, "
                         "ExecutionOrder, ...), found 'name,value'");
    const std::string occupancy = files.write("x.occupancy", "");
    EXPECT_FALSE(pages.addFile(occupancy, error));
    EXPECT_EQ(error, occupancy + ": empty: not an occupancy file");
    EXPECT_FALSE(pages.addFile("/nonexistent/p.csv", error));
    EXPECT_EQ(error, "/nonexistent/p.csv: cannot open: No such file or directory");
    EXPECT_FALSE(pages.addFile("/nonexistent/p.occupancy", error));
    EXPECT_EQ(error, "/nonexistent/p.occupancy: cannot open: No such file or directory");
    const std::string malformed = files.write("m.csv", "#ProfileFileVersion=5.6\nMethod\n");
    EXPECT_FALSE(pages.addFile(malformed, error));
    EXPECT_EQ(error, malformed +
                         ":2: expected the column line (Method, ExecutionOrder, ...), "
                         "found 'Method'");
}

}  // namespace
