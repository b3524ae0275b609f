// How the OTF2 archive and the SQLite database are put in place (src/export/db/db_output.h):
// existing outputs refused unless replaced, what may be replaced, temporary names removed on
// failure, a replaced archive swapped whole; the progress line of a long export
// (export_progress.h) and the message with the counts.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>

#include "export/db/db_output.h"
#include "export/db/export_progress.h"
#include "export_db_test_support.h"

namespace perfmarker::exporter::db::test {
namespace {

namespace fs = std::filesystem;

TEST(DbOutput, WhatMayBeWritten) {
    Scratch scratch;
    std::string error;
    EXPECT_TRUE(mayWriteFile(scratch.file("new.db"), false, error));
    writeText(scratch.file("old.db"), "x");
    EXPECT_FALSE(mayWriteFile(scratch.file("old.db"), false, error));
    EXPECT_EQ(error, scratch.file("old.db") + ": exists; give --force to replace it");
    EXPECT_TRUE(mayWriteFile(scratch.file("old.db"), true, error));
    EXPECT_FALSE(mayWriteFile(scratch.path(), true, error));  // a directory
    EXPECT_NE(error.find("not a regular file"), std::string::npos);

    EXPECT_TRUE(mayWriteArchive(scratch.file("new"), false, error));
    fs::create_directory(scratch.file("empty"));
    EXPECT_FALSE(mayWriteArchive(scratch.file("empty"), false, error));
    EXPECT_TRUE(mayWriteArchive(scratch.file("empty/"), true, error));
    fs::create_directory(scratch.file("archive"));
    writeText(scratch.file("archive/traces.otf2"), "anchor");
    EXPECT_TRUE(mayWriteArchive(scratch.file("archive"), true, error));
    EXPECT_FALSE(mayWriteArchive(scratch.file("old.db"), true, error));  // a file
    EXPECT_NE(error.find("not an OTF2 archive"), std::string::npos);
}

TEST(DbOutput, StagedFileGoesInPlaceOnlyAtCommit) {
    Scratch scratch;
    const std::string target = scratch.file("run.db");
    StagedFile file;
    std::string error;
    ASSERT_TRUE(file.create(target, false, error)) << error;
    EXPECT_NE(file.path(), target);
    writeText(file.path(), "database");
    EXPECT_FALSE(fs::exists(target));
    ASSERT_TRUE(file.commit(error)) << error;
    EXPECT_EQ(readText(target), "database");
    EXPECT_EQ(scratch.entries(), std::vector<std::string>{"run.db"});

    StagedFile replacing;
    ASSERT_TRUE(replacing.create(target, true, error)) << error;
    writeText(replacing.path(), "newer");
    ASSERT_TRUE(replacing.commit(error)) << error;
    EXPECT_EQ(readText(target), "newer");
    EXPECT_EQ(scratch.entries(), std::vector<std::string>{"run.db"});
}

TEST(DbOutput, StagedDirectoryReplacesAnArchiveWhole) {
    Scratch scratch;
    const std::string target = scratch.file("archive");
    fs::create_directory(target);
    writeText(target + "/traces.otf2", "old anchor");
    writeText(target + "/stale.def", "old");
    std::string error;
    StagedDirectory refused;
    EXPECT_FALSE(refused.create(target, false, error));

    StagedDirectory dir;
    ASSERT_TRUE(dir.create(target + "/", true, error)) << error;
    EXPECT_EQ(dir.target(), target);
    struct stat status {};
    ASSERT_EQ(::stat(dir.path().c_str(), &status), 0);
    EXPECT_NE(status.st_mode & 0055, 0u);  // not private like a mkdtemp directory (umask 022)
    writeText(dir.path() + "/traces.otf2", "new anchor");
    ASSERT_TRUE(dir.commit(error)) << error;
    EXPECT_EQ(readText(target + "/traces.otf2"), "new anchor");
    EXPECT_FALSE(fs::exists(target + "/stale.def"));  // nothing of the old archive is left
    EXPECT_EQ(scratch.entries(), std::vector<std::string>{"archive"});
}

TEST(DbOutput, StagedDirectoryDiscardedLeavesNothing) {
    Scratch scratch;
    std::string error;
    {
        StagedDirectory dir;
        ASSERT_TRUE(dir.create(scratch.file("archive"), false, error)) << error;
        writeText(dir.path() + "/traces.otf2", "anchor");
    }  // neither committed nor discarded: the destructor removes it
    EXPECT_TRUE(scratch.entries().empty());
    StagedDirectory dir;
    ASSERT_TRUE(dir.create(scratch.file("archive"), false, error)) << error;
    fs::create_directory(scratch.file("archive"));
    writeText(scratch.file("archive/mine.txt"), "appeared meanwhile");
    EXPECT_FALSE(dir.commit(error));
    EXPECT_NE(error.find("exists"), std::string::npos) << error;
    EXPECT_EQ(scratch.entries(), std::vector<std::string>{"archive"});
    EXPECT_EQ(readText(scratch.file("archive/mine.txt")), "appeared meanwhile");
}

TEST(DbOutput, CountsMessage) {
    ExportCounts counts;
    counts.processes = 2;
    counts.apiCalls = 19;
    counts.commands = 7;
    counts.markers = 4;
    EXPECT_EQ(describeCounts(counts), "19 API calls, 7 device commands, 4 markers of 2 processes");
    counts.processes = 1;
    counts.commandsLeftOut = 2;
    counts.callsLeftOut = 1;
    EXPECT_EQ(describeCounts(counts),
              "19 API calls, 7 device commands, 4 markers of 1 process; left out: 1 API calls "
              "without usable host times, 2 device commands without usable device times");
}

// The progress line's text, written to a temporary file.
class ProgressOutput {
public:
    ProgressOutput() : m_file(std::tmpfile()) {}
    ~ProgressOutput() { std::fclose(m_file); }
    std::FILE* file() { return m_file; }
    std::string text() {
        std::fflush(m_file);
        std::rewind(m_file);
        std::string out;
        for (int c = std::fgetc(m_file); c != EOF; c = std::fgetc(m_file)) {
            out.push_back(static_cast<char>(c));
        }
        return out;
    }

private:
    std::FILE* m_file;
};

void feed(ExportProgress& progress, const std::string& file, uint64_t records) {
    progress.onFileBegin(file);
    atp::MarkerEvent marker;
    for (uint64_t i = 0; i < records; ++i) progress.onMarker(marker);
}

TEST(ExportProgress, QuietDuringTheFirstSecond) {
    ProgressOutput out;
    ExportProgress progress({1 << 20}, out.file(), false);
    feed(progress, "run.atp", 100000);
    progress.step("writing", 1, 1);
    progress.finish();
    EXPECT_EQ(out.text(), "");
    EXPECT_EQ(progress.records(), 100000u);
}

TEST(ExportProgress, LinesInALog) {
    ProgressOutput out;
    ExportProgress::Timing now;
    now.delay = now.terminalEvery = now.logEvery = std::chrono::milliseconds(0);
    ExportProgress progress({1 << 20, 3 << 20}, out.file(), false, now);
    feed(progress, "a.atp", 5000);
    feed(progress, "b.atp", 0);
    progress.step("writing the OTF2 events of b.atp", 1, 2);
    progress.step("writing the OTF2 events of b.atp", 2, 2);
    progress.finish();
    EXPECT_EQ(out.text(),
              "perfmarker export: reading trace 1 of 2 (a.atp, 1.0 MiB): 0 records\n"
              "perfmarker export: reading trace 1 of 2 (a.atp, 1.0 MiB): 4.1 k records\n"
              "perfmarker export: reading trace 2 of 2 (b.atp, 3.0 MiB): 5.0 k records\n"
              "perfmarker export: writing the OTF2 events of b.atp: 50%\n"
              "perfmarker export: writing the OTF2 events of b.atp: 100%\n");
}

TEST(ExportProgress, RedrawnInPlaceOnATerminal) {
    ProgressOutput out;
    ExportProgress::Timing now;
    now.delay = now.terminalEvery = now.logEvery = std::chrono::milliseconds(0);
    ExportProgress progress({10}, out.file(), true, now);
    feed(progress, "long-name.atp", 0);
    progress.step("done", 1, 1);
    progress.finish();
    const std::string first =
        "perfmarker export: reading trace 1 (long-name.atp, 0.0 MiB): 0 records";
    const std::string second = "perfmarker export: done: 100%";
    EXPECT_EQ(out.text(),
              "\r" + first + "\r" + second + std::string(first.size() - second.size(), ' ') + "\n");
}

TEST(ExportProgress, SilentWithoutAnOutput) {
    ExportProgress::Timing now;
    now.delay = now.terminalEvery = now.logEvery = std::chrono::milliseconds(0);
    ExportProgress progress({10}, nullptr, true, now);
    feed(progress, "a.atp", 10000);
    progress.step("writing", 1, 1);
    EXPECT_EQ(progress.linesShown(), 0u);
}

}  // namespace
}  // namespace perfmarker::exporter::db::test
