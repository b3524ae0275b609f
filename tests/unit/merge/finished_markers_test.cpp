// A marker library's finished file as the merge takes it (src/atp/merge/finished_markers.h):
// the check and the copy read the file a block at a time, so lines across block boundaries,
// lines longer than a block, CRs and a last line without '\n' must come out as whole lines. A
// file that carries our finalize's receipt (atp/format/finished_receipt.h) is taken as it is.
#include "atp/merge/finished_markers.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <cstdint>
#include <string>

#include "atp/format/finished_receipt.h"
#include "atp_trace_support.h"

namespace perfmarker::atp {
namespace {

using namespace perfmarker::atp::testing;
using ::testing::HasSubstr;

// What the merge would copy from `text` (read back from the .atp the copy went to).
std::string copied(const TempDir& dir, const std::string& text) {
    const std::string path = dir.file("in.clperfmarker");
    writeFile(path, text);
    AtpFileWriter out;
    EXPECT_TRUE(out.open(dir.file("out.atp")));
    std::string error;
    EXPECT_TRUE(copyFinishedMarkerLines(path, out, error)) << error;
    EXPECT_TRUE(out.commit());
    return readFile(dir.file("out.atp"));
}

std::string beginLine(uint64_t i) {
    return "clBeginPerfMarker   frame" + std::to_string(i % 10) +
           "                                             " + std::to_string(1000 + i) +
           "             render";
}

TEST(FinishedMarkers, TheCopyKeepsEveryMarkerLineAndDropsTheRest) {
    TempDir dir;
    const std::string text =
        "=====Perfmarker Output=====\n"
        "\n"
        "ProfilerVersion=1.0\n"
        "7\n"
        "2\r\n"
        "clBeginPerfMarker   a                                                 5             g\r\n"
        "   \t \n"
        "  ProfilerVersion=x\n"
        "=====Perfmarker Output=====\n"
        "clEndPerfMarker     9";  // no '\n' at the end
    EXPECT_EQ(
        copied(dir, text),
        "7\n2\n"
        "clBeginPerfMarker   a                                                 5             g\n"
        "clEndPerfMarker     9\n");
}

// 30,000 lines (about 3 MB): lines cut by every block boundary come out whole, in order.
TEST(FinishedMarkers, LinesAcrossBlocksComeOutWhole) {
    TempDir dir;
    std::string text = "=====Perfmarker Output=====\n1\n30000\n";
    std::string expected = "1\n30000\n";
    for (uint64_t i = 0; i < 30000; ++i) {
        const std::string line = beginLine(i) + (i % 7 == 0 ? "\r\n" : "\n");
        text += line;
        expected += beginLine(i) + "\n";
    }
    EXPECT_EQ(copied(dir, text), expected);
}

// A line longer than the reader's block (1 MiB) grows the buffer rather than being cut.
TEST(FinishedMarkers, ALineLongerThanABlockStaysOneLine) {
    TempDir dir;
    const std::string group(3 << 20, 'g');
    const std::string line = "clBeginPerfMarker   long   1   " + group;
    const std::string text =
        "=====Perfmarker Output=====\n1\n2\n" + line + "\nclEndPerfMarker     2\n";
    EXPECT_EQ(copied(dir, text), "1\n2\n" + line + "\nclEndPerfMarker     2\n");
    FinishedMarkerFile file;
    std::string problem;
    EXPECT_TRUE(checkFinishedMarkerFile(dir.file("in.clperfmarker"), file, problem)) << problem;
    EXPECT_EQ(file.threads, 1u);
    EXPECT_FALSE(file.receipted);
}

TEST(FinishedMarkers, TheCheckCountsBlocksAndNamesTheBadLine) {
    TempDir dir;
    const std::string path = dir.file("in.clperfmarker");
    std::string text = "=====Perfmarker Output=====\n1\n20000\n";
    for (uint64_t i = 0; i < 10000; ++i) text += beginLine(i) + "\nclEndPerfMarker     5\n";
    // A last block shorter than its count, its last line without '\n'.
    writeFile(path, text + "2\n3\n" + beginLine(1) + "\nclEndPerfMarker     7");
    FinishedMarkerFile file;
    std::string problem;
    EXPECT_FALSE(checkFinishedMarkerFile(path, file, problem));
    EXPECT_THAT(problem, HasSubstr("in.clperfmarker:20008: thread 2 declares 3 marker lines but "
                                   "the section ends after 2"));
    // A malformed line far into the file (past the first block) is named by its number.
    writeFile(path, text + "2\n1\nnot a marker line\n");
    EXPECT_FALSE(checkFinishedMarkerFile(path, file, problem));
    EXPECT_THAT(problem, HasSubstr("in.clperfmarker:20006:"));
    writeFile(path, text + "2\n2\n" + beginLine(1) + "\nclEndPerfMarker     7");
    EXPECT_TRUE(checkFinishedMarkerFile(path, file, problem)) << problem;
    EXPECT_EQ(file.threads, 2u);
    EXPECT_FALSE(checkFinishedMarkerFile(dir.file("missing"), file, problem));
    EXPECT_THAT(problem, HasSubstr("cannot open"));
}

TEST(FinishedMarkers, AFileThatCannotBeReadIsAnError) {
    TempDir dir;
    AtpFileWriter out;
    ASSERT_TRUE(out.open(dir.file("out.atp")));
    std::string error;
    EXPECT_FALSE(copyFinishedMarkerLines(dir.file("missing"), out, error));
    EXPECT_THAT(error, HasSubstr("cannot open"));
    // A directory opens but cannot be read.
    EXPECT_FALSE(copyFinishedMarkerLines(dir.path(), out, error));
    EXPECT_THAT(error, HasSubstr("read error"));
    FinishedMarkerFile file;
    EXPECT_FALSE(checkFinishedMarkerFile(dir.path(), file, error));
    EXPECT_THAT(error, HasSubstr("read error"));
    out.abandon();
}

// ---- the receipt of a file our finalize wrote (atp/format/finished_receipt.h) ----------------

constexpr std::string_view kSection = "=====Perfmarker Output=====\n";

// Sets the receipt on `path` as finalize does: 0, or the errno.
int receipt(const std::string& path, uint64_t threads, uint64_t body) {
    const int fd = open(path.c_str(), O_RDONLY);
    if (fd < 0) return errno;
    const int err = writeFinishedReceipt(fd, threads, body);
    close(fd);
    return err;
}

// Skips a test where the temporary directory's filesystem keeps no user attributes.
#define SKIP_WITHOUT_USER_ATTRIBUTES(dir)                                                       \
    do {                                                                                        \
        writeFile((dir).file("probe"), "x");                                                    \
        if (const int err = receipt((dir).file("probe"), 0, 0); err == ENOTSUP || err == EPERM) \
            GTEST_SKIP() << "no user attributes in " << (dir).path();                           \
    } while (0)

// A matching receipt is trusted: the check reads no line (so even one the parser would reject
// passes), and the copy takes the thread blocks byte for byte. A file that is valid comes out
// the same through the receipt as through the line-by-line copy.
TEST(FinishedMarkers, AMatchingReceiptSkipsTheCheckAndCopiesTheBlocksAsTheyAre) {
    TempDir dir;
    SKIP_WITHOUT_USER_ATTRIBUTES(dir);
    std::string body = "7\n20000\n";
    for (uint64_t i = 0; i < 10000; ++i) body += beginLine(i) + "\nclEndPerfMarker     5\n";
    body += "9\n2\n" + beginLine(3) + "\nclEndPerfMarker     6\n";
    const std::string path = dir.file("in.clperfmarker");
    const std::string lineByLine = copied(dir, std::string(kSection) + body);
    EXPECT_EQ(lineByLine, body);
    ASSERT_EQ(receipt(path, 2, kSection.size()), 0);
    FinishedMarkerFile file;
    std::string problem;
    ASSERT_TRUE(checkFinishedMarkerFile(path, file, problem)) << problem;
    EXPECT_TRUE(file.receipted);
    EXPECT_EQ(file.threads, 2u);
    AtpFileWriter out;
    ASSERT_TRUE(out.open(dir.file("out.atp")));
    ASSERT_TRUE(out.write("before\n"));
    std::string error;
    ASSERT_TRUE(copyFinishedMarkerLines(path, out, error)) << error;
    ASSERT_TRUE(out.commit());
    EXPECT_TRUE(readFile(dir.file("out.atp")) == "before\n" + body);

    writeFile(path, std::string(kSection) + "1\n1\nnot a marker line\n");
    ASSERT_EQ(receipt(path, 1, kSection.size()), 0);
    EXPECT_TRUE(checkFinishedMarkerFile(path, file, problem)) << problem;
    EXPECT_TRUE(file.receipted);
}

// A file changed after its finalize (appended to, rewritten, its time set) no longer matches its
// receipt and is checked line by line; so is one whose receipt is malformed.
TEST(FinishedMarkers, AReceiptThatNoLongerMatchesIsIgnored) {
    TempDir dir;
    SKIP_WITHOUT_USER_ATTRIBUTES(dir);
    const std::string path = dir.file("in.clperfmarker");
    const std::string valid =
        std::string(kSection) + "1\n2\n" + beginLine(1) + "\nclEndPerfMarker     7\n";
    FinishedMarkerFile file;
    std::string problem;

    writeFile(path, valid);
    ASSERT_EQ(receipt(path, 1, kSection.size()), 0);
    {
        const int fd = open(path.c_str(), O_WRONLY | O_APPEND);
        ASSERT_GE(fd, 0);
        ASSERT_EQ(write(fd, "2\n1\nbad\n", 8), 8);
        close(fd);
    }
    EXPECT_FALSE(checkFinishedMarkerFile(path, file, problem));
    EXPECT_THAT(problem, HasSubstr("in.clperfmarker:8:"));

    // The same size, another modification time.
    writeFile(path, valid);
    ASSERT_EQ(receipt(path, 5, kSection.size()), 0);
    const timespec times[2] = {{0, UTIME_OMIT}, {1000000000, 5}};
    ASSERT_EQ(utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
    ASSERT_TRUE(checkFinishedMarkerFile(path, file, problem)) << problem;
    EXPECT_FALSE(file.receipted);
    EXPECT_EQ(file.threads, 1u);  // counted, not the receipt's 5

    // Malformed receipts, each set on a file they would otherwise match.
    writeFile(path, valid);
    struct stat st {};
    ASSERT_EQ(stat(path.c_str(), &st), 0);
    const std::string fields = std::to_string(st.st_size) + " " +
                               std::to_string(st.st_mtim.tv_sec) + " " +
                               std::to_string(st.st_mtim.tv_nsec);
    for (const std::string& text :
         {"2 " + fields + " 1 28", "1 " + fields + " 1", "1 " + fields + " 1 28 extra",
          "1 " + fields + " 1 " + std::to_string(st.st_size + 1), std::string("garbage"),
          std::string()}) {
        SCOPED_TRACE("receipt '" + text + "'");
        ASSERT_EQ(setxattr(path.c_str(), kFinishedReceiptName, text.data(), text.size(), 0), 0);
        ASSERT_TRUE(checkFinishedMarkerFile(path, file, problem)) << problem;
        EXPECT_FALSE(file.receipted);
    }
    // The well-formed one, to show the fields above were otherwise right.
    const std::string good = "1 " + fields + " 1 28";
    ASSERT_EQ(setxattr(path.c_str(), kFinishedReceiptName, good.data(), good.size(), 0), 0);
    ASSERT_TRUE(checkFinishedMarkerFile(path, file, problem)) << problem;
    EXPECT_TRUE(file.receipted);
}

// A receipt is only written for a file that can hold one and a body inside the file.
TEST(FinishedMarkers, AReceiptNeedsAFileThatCanHoldIt) {
    TempDir dir;
    writeFile(dir.file("in"), std::string(kSection));
    EXPECT_EQ(receipt(dir.file("in"), 0, kSection.size() + 1), EINVAL);
    int pipeFds[2];
    ASSERT_EQ(pipe(pipeFds), 0);
    EXPECT_NE(writeFinishedReceipt(pipeFds[0], 0, 0), 0);
    FinishedReceipt read;
    EXPECT_FALSE(readFinishedReceipt(pipeFds[0], read));
    close(pipeFds[0]);
    close(pipeFds[1]);
    EXPECT_EQ(writeFinishedReceipt(-1, 0, 0), EBADF);
}

}  // namespace
}  // namespace perfmarker::atp
