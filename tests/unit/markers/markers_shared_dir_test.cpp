// A session in directories others may write to (docs/session.md#files-in-shared-directories),
// run as root against what another user planted there: links and files at the names the
// recorder used before, and at the name of the process's private directory. Nothing outside the
// session is touched, no marker reaches the other user's files, and nothing the session leaves
// is readable by others except the output. Needs root (to plant files as another user).
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "markers_core_support.h"
#include "record/fragments/fragment.h"
#include "record/session_files.h"

namespace perfmarker::markers {
namespace {

using namespace core_test;
namespace fs = std::filesystem;

constexpr uid_t kOther = 65534;  // nobody

std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// What `other` plants, as that user: a link, a 0666 file, a directory open to everyone.
void plantLink(const std::string& target, const std::string& at) {
    ASSERT_EQ(symlink(target.c_str(), at.c_str()), 0) << at;
    ASSERT_EQ(lchown(at.c_str(), kOther, kOther), 0) << at;
}
void plantFile(const std::string& at) {
    std::ofstream(at) << "planted\n";
    ASSERT_EQ(chmod(at.c_str(), 0666), 0);
    ASSERT_EQ(chown(at.c_str(), kOther, kOther), 0);
}
void plantDir(const std::string& at) {
    ASSERT_EQ(mkdir(at.c_str(), 0700), 0) << at;
    ASSERT_EQ(chmod(at.c_str(), 0777), 0);
    ASSERT_EQ(chown(at.c_str(), kOther, kOther), 0);
}

TEST_P(CoreTest, PlantedLinksAndFilesInSharedDirectoriesAreNeverWritten) {
    if (geteuid() != 0) GTEST_SKIP() << "needs root, to plant files as another user";
#if PERFMARKER_TEST_SANITIZED
    GTEST_SKIP() << "forks a process that starts the recorder's threads";
#endif
    const std::string shared = makeSubdir("shared");  // the output's directory, like /tmp
    const std::string tmp = makeSubdir("tmp");        // PERFMARKER_TMPDIR, also shared
    ASSERT_EQ(chmod(shared.c_str(), 01777), 0);
    ASSERT_EQ(chmod(tmp.c_str(), 01777), 0);
    const std::string victim = dir() + "/victim";  // root's file, outside the session
    std::ofstream(victim) << "root's file\n";

    for (const char* mode : {"cached", "timeout"}) {
        SCOPED_TRACE(mode);
        const std::string base = shared + "/run-" + mode;
        setEnv("PERFMARKER_OUTPUT", base);
        setEnv("PERFMARKER_TMPDIR", tmp);
        setEnv("PERFMARKER_MODE", mode);
        setEnv("PERFMARKER_INTERVAL_MS", "5");

        int go[2];
        ASSERT_EQ(pipe(go), 0);
        const pid_t pid = fork();
        ASSERT_GE(pid, 0);
        if (pid == 0) {
            close(go[1]);
            char byte = 0;
            if (read(go[0], &byte, 1) != 1) _exit(90);
            MarkerCore core(flavor(), fakeLookup);
            if (core.initialize() != kSuccess) _exit(91);
            for (int i = 0; i < 100; ++i) {
                if (core.begin("secret-marker", nullptr, nullptr) != kSuccess) _exit(92);
                if (core.end() != kSuccess) _exit(93);
            }
            _exit(core.finalize() == kSuccess ? 0 : 94);
        }
        close(go[0]);
        // The names of the child's fragment file (its number counts the recorders the process
        // made: every likely one), the old temporary output, the output itself (hard-linked to
        // a file the other user keeps), and the first names of its private directory.
        const std::string e = ext();
        for (uint64_t index = 0; index < 64; ++index) {
            plantLink(victim, tmp + "/" + record::fragmentFileName(pid, index, e));
            plantLink(victim, shared + "/" + record::fragmentFileName(pid, index, e));
        }
        plantLink(victim, base + "." + e + ".tmp" + std::to_string(pid));
        const std::string loot = shared + "/loot-" + mode;
        plantFile(loot);
        ASSERT_EQ(link(loot.c_str(), (base + "." + e).c_str()), 0);
        plantDir(tmp + "/" + record::processDirName(pid));
        plantLink(dir(), tmp + "/" + record::processDirName(pid) + ".1");

        ASSERT_EQ(write(go[1], "g", 1), 1);
        close(go[1]);
        int status = 0;
        ASSERT_EQ(waitpid(pid, &status, 0), pid);
        ASSERT_TRUE(WIFEXITED(status));
        ASSERT_EQ(WEXITSTATUS(status), 0);

        EXPECT_EQ(slurp(victim), "root's file\n");
        EXPECT_EQ(slurp(loot), "planted\n");  // the other user's inode got nothing
        const std::string output = slurp(base + "." + e);
        EXPECT_NE(output.find("secret-marker"), std::string::npos);
        struct stat st {};
        ASSERT_EQ(lstat((base + "." + e).c_str(), &st), 0);
        EXPECT_EQ(st.st_uid, 0u);
        EXPECT_EQ(st.st_nlink, 1u);  // a new file, not the planted one
    }
    // Everything the sessions left besides their outputs is closed to others.
    for (const std::string& where : {shared, tmp}) {
        for (const auto& entry : fs::recursive_directory_iterator(where)) {
            struct stat st {};
            ASSERT_EQ(lstat(entry.path().c_str(), &st), 0);
            const std::string name = entry.path().filename().string();
            if (st.st_uid != 0 || name.rfind("run-", 0) == 0) continue;  // planted, or an output
            EXPECT_EQ(st.st_mode & 077, 0u) << entry.path();
        }
    }
}

}  // namespace
}  // namespace perfmarker::markers
