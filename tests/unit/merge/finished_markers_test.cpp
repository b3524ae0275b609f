// A marker library's finished file as the merge takes it (src/atp/merge/finished_markers.h):
// the check and the copy read the file a block at a time, so lines across block boundaries,
// lines longer than a block, CRs and a last line without '\n' must come out as whole lines.
#include "atp/merge/finished_markers.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

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
    uint64_t threads = 0;
    std::string problem;
    EXPECT_TRUE(checkFinishedMarkerFile(dir.file("in.clperfmarker"), threads, problem)) << problem;
    EXPECT_EQ(threads, 1u);
}

TEST(FinishedMarkers, TheCheckCountsBlocksAndNamesTheBadLine) {
    TempDir dir;
    const std::string path = dir.file("in.clperfmarker");
    std::string text = "=====Perfmarker Output=====\n1\n20000\n";
    for (uint64_t i = 0; i < 10000; ++i) text += beginLine(i) + "\nclEndPerfMarker     5\n";
    // A last block shorter than its count, its last line without '\n'.
    writeFile(path, text + "2\n3\n" + beginLine(1) + "\nclEndPerfMarker     7");
    uint64_t threads = 0;
    std::string problem;
    EXPECT_FALSE(checkFinishedMarkerFile(path, threads, problem));
    EXPECT_THAT(problem, HasSubstr("in.clperfmarker:20008: thread 2 declares 3 marker lines but "
                                   "the section ends after 2"));
    // A malformed line far into the file (past the first block) is named by its number.
    writeFile(path, text + "2\n1\nnot a marker line\n");
    EXPECT_FALSE(checkFinishedMarkerFile(path, threads, problem));
    EXPECT_THAT(problem, HasSubstr("in.clperfmarker:20006:"));
    writeFile(path, text + "2\n2\n" + beginLine(1) + "\nclEndPerfMarker     7");
    EXPECT_TRUE(checkFinishedMarkerFile(path, threads, problem)) << problem;
    EXPECT_EQ(threads, 2u);
    EXPECT_FALSE(checkFinishedMarkerFile(dir.file("missing"), threads, problem));
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
    uint64_t threads = 0;
    EXPECT_FALSE(checkFinishedMarkerFile(dir.path(), threads, error));
    EXPECT_THAT(error, HasSubstr("read error"));
    out.abandon();
}

}  // namespace
}  // namespace perfmarker::atp
