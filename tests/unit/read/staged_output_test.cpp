// How the tools write their outputs (src/atp/read/staged_output.h): under a temporary name next
// to the target, renamed over it only on commit; a failed or abandoned output leaves the target
// as it was and no temporary file behind.
#include "atp/read/staged_output.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace perfmarker::atp {
namespace {

namespace fs = std::filesystem;

class StagedOutputTest : public ::testing::Test {
protected:
    StagedOutputTest() {
        std::string dir = (fs::temp_directory_path() / "pm-staged-XXXXXX").string();
        if (mkdtemp(dir.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        m_dir = dir;
    }
    ~StagedOutputTest() override { fs::remove_all(m_dir); }

    std::string file(const std::string& name) const { return m_dir + "/" + name; }
    static void write(const std::string& path, const std::string& text) {
        std::ofstream(path, std::ios::binary) << text;
    }
    static std::string read(const std::string& path) {
        std::ifstream in(path, std::ios::binary);
        std::ostringstream out;
        out << in.rdbuf();
        return out.str();
    }
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (const auto& entry : fs::directory_iterator(m_dir)) {
            out.push_back(entry.path().filename().string());
        }
        std::sort(out.begin(), out.end());
        return out;
    }
    static mode_t modeOf(const std::string& path) {
        struct stat status {};
        stat(path.c_str(), &status);
        return status.st_mode & 07777;
    }

    std::string m_dir;
};

TEST_F(StagedOutputTest, WrittenNextToTheTargetAndInPlaceOnlyOnCommit) {
    const std::string target = file("out.json");
    StagedOutput output;
    ASSERT_TRUE(output.create(target));
    EXPECT_TRUE(output.staged());
    EXPECT_EQ(output.target(), target);
    EXPECT_EQ(output.path().rfind(target + ".tmp.", 0), 0u) << output.path();
    write(output.path(), "new");
    EXPECT_FALSE(fs::exists(target));
    std::string error;
    ASSERT_TRUE(output.commit(error)) << error;
    EXPECT_EQ(read(target), "new");
    EXPECT_THAT(names(), ::testing::ElementsAre("out.json"));
    // A new file gets 0666 less the umask, as a file the tool created itself would.
    const mode_t mask = umask(022);
    umask(mask);
    EXPECT_EQ(modeOf(target), 0666 & ~mask);
}

TEST_F(StagedOutputTest, DiscardAndDestructionLeaveTheTargetAsItWas) {
    const std::string target = file("out.csv");
    write(target, "old");
    chmod(target.c_str(), 0640);
    {
        StagedOutput output;
        ASSERT_TRUE(output.create(target));
        write(output.path(), "half");
        output.discard();
        EXPECT_FALSE(output.staged());
    }
    {
        StagedOutput forgotten;  // never committed: the destructor removes its file
        ASSERT_TRUE(forgotten.create(target));
        write(forgotten.path(), "half");
        StagedOutput moved(std::move(forgotten));
        EXPECT_TRUE(moved.staged());
        EXPECT_FALSE(forgotten.staged());  // (moved from: it owns no file any more)
    }
    EXPECT_EQ(read(target), "old");
    EXPECT_THAT(names(), ::testing::ElementsAre("out.csv"));
    // A committed replacement keeps the mode of the file it replaces.
    StagedOutput output;
    ASSERT_TRUE(output.create(target));
    write(output.path(), "new");
    std::string error;
    ASSERT_TRUE(output.commit(error)) << error;
    EXPECT_EQ(read(target), "new");
    EXPECT_EQ(modeOf(target), 0640u);
}

TEST_F(StagedOutputTest, ErrorsLeaveNothingBehind) {
    StagedOutput output;
    errno = 0;
    EXPECT_FALSE(output.create(file("no/such/dir/out.json")));
    EXPECT_EQ(errno, ENOENT);
    EXPECT_FALSE(output.staged());
    // The rename fails (here: its file is gone): named, and the target stays.
    const std::string target = file("out.html");
    write(target, "old");
    ASSERT_TRUE(output.create(target));
    fs::remove(output.path());
    std::string error;
    EXPECT_FALSE(output.commit(error));
    EXPECT_EQ(error, target + ": cannot replace: No such file or directory");
    EXPECT_EQ(read(target), "old");
    EXPECT_THAT(names(), ::testing::ElementsAre("out.html"));
}

TEST_F(StagedOutputTest, DevicesAreWrittenDirectlyAndLinksKept) {
    StagedOutput device;
    ASSERT_TRUE(device.create("/dev/null"));
    EXPECT_FALSE(device.staged());
    EXPECT_EQ(device.path(), "/dev/null");
    std::string error;
    EXPECT_TRUE(device.commit(error));
    EXPECT_TRUE(fs::is_character_file("/dev/null"));

    // A symbolic link stays a link: the file it names is replaced.
    const std::string real = file("real.json");
    const std::string link = file("link.json");
    write(real, "old");
    fs::create_symlink(real, link);
    StagedOutput output;
    ASSERT_TRUE(output.create(link));
    write(output.path(), "new");
    ASSERT_TRUE(output.commit(error)) << error;
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(read(real), "new");
}

TEST_F(StagedOutputTest, WriteStagedFile) {
    const std::string target = file("summary.md");
    write(target, "old");
    std::string error;
    ASSERT_TRUE(writeStagedFile(target, "# new\n", error)) << error;
    EXPECT_EQ(read(target), "# new\n");
    EXPECT_FALSE(writeStagedFile(file("no/dir/x.md"), "x", error));
    EXPECT_EQ(error, "cannot write " + file("no/dir/x.md") + ": No such file or directory");
    EXPECT_FALSE(writeStagedFile(m_dir, "x", error));  // a directory cannot be replaced
    EXPECT_EQ(error, "cannot write " + m_dir + ": Is a directory");
    if (fs::exists("/dev/full")) {
        EXPECT_FALSE(writeStagedFile("/dev/full", "x", error));
        EXPECT_EQ(error, "cannot write /dev/full: No space left on device");
    }
    EXPECT_THAT(names(), ::testing::ElementsAre("summary.md"));
}

}  // namespace
}  // namespace perfmarker::atp
