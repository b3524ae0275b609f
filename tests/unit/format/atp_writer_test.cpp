// The .atp header, section markers, timestamp-line layout and the file writer's error handling
// (src/atp/format/atp_header.h, ocl_timestamp.h, atp_file_writer.h).
#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>

#include "atp/format/atp_file_writer.h"
#include "atp/format/atp_header.h"
#include "atp/format/safe_files.h"
#include "atp/format/timestamp_fields.h"
#include "atp_trace_support.h"
#include "file_size_limit.h"

namespace perfmarker::atp {
namespace {

using namespace perfmarker::atp::testing;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

std::vector<std::string> linesOf(const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
}

TEST(AtpHeader, LinesInTheDocumentedOrder) {
    AtpHeader h;
    h.application = "/opt/app/bin/vecadd";
    h.applicationArgs = {"--size", "1024", " "};
    h.workingDirectory = "/work dir";
    h.fullEnvironment = true;
    h.envVars = {{"ZED", "1"}, {"ALPHA", "a=b"}};
    h.osVersion = "Linux Build 6.1.0";
    h.displayName = "Session 1";
    h.clExcludedApis = {"clGetEventInfo", "clFinish", "clFinish"};
    EXPECT_THAT(
        linesOf(formatAtpHeader(h)),
        ElementsAre("TraceFileVersion=3.2", "ProfilerVersion=" + std::string(profilerVersion()),
                    "Application=/opt/app/bin/vecadd", "ApplicationArgs=--size 1024",
                    "WorkingDirectory=/work dir", "FullEnvironment=1", "EnvVar=ALPHA=a=b",
                    "EnvVar=ZED=1", "UserTimer=False", "OS Version=Linux Build 6.1.0",
                    "DisplayName=Session 1", "ClockDomain=CLOCK_MONOTONIC",
                    "CLExcludedAPIs=clFinish,clGetEventInfo"));
}

TEST(AtpHeader, OptionalLinesAndDefaults) {
    AtpHeader h;
    h.applicationArgs = {"a\nb"};  // a line break would end the header line early
    const std::vector<std::string> lines = linesOf(formatAtpHeader(h));
    ASSERT_EQ(lines.size(), 10u);
    EXPECT_EQ(lines[3], "ApplicationArgs=a b");
    EXPECT_EQ(lines[5], "UserTimer=False");
    EXPECT_THAT(lines[6], StartsWith("OS Version=Linux Build "));
    EXPECT_EQ(lines[9], "CLExcludedAPIs=");
    EXPECT_THAT(std::string(profilerVersion()),
                ::testing::MatchesRegex("[0-9]+\\.[0-9]+\\.[0-9]+"));
}

TEST(AtpSections, NamesAndLegacySpellings) {
    EXPECT_EQ(sectionLine(SectionKind::OclApiTrace), "=====ocl API Trace Output=====\n");
    EXPECT_EQ(sectionLine(SectionKind::OclTimestamp), "=====ocl Timestamp Output=====\n");
    EXPECT_EQ(sectionLine(SectionKind::Perfmarker), "=====Perfmarker Output=====\n");
    EXPECT_EQ(sectionKindOf("CodeXL ocl API Trace Output"), SectionKind::OclApiTrace);
    EXPECT_EQ(sectionKindOf("AMD CodeXL ocl Timestamp Output"), SectionKind::OclTimestamp);
    EXPECT_EQ(sectionKindOf("CodeXL hsa Kernel Timestamp Output"), SectionKind::HsaKernelTimestamp);
    EXPECT_EQ(sectionKindOf("OpenCL Perfmarker Output"), SectionKind::Perfmarker);
    EXPECT_EQ(sectionKindOf("CodeXL Perfmarker Output"), SectionKind::Perfmarker);
    EXPECT_EQ(sectionKindOf("AMD APP Profiler Trace Output"), SectionKind::OclApiTrace);
    EXPECT_EQ(sectionKindOf("AMD APP Profiler Timestamp Output"), SectionKind::OclTimestamp);
    EXPECT_EQ(sectionKindOf("something else"), SectionKind::Unknown);
    std::string_view name;
    EXPECT_TRUE(parseSectionLine("=====ocl API Trace Output=====\r", name));
    EXPECT_EQ(name, "ocl API Trace Output");
    EXPECT_FALSE(parseSectionLine("==========", name));
    EXPECT_FALSE(parseSectionLine("=====open", name));
}

TEST(OclTimestampLineFormat, RoundTripsEveryTail) {
    OclTimestampLine line;
    line.apiType = 66;
    line.apiName = "clEnqueueNDRangeKernel";
    line.start = 1;
    line.end = 2;
    line.hasDevice = true;
    line.commandType = kClCommandNdrangeKernel;
    line.commandName = "CL_COMMAND_NDRANGE_KERNEL";
    line.queued = 3, line.submit = 4, line.deviceStart = 5, line.deviceEnd = 6;
    line.queueId = 7, line.queueHandle = "0x10", line.contextId = 8, line.contextHandle = "0x20";
    line.deviceName = "a_very_long_device_name_that_overflows_its_field";
    line.tail = OclTimestampLine::Tail::Kernel;
    line.kernelHandle = "0x30", line.kernelName = "k", line.globalSize = "{8,8}";
    line.localSize = "{NULL}";
    std::string text;
    appendOclTimestampLine(text, line);
    // Never cut, and one space after it: the original's setw ran it into the kernel handle, one
    // token fewer, a line no reader can split (docs/format.md#conventions).
    EXPECT_THAT(text, HasSubstr("overflows_its_field 0x30"));
    std::vector<std::string_view> fields;
    splitFields(text, fields);
    OclTimestampLine back;
    std::string error;
    ASSERT_TRUE(parseOclTimestampFields(fields, back, error)) << error;
    EXPECT_EQ(back.deviceName, line.deviceName);
    EXPECT_EQ(back.kernelHandle, "0x30");
    // A value exactly as wide as its field (30 bytes here) gets the space too.
    line.deviceName = std::string(30, 'd');
    text.clear();
    appendOclTimestampLine(text, line);
    EXPECT_THAT(text, HasSubstr(std::string(30, 'd') + " 0x30"));
    splitFields(text, fields);
    ASSERT_TRUE(parseOclTimestampFields(fields, back, error)) << error;
    EXPECT_EQ(back.deviceName, line.deviceName);
    // So does an API id of five digits or more (only a damaged record has one).
    line.apiType = 123456;
    text.clear();
    appendOclTimestampLine(text, line);
    EXPECT_EQ(text.rfind("123456 clEnqueueNDRangeKernel", 0), 0u) << text;
    splitFields(text, fields);
    ASSERT_TRUE(parseOclTimestampFields(fields, back, error)) << error;
    EXPECT_EQ(back.apiType, 123456);
    line.apiType = 66;
    line.deviceName = "gfx900";
    text.clear();
    appendOclTimestampLine(text, line);
    splitFields(text, fields);
    ASSERT_TRUE(parseOclTimestampFields(fields, back, error)) << error;
    EXPECT_EQ(back.kernelName, "k");
    EXPECT_EQ(back.localSize, "{NULL}");
    EXPECT_EQ(back.deviceEnd, 6u);

    line.commandType = 0x11F3;
    line.tail = OclTimestampLine::Tail::DataSize;
    line.dataSize = 4096;
    text.clear();
    appendOclTimestampLine(text, line);
    EXPECT_THAT(text, ::testing::EndsWith("gfx900" + std::string(24, ' ') + "4096" +
                                          std::string(16, ' ') + "\n"));
    splitFields(text, fields);
    ASSERT_TRUE(parseOclTimestampFields(fields, back, error)) << error;
    EXPECT_EQ(back.tail, OclTimestampLine::Tail::DataSize);
    EXPECT_EQ(back.dataSize, 4096u);
}

// The exact bytes of docs/format.md#timestamp-lines, appended after text already there: fields
// padded to their widths, a value that fills its field followed by one space.
TEST(OclTimestampLineFormat, WritesExactWidthsAfterExistingText) {
    OclTimestampLine line;
    line.apiType = 54;
    line.apiName = "clSetKernelArg";
    line.start = 18629539677140;
    line.end = 18629539678292;
    std::string text = "before\n";
    appendOclTimestampLine(text, line);
    EXPECT_EQ(text, "before\n54   clSetKernelArg" + std::string(31, ' ') + "18629539677140" +
                        std::string(7, ' ') + "18629539678292" + std::string(7, ' ') + "\n");

    line.apiType = -1;
    line.apiName = std::string(50, 'n');
    line.start = UINT64_MAX;
    line.end = 0;
    text.clear();
    appendOclTimestampLine(text, line);
    EXPECT_EQ(text, "-1   " + std::string(50, 'n') + " 18446744073709551615 0" +
                        std::string(20, ' ') + "\n");

    line.apiType = 71;
    line.apiName = "clEnqueueNativeKernel";
    line.start = 1;
    line.end = 2;
    line.hasDevice = true;
    line.commandType = 0x11F2;
    line.commandName = "CL_COMMAND_NATIVE_KERNEL";
    line.queued = 3, line.submit = 4, line.deviceStart = 5, line.deviceEnd = 6;
    line.queueId = 0, line.queueHandle = "0x10", line.contextId = 1, line.contextHandle = "0x20";
    line.deviceName = "CPU_Device";
    line.tail = OclTimestampLine::Tail::NativeKernel;
    line.kernelHandle = "0x40";
    text.clear();
    appendOclTimestampLine(text, line);
    const auto pad = [](std::string s, size_t width) { return s.append(width - s.size(), ' '); };
    std::string expected = pad("71", 5) + pad("clEnqueueNativeKernel", 45) + pad("1", 21) +
                           pad("2", 21) + pad("4594", 8) + pad("CL_COMMAND_NATIVE_KERNEL", 40);
    for (const char* t : {"3", "4", "5", "6"}) expected += pad(t, 21);
    expected += pad("0", 10) + pad("0x10", 25) + pad("1", 10) + pad("0x20", 25) +
                pad("CPU_Device", 30) + pad("0x40", 25) + "\n";
    EXPECT_EQ(text, expected);
}

TEST(OclTimestampLineFormat, FieldErrorsNameTheField) {
    std::vector<std::string_view> fields;
    OclTimestampLine out;
    std::string error;
    splitFields("66 clFoo 12x 13", fields);
    EXPECT_FALSE(parseOclTimestampFields(fields, out, error));
    EXPECT_THAT(error, HasSubstr("the start time"));
    EXPECT_THAT(error, HasSubstr("field 3"));
    splitFields("66 clFoo 12", fields);
    EXPECT_FALSE(parseOclTimestampFields(fields, out, error));
    EXPECT_THAT(error, HasSubstr("got 3 fields"));
    splitFields("66 clFoo 12 13 4592 CL_COMMAND_NDRANGE_KERNEL 1 2 3", fields);
    EXPECT_FALSE(parseOclTimestampFields(fields, out, error));
    EXPECT_THAT(error, HasSubstr("at least 15 fields"));
}

TEST(AtpFileWriter, WritesThroughATemporaryName) {
    TempDir dir;
    const std::string path = dir.file("out.atp");
    AtpFileWriter w;
    ASSERT_TRUE(w.open(path)) << w.error();
    EXPECT_FALSE(fs::exists(path));
    const std::string big(3 << 20, 'x');  // larger than the buffer
    ASSERT_TRUE(w.write("hello\n"));
    ASSERT_TRUE(w.write(big));
    ASSERT_TRUE(w.commit()) << w.error();
    EXPECT_EQ(readFile(path), "hello\n" + big);
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

TEST(AtpFileWriter, AbandonedWriteLeavesNothing) {
    TempDir dir;
    {
        AtpFileWriter w;
        ASSERT_TRUE(w.open(dir.file("out.atp")));
        ASSERT_TRUE(w.write("partial"));
    }
    EXPECT_TRUE(fs::is_empty(dir.path()));
}

TEST(AtpFileWriter, MissingDirectoryIsReportedWithThePath) {
    TempDir dir;
    AtpFileWriter w;
    const std::string path = dir.file("no/such/dir/out.atp");
    EXPECT_FALSE(w.open(path));
    EXPECT_THAT(w.error(), HasSubstr(path));
    EXPECT_THAT(w.error(), HasSubstr("No such file or directory"));
    EXPECT_FALSE(w.write("x"));
    EXPECT_FALSE(w.commit());
}

TEST(AtpFileWriter, ParentThatIsAFileIsReported) {
    TempDir dir;
    writeFile(dir.file("plain"), "x");
    AtpFileWriter w;
    EXPECT_FALSE(w.open(dir.file("plain/out.atp")));
    EXPECT_THAT(w.error(), HasSubstr("Not a directory"));
}

TEST(AtpFileWriter, RenameOntoADirectoryFails) {
    TempDir dir;
    fs::create_directory(dir.file("taken.atp"));
    fs::create_directory(dir.file("taken.atp/inside"));
    AtpFileWriter w;
    ASSERT_TRUE(w.open(dir.file("taken.atp")));
    ASSERT_TRUE(w.write("x"));
    EXPECT_FALSE(w.commit());
    EXPECT_THAT(w.error(), HasSubstr("cannot rename"));
    EXPECT_THAT(w.error(), HasSubstr(dir.file("taken.atp")));
    // Only the directory is left: the temporary file was removed.
    EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
}

using perfmarker::test::FileSizeLimit;

TEST(AtpFileWriter, FailedWriteIsReportedNotDropped) {
    TempDir dir;
    AtpFileWriter w;
    bool opened = false;
    bool committed = false;
    {
        FileSizeLimit limit(64 * 1024);
        ASSERT_TRUE(limit.set());
        opened = w.open(dir.file("out.atp"));
        bool wrote = opened;
        for (int i = 0; i < 4 && wrote; ++i) wrote = w.write(std::string(1 << 20, 'y'));
        committed = wrote && w.commit();
    }
    ASSERT_TRUE(opened);
    EXPECT_FALSE(committed);
    EXPECT_THAT(w.error(), HasSubstr("cannot write " + dir.file("out.atp")));
    EXPECT_THAT(w.error(), HasSubstr("File too large"));
    EXPECT_TRUE(fs::is_empty(dir.path()));
}

// Creates `path` empty and opens it for reading only: writes to it fail with EBADF.
int emptyReadOnlyFile(const std::string& path) {
    const int created = createNewFile(path, 0600);
    if (created < 0) return -1;
    close(created);
    return open(path.c_str(), O_RDONLY);
}

// Large writes reserve their blocks first (on ext4, where the temporary directory usually is):
// the file still holds exactly the bytes written, in order, and nothing after them.
TEST(AppendAll, LeavesExactlyTheBytesWritten) {
    TempDir dir;
    const int fd = createNewFile(dir.file("out"), 0600);
    ASSERT_GE(fd, 0);
    std::string expected;
    uint64_t offset = 0;
    for (const size_t size : {size_t{3} << 20, size_t{100}, size_t{64} << 10, size_t{1} << 20}) {
        std::string piece(size, '\0');
        for (size_t i = 0; i < size; ++i) piece[i] = static_cast<char>('a' + (offset + i) % 23);
        ASSERT_EQ(appendAll(fd, offset, piece.data(), piece.size()), 0);
        offset += size;
        expected += piece;
    }
    ASSERT_EQ(close(fd), 0);
    const std::string written = readFile(dir.file("out"));
    EXPECT_EQ(written.size(), expected.size());
    EXPECT_TRUE(written == expected);
}

// Pieces below, at and above the batch size, in an order that fills, overflows and bypasses the
// buffer: the file holds them all in order once flushed, and size() counted every byte.
TEST(BatchedWrites, WritesEveryPieceInOrder) {
    TempDir dir;
    const int fd = createNewFile(dir.file("out"), 0600);
    ASSERT_GE(fd, 0);
    BatchedWrites writes(fd);
    std::string expected;
    char letter = 'a';
    for (const size_t size : {size_t{10}, (size_t{1} << 20) - 5, size_t{7}, size_t{1} << 20,
                              size_t{3} << 20, size_t{1}, size_t{0}, (size_t{1} << 20) + 1}) {
        const std::string piece(size, letter++);
        ASSERT_EQ(writes.write(piece), 0);
        expected += piece;
        EXPECT_EQ(writes.size(), expected.size());
    }
    ASSERT_EQ(writes.flush(), 0);
    ASSERT_EQ(close(fd), 0);
    const std::string written = readFile(dir.file("out"));
    EXPECT_EQ(written.size(), expected.size());
    EXPECT_TRUE(written == expected);
}

TEST(BatchedWrites, ReturnsTheErrnoOfTheFailedWrite) {
    TempDir dir;
    const int readOnly = emptyReadOnlyFile(dir.file("out"));
    ASSERT_GE(readOnly, 0);
    BatchedWrites writes(readOnly);
    EXPECT_EQ(writes.write("buffered"), 0);  // nothing written yet
    EXPECT_EQ(writes.flush(), EBADF);
    EXPECT_EQ(writes.write(std::string(size_t{2} << 20, 'x')), EBADF);  // flushes first
    close(readOnly);
}

TEST(AppendAll, ReturnsTheErrnoOfTheFailedWrite) {
    TempDir dir;
    const int readOnly = emptyReadOnlyFile(dir.file("out"));
    ASSERT_GE(readOnly, 0);
    const std::string big(size_t{1} << 20, 'x');
    EXPECT_EQ(appendAll(readOnly, 0, big.data(), 10), EBADF);
    EXPECT_EQ(appendAll(readOnly, 0, big.data(), big.size()), EBADF);  // the reserving path
    close(readOnly);
    struct stat st {};
    ASSERT_EQ(stat(dir.file("out").c_str(), &st), 0);
    EXPECT_EQ(st.st_size, 0);
}

// Past a file-size limit the reservation fails as well and the write reports the limit.
TEST(AppendAll, ReportsAFileSizeLimit) {
    TempDir dir;
    const int fd = createNewFile(dir.file("out"), 0600);
    ASSERT_GE(fd, 0);
    constexpr rlim_t kLimit = 64 * 1024;
    const std::string big(size_t{1} << 20, 'x');
    int first = 0;
    int second = 0;
    {
        FileSizeLimit limit(kLimit);
        ASSERT_TRUE(limit.set());
        first = appendAll(fd, 0, big.data(), big.size());
        second = appendAll(fd, kLimit, big.data(), big.size());
    }
    close(fd);
    // The first write stops at the limit (a short write), the next one finds no room at all.
    EXPECT_EQ(first, EFBIG);
    EXPECT_EQ(second, EFBIG);
    struct stat st {};
    ASSERT_EQ(stat(dir.file("out").c_str(), &st), 0);
    EXPECT_EQ(st.st_size, static_cast<off_t>(kLimit));
}

// A file of `size` bytes whose byte i is 'a' + i % 23.
std::string patterned(size_t size) {
    std::string bytes(size, '\0');
    for (size_t i = 0; i < size; ++i) bytes[i] = static_cast<char>('a' + i % 23);
    return bytes;
}

// A range of another file lands after what was buffered, and size() counts it; a range the
// source does not hold is ENODATA, and nothing is copied past the source's end.
TEST(BatchedWrites, CopiesARangeOfAnotherFileAfterTheBufferedBytes) {
    TempDir dir;
    const std::string source = patterned((size_t{3} << 20) + 77);
    writeFile(dir.file("in"), source);
    const int in = open(dir.file("in").c_str(), O_RDONLY);
    ASSERT_GE(in, 0);
    const int fd = createNewFile(dir.file("out"), 0600);
    ASSERT_GE(fd, 0);
    BatchedWrites writes(fd);
    ASSERT_EQ(writes.write("head\n"), 0);
    ASSERT_EQ(writes.copyFrom(in, 5, source.size() - 5), 0);
    EXPECT_EQ(writes.size(), source.size());
    ASSERT_EQ(writes.write("tail\n"), 0);
    EXPECT_EQ(writes.copyFrom(in, source.size() - 3, 10), ENODATA);
    ASSERT_EQ(writes.flush(), 0);
    close(in);
    ASSERT_EQ(close(fd), 0);
    const std::string written = readFile(dir.file("out"));
    const std::string expected =
        "head\n" + source.substr(5) + "tail\n" + source.substr(source.size() - 3);
    EXPECT_EQ(written.size(), expected.size());
    EXPECT_TRUE(written == expected);
}

// AtpFileWriter copies in pieces (the disk's writeback starts behind each one): a range of
// several pieces, not a multiple of one, after text still buffered, lands whole and in order.
TEST(AtpFileWriter, CopiesALargeRangeInPieces) {
    TempDir dir;
    const std::string source = patterned((size_t{21} << 20) + 333);
    writeFile(dir.file("in"), source);
    const int in = open(dir.file("in").c_str(), O_RDONLY);
    ASSERT_GE(in, 0);
    AtpFileWriter w;
    ASSERT_TRUE(w.open(dir.file("out.atp")));
    ASSERT_TRUE(w.write("header\n"));
    ASSERT_TRUE(w.copyFrom(in, dir.file("in"), 3, source.size() - 3)) << w.error();
    ASSERT_TRUE(w.write(std::string(size_t{9} << 20, 'z')));  // past a writeback step by writes
    EXPECT_EQ(w.bytesWritten(), 7 + source.size() - 3 + (size_t{9} << 20));
    ASSERT_TRUE(w.commit()) << w.error();
    close(in);
    const std::string written = readFile(dir.file("out.atp"));
    const std::string expected = "header\n" + source.substr(3) + std::string(size_t{9} << 20, 'z');
    EXPECT_EQ(written.size(), expected.size());
    EXPECT_TRUE(written == expected);
}

// Where the kernel cannot copy between the two files (another filesystem, here /dev/shm), the
// bytes go through the process and come out the same.
TEST(BatchedWrites, CopiesAcrossFilesystems) {
    struct stat shm {};
    struct stat tmp {};
    TempDir dir;
    if (stat("/dev/shm", &shm) != 0 || stat(dir.path().c_str(), &tmp) != 0 ||
        shm.st_dev == tmp.st_dev) {
        GTEST_SKIP() << "no /dev/shm on another filesystem than " << dir.path();
    }
    const std::string inPath = "/dev/shm/perfmarker-copy-" + std::to_string(getpid());
    const std::string source = patterned((size_t{2} << 20) + 5);
    writeFile(inPath, source);
    const int in = open(inPath.c_str(), O_RDONLY);
    unlink(inPath.c_str());
    ASSERT_GE(in, 0);
    const int fd = createNewFile(dir.file("out"), 0600);
    ASSERT_GE(fd, 0);
    BatchedWrites writes(fd);
    EXPECT_EQ(writes.copyFrom(in, 1, source.size() - 1), 0);
    EXPECT_EQ(writes.copyFrom(in, source.size(), 1), ENODATA);
    close(in);
    ASSERT_EQ(close(fd), 0);
    const std::string written = readFile(dir.file("out"));
    EXPECT_EQ(written.size(), source.size() - 1);
    EXPECT_TRUE(written == source.substr(1));
}

// A source that cannot be read from an offset, or a target that cannot be written, is the
// errno; through AtpFileWriter, an error that names both files.
TEST(BatchedWrites, ReturnsTheErrnoOfAFailedCopy) {
    TempDir dir;
    int pipeFds[2];
    ASSERT_EQ(pipe(pipeFds), 0);
    ASSERT_EQ(write(pipeFds[1], "abc", 3), 3);
    const int fd = createNewFile(dir.file("out"), 0600);
    ASSERT_GE(fd, 0);
    BatchedWrites writes(fd);
    EXPECT_EQ(writes.copyFrom(pipeFds[0], 0, 3), ESPIPE);
    close(fd);
    writeFile(dir.file("in"), "abc");
    const int in = open(dir.file("in").c_str(), O_RDONLY);
    ASSERT_GE(in, 0);
    const int readOnly = emptyReadOnlyFile(dir.file("ro"));
    ASSERT_GE(readOnly, 0);
    BatchedWrites cannotWrite(readOnly);
    EXPECT_EQ(cannotWrite.copyFrom(in, 0, 3), EBADF);
    close(readOnly);
    AtpFileWriter w;
    ASSERT_TRUE(w.open(dir.file("out.atp")));
    EXPECT_FALSE(w.copyFrom(pipeFds[0], "the pipe", 0, 3));
    EXPECT_THAT(w.error(), HasSubstr("cannot copy the pipe into " + dir.file("out.atp") + ".tmp."));
    EXPECT_THAT(w.error(), HasSubstr("Illegal seek"));
    EXPECT_FALSE(fs::exists(dir.file("out.atp")));
    close(in);
    close(pipeFds[0]);
    close(pipeFds[1]);
}

}  // namespace
}  // namespace perfmarker::atp
