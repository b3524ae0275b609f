// The agents' profile file (profile/format/profile_file.h): rows staged next to the target,
// the target written whole at finish, the rows kept when that cannot be done.
#include "profile/format/profile_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace perfmarker::profile {
namespace {

namespace fs = std::filesystem;

class ProfileFileTest : public ::testing::Test {
protected:
    void SetUp() override {
        dir = fs::temp_directory_path() /
              ("profile_file_test." + std::to_string(::getpid()) + "." +
               ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    void TearDown() override { fs::remove_all(dir); }
    std::vector<std::string> files() const {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
        std::sort(names.begin(), names.end());
        return names;
    }
    static std::string read(const fs::path& p) {
        std::ifstream in(p);
        std::stringstream s;
        s << in.rdbuf();
        return s.str();
    }
    fs::path dir;
};

TEST_F(ProfileFileTest, HeaderThenRowsInTheTargetAndNothingElseLeft) {
    ProfileFile file;
    std::string error;
    const std::string target = (dir / "p.csv").string();
    ASSERT_TRUE(file.open(target, error)) << error;
    EXPECT_FALSE(fs::exists(target)) << "the target appears only at finish";
    ASSERT_TRUE(file.appendRow("r1\n", error)) << error;
    ASSERT_TRUE(file.appendRow("r2\n", error)) << error;
    EXPECT_EQ(file.rowCount(), 2u);
    ASSERT_TRUE(file.finish("#H=1\ncols\n", error)) << error;
    EXPECT_EQ(read(target), "#H=1\ncols\nr1\nr2\n");
    EXPECT_EQ(files(), (std::vector<std::string>{"p.csv"}));
}

TEST_F(ProfileFileTest, UnfinishedFileLeavesItsRowsNextToTheTarget) {
    {
        ProfileFile file;
        std::string error;
        ASSERT_TRUE(file.open((dir / "p.csv").string(), error));
        ASSERT_TRUE(file.appendRow("r1\n", error));
    }  // the process "ended" without finish
    const std::vector<std::string> left = files();
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(left[0].rfind("p.csv.tmp.", 0), 0u) << left[0];
    EXPECT_EQ(read(dir / left[0]), "r1\n");
}

TEST_F(ProfileFileTest, OpenFailsNamingTheTargetWhenItsDirectoryIsMissing) {
    ProfileFile file;
    std::string error;
    EXPECT_FALSE(file.open((dir / "missing" / "p.csv").string(), error));
    EXPECT_NE(error.find("missing/p.csv"), std::string::npos) << error;
    EXPECT_FALSE(file.appendRow("r\n", error));
    EXPECT_FALSE(error.empty());
}

// The target cannot be replaced (here a non-empty directory holds its name, which stops root
// as well): the rows stay, and the message says where.
TEST_F(ProfileFileTest, AFinishThatCannotWriteKeepsTheRowsAndSaysWhere) {
    ProfileFile file;
    std::string error;
    ASSERT_TRUE(file.open((dir / "p.csv").string(), error));
    ASSERT_TRUE(file.appendRow("r1\n", error));
    fs::create_directories(dir / "p.csv" / "in-the-way");
    EXPECT_FALSE(file.finish("#H\n", error));
    EXPECT_NE(error.find("the rows are in"), std::string::npos) << error;
    fs::remove_all(dir / "p.csv");
    const std::vector<std::string> left = files();
    ASSERT_EQ(left.size(), 1u);
    EXPECT_EQ(read(dir / left[0]), "r1\n");
}

// A write that fails (a full disk; here the file size limit, EFBIG) is reported on the row.
TEST_F(ProfileFileTest, AWriteThatFailsIsReportedOnTheRow) {
    ProfileFile file;
    std::string error;
    ASSERT_TRUE(file.open((dir / "p.csv").string(), error));
    const std::string big(1 << 20, 'x');
    bool failed = false;
    struct rlimit old {};
    getrlimit(RLIMIT_FSIZE, &old);
    struct rlimit small = old;
    small.rlim_cur = 1 << 16;
    signal(SIGXFSZ, SIG_IGN);
    setrlimit(RLIMIT_FSIZE, &small);
    for (int i = 0; i < 4 && !failed; ++i) failed = !file.appendRow(big, error);
    setrlimit(RLIMIT_FSIZE, &old);
    EXPECT_TRUE(failed);
    EXPECT_NE(error.find("cannot write a row"), std::string::npos) << error;
}

}  // namespace
}  // namespace perfmarker::profile
