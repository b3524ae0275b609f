// Where a session's files go in shared directories (src/record/session_files.h) and how files
// are created and read there (src/atp/format/safe_files.h): private per-process directories,
// new files only, never through a link, and only our own files read.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "atp/format/safe_files.h"
#include "record/session_files.h"

namespace perfmarker::record {
namespace {

namespace fs = std::filesystem;

class SessionFiles : public ::testing::Test {
protected:
    void SetUp() override {
        char tmpl[] = "/tmp/perfmarker-files-XXXXXX";
        ASSERT_NE(mkdtemp(tmpl), nullptr);
        m_root = tmpl;
    }
    void TearDown() override {
        std::error_code ignored;
        fs::remove_all(m_root, ignored);
    }
    // A directory with exactly `mode` (chmod after mkdir: the umask does not narrow it).
    std::string makeDir(const std::string& name, mode_t mode) {
        const std::string path = m_root + "/" + name;
        EXPECT_EQ(mkdir(path.c_str(), 0700), 0) << path;
        EXPECT_EQ(chmod(path.c_str(), mode), 0) << path;
        return path;
    }
    static mode_t modeOf(const std::string& path) {
        struct stat st {};
        EXPECT_EQ(lstat(path.c_str(), &st), 0) << path;
        return st.st_mode & 07777;
    }
    std::string m_root;
};

TEST_F(SessionFiles, PrivateMeansOursAndClosedToOthers) {
    EXPECT_TRUE(isPrivateDirectory(makeDir("private", 0700)));
    EXPECT_FALSE(isPrivateDirectory(makeDir("shared", 0755)));
    EXPECT_FALSE(isPrivateDirectory(makeDir("group", 0770)));
    ASSERT_EQ(symlink((m_root + "/private").c_str(), (m_root + "/link").c_str()), 0);
    EXPECT_FALSE(isPrivateDirectory(m_root + "/link"));  // a link is not the directory
    EXPECT_FALSE(isPrivateDirectory(m_root + "/missing"));
}

TEST_F(SessionFiles, TempDirMustNotBeOpenToEveryoneUnlessSticky) {
    std::string error;
    EXPECT_TRUE(checkTempDir(makeDir("sticky", 01777), error)) << error;
    EXPECT_TRUE(checkTempDir(makeDir("plain", 0755), error)) << error;
    const std::string open = makeDir("open", 0777);
    EXPECT_FALSE(checkTempDir(open, error));
    EXPECT_EQ(
        error.rfind(open + " (for temporary files) is writable by everyone and not sticky", 0), 0u)
        << error;
    EXPECT_FALSE(checkTempDir(m_root + "/missing", error));
    EXPECT_NE(error.find("No such file or directory"), std::string::npos) << error;
    std::ofstream(m_root + "/file") << "x";
    EXPECT_FALSE(checkTempDir(m_root + "/file", error));
    EXPECT_NE(error.find("is not a directory"), std::string::npos) << error;
}

TEST_F(SessionFiles, PrivateTempDirIsUsedAsItIs) {
    const std::string dir = makeDir("session", 0700);
    std::string error;
    EXPECT_EQ(processFilesDir(dir, 42, true, error), dir) << error;
    EXPECT_TRUE(fs::is_empty(dir));
}

// In a shared directory every library of a process finds the same private directory, made
// once; names someone else holds (another user's directory, a link, a file) are skipped.
TEST_F(SessionFiles, SharedTempDirGetsOnePrivateDirectoryPerProcess) {
    const std::string shared = makeDir("shared", 01777);
    std::string error;
    EXPECT_EQ(processFilesDir(shared, 42, false, error), "");
    EXPECT_NE(error.find("no private directory of process 42"), std::string::npos) << error;
    const std::string first = processFilesDir(shared, 42, true, error);
    EXPECT_EQ(first, shared + "/" + processDirName(42)) << error;
    EXPECT_EQ(modeOf(first), 0700u);
    EXPECT_EQ(processFilesDir(shared, 42, true, error), first);
    EXPECT_EQ(processFilesDir(shared, 42, false, error), first);

    // Planted: a directory open to others, a link to a private directory, a file.
    const std::string name = shared + "/" + processDirName(7);
    ASSERT_EQ(mkdir(name.c_str(), 0700), 0);
    ASSERT_EQ(chmod(name.c_str(), 0777), 0);
    ASSERT_EQ(symlink(first.c_str(), (name + ".1").c_str()), 0);
    std::ofstream(name + ".2") << "x";
    const std::string chosen = processFilesDir(shared, 7, true, error);
    EXPECT_EQ(chosen, name + ".3") << error;
    EXPECT_EQ(processFilesDir(shared, 7, false, error), chosen);
    EXPECT_EQ(processDirPids(shared), (std::vector<long>{7, 42}));

    // A directory open to everyone without the sticky bit is refused outright.
    const std::string open = makeDir("open", 0777);
    EXPECT_EQ(processFilesDir(open, 42, true, error), "");
    EXPECT_NE(error.find("not sticky"), std::string::npos) << error;
    EXPECT_TRUE(fs::is_empty(open));
}

TEST_F(SessionFiles, SessionTempDirIsTmpdirElseTheOutputsDirectory) {
    SessionConfig config;
    config.outputBase = "/data/run-___PID___/trace";
    EXPECT_EQ(sessionTempDir(config, 12), "/data/run-12");
    config.tempDir = "/scratch";
    EXPECT_EQ(sessionTempDir(config, 12), "/scratch");
}

TEST_F(SessionFiles, NewFilesAreNeverOpenedWhenTheyExistOrThroughLinks) {
    const std::string victim = m_root + "/victim";
    std::ofstream(victim) << "precious";
    const std::string link = m_root + "/link";
    ASSERT_EQ(symlink(victim.c_str(), link.c_str()), 0);
    EXPECT_EQ(atp::createNewFile(link, 0600), -1);
    EXPECT_EQ(errno, EEXIST);
    EXPECT_EQ(atp::createNewFile(victim, 0600), -1);
    EXPECT_EQ(errno, EEXIST);
    std::ifstream in(victim);
    std::string text;
    std::getline(in, text);
    EXPECT_EQ(text, "precious");

    const int fd = atp::createNewFile(m_root + "/new", 0640);
    ASSERT_GE(fd, 0);
    close(fd);
    EXPECT_EQ(modeOf(m_root + "/new") & ~0640u, 0u);

    std::string first;
    std::string second;
    const int a = atp::createTempNextTo(victim, 0600, first);
    const int b = atp::createTempNextTo(victim, 0600, second);
    ASSERT_GE(a, 0);
    ASSERT_GE(b, 0);
    close(a);
    close(b);
    EXPECT_NE(first, second);
    EXPECT_EQ(first.rfind(victim + ".tmp.", 0), 0u) << first;
    EXPECT_EQ(first.size(), victim.size() + 5 + 8) << first;
}

TEST_F(SessionFiles, OnlyOurOwnRegularFilesAreRead) {
    const std::string mine = m_root + "/mine";
    std::ofstream(mine) << "x";
    const int fd = atp::openOwnFile(mine);
    ASSERT_GE(fd, 0);
    close(fd);
    ASSERT_EQ(symlink(mine.c_str(), (m_root + "/link").c_str()), 0);
    EXPECT_EQ(atp::openOwnFile(m_root + "/link"), -1);
    EXPECT_EQ(errno, ELOOP);
    EXPECT_EQ(atp::openOwnFile(makeDir("dir", 0700)), -1);
    EXPECT_EQ(errno, EPERM);
    if (geteuid() == 0) {  // only root can give a file away
        ASSERT_EQ(chown(mine.c_str(), 65534, 65534), 0);
        EXPECT_EQ(atp::openOwnFile(mine), -1);
        EXPECT_EQ(errno, EPERM);
    }
}

}  // namespace
}  // namespace perfmarker::record
