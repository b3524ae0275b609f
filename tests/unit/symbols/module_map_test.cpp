// The modules file (docs/call-sites.md#the-modules-file): the writer of atp/format/module_lines.h,
// the reader and the address map of atp/symbols/module_map.h.
#include "atp/symbols/module_map.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "atp/format/module_lines.h"
#include "callsite_support.h"

namespace perfmarker::symbols {
namespace {

ModuleMap readText(const std::string& text, std::vector<std::string>& errors) {
    std::istringstream in(text);
    ModuleMap map;
    EXPECT_TRUE(readModules(in, "modules.txt", map, errors));
    return map;
}

std::string pathAt(const ModuleMap& map, uint64_t address) {
    const size_t index = map.find(address);
    return index == ModuleMap::kNone ? "(none)" : map.module(index).path;
}

TEST(ModulesFile, WriterLineHasBiasBuildIdPathAndRanges) {
    std::string out;
    atp::appendModulesFileHeader(out);
    const uint8_t id[] = {0x3f, 0x2a, 0x09, 0xc0};
    const ExecRange ranges[] = {{0x7f12a0001000, 0x7f12a0005000}, {0x7f12a0009000, 0x7f12a000a000}};
    atp::appendModuleLine(out, 0x7f12a0000000, id, sizeof id, "/usr/lib/libfoo.so", ranges, 2);
    atp::appendModuleLine(out, 0, nullptr, 0, "/opt/my app/a&b", ranges, 1);
    EXPECT_EQ(out,
              "# perfmarker modules 1\n"
              "0x7f12a0000000 3f2a09c0 /usr/lib/libfoo.so 0x7f12a0001000-0x7f12a0005000 "
              "0x7f12a0009000-0x7f12a000a000\n"
              "0x0 - /opt/my&nbsp;app/a&amp;b 0x7f12a0001000-0x7f12a0005000\n");
}

TEST(ModulesFile, ReaderGivesBackWhatTheWriterWrote) {
    std::string text;
    atp::appendModulesFileHeader(text);
    const uint8_t id[] = {0xde, 0xad, 0xbe, 0xef};
    const ExecRange ranges[] = {{0x2000, 0x3000}};
    atp::appendModuleLine(text, 0x1000, id, sizeof id, "/opt/my app/lib\tx.so", ranges, 1);
    std::vector<std::string> errors;
    const ModuleMap map = readText(text, errors);
    EXPECT_TRUE(errors.empty());
    ASSERT_EQ(map.size(), 1u);
    EXPECT_EQ(map.module(0).loadBias, 0x1000u);
    EXPECT_EQ(map.module(0).buildId, std::vector<uint8_t>(id, id + 4));
    EXPECT_EQ(map.module(0).path, "/opt/my app/lib\tx.so");
    EXPECT_EQ(map.find(0x1fff), ModuleMap::kNone);
    EXPECT_EQ(map.find(0x2000), 0u);
    EXPECT_EQ(map.find(0x2fff), 0u);
    EXPECT_EQ(map.find(0x3000), ModuleMap::kNone);
}

// A module unloaded and another loaded where it was: the later line wins where they overlap,
// the earlier module keeps the rest of its range.
TEST(ModulesFile, LaterLinesWinWhereRangesOverlap) {
    std::vector<std::string> errors;
    const ModuleMap map = readText(
        "# perfmarker modules 1\n"
        "0x0 - /lib/a.so 0x1000-0x5000\n"
        "0x0 - /lib/b.so 0x2000-0x3000\n"
        "0x0 - /lib/c.so 0x4800-0x6000 0x0-0x1800\n",
        errors);
    EXPECT_TRUE(errors.empty());
    EXPECT_EQ(pathAt(map, 0x0fff), "/lib/c.so");
    EXPECT_EQ(pathAt(map, 0x17ff), "/lib/c.so");
    EXPECT_EQ(pathAt(map, 0x1800), "/lib/a.so");
    EXPECT_EQ(pathAt(map, 0x2000), "/lib/b.so");
    EXPECT_EQ(pathAt(map, 0x2fff), "/lib/b.so");
    EXPECT_EQ(pathAt(map, 0x3000), "/lib/a.so");
    EXPECT_EQ(pathAt(map, 0x47ff), "/lib/a.so");
    EXPECT_EQ(pathAt(map, 0x4800), "/lib/c.so");
    EXPECT_EQ(pathAt(map, 0x5fff), "/lib/c.so");
    EXPECT_EQ(pathAt(map, 0x6000), "(none)");
}

TEST(ModulesFile, AModuleListedAgainIsOneModule) {
    std::vector<std::string> errors;
    const ModuleMap map = readText(
        "# perfmarker modules 1\n"
        "0x1000 ab /lib/a.so 0x1000-0x2000\n"
        "0x1000 ab /lib/a.so 0x1000-0x2000\n"
        "0x1000 cd /lib/a.so 0x1000-0x2000\n",
        errors);
    EXPECT_EQ(map.size(), 2u);  // another build-id is another module
    EXPECT_EQ(map.find(0x1000), 1u);
}

TEST(ModulesFile, MalformedLinesAreNamedByFileAndLineAndTheRestIsRead) {
    std::vector<std::string> errors;
    const ModuleMap map = readText(
        "# perfmarker modules 2\n"
        "0x1000 - /lib/a.so 0x1000-0x2000\n"
        "zz - /lib/b.so 0x3000-0x4000\n"
        "0x3000 abc /lib/c.so 0x3000-0x4000\n"
        "0x5000 -\n"
        "\n"
        "# a comment\n"
        "0x6000 - /lib/f.so 0x7000-0x6000\n"
        "0x6000 - /lib/g.so 0x6000-0x7000 0x8000\n"
        "0x9000 - /lib/h.so 0x9000-0xa000\n",
        errors);
    const std::vector<std::string> expected = {
        "modules.txt:1: expected '# perfmarker modules 1', got '# perfmarker modules 2'",
        "modules.txt:3: expected a load bias 0x<hex>, got 'zz'",
        "modules.txt:4: expected a build-id (hex byte pairs, or -), got 'abc'",
        "modules.txt:5: expected a module path, got ''",
        "modules.txt:8: expected an address range 0x<begin>-0x<end> (begin < end), got "
        "'0x7000-0x6000'",
        "modules.txt:9: expected an address range 0x<begin>-0x<end> (begin < end), got '0x8000'",
    };
    EXPECT_EQ(errors, expected);
    EXPECT_EQ(pathAt(map, 0x1800), "/lib/a.so");
    EXPECT_EQ(pathAt(map, 0x9800), "/lib/h.so");
    EXPECT_EQ(pathAt(map, 0x3800), "(none)");
    EXPECT_EQ(pathAt(map, 0x6800), "(none)");
}

TEST(ModulesFile, ManyMalformedLinesAreCountedNotListed) {
    std::string text = "# perfmarker modules 1\n";
    for (int i = 0; i < 15; ++i) text += "bad line\n";
    text += "0x0 - /lib/a.so 0x1000-0x2000\n";
    std::vector<std::string> errors;
    const ModuleMap map = readText(text, errors);
    ASSERT_EQ(errors.size(), kMaxModuleErrors + 1);
    EXPECT_EQ(errors.front(), "modules.txt:2: expected a load bias 0x<hex>, got 'bad'");
    EXPECT_EQ(errors.back(), "modules.txt: 5 more malformed lines");
    EXPECT_EQ(pathAt(map, 0x1000), "/lib/a.so");
}

TEST(ModulesFile, AFileThatCannotBeOpenedIsNamed) {
    ModuleMap map;
    std::vector<std::string> errors;
    EXPECT_FALSE(readModulesFile("/nonexistent-dir/modules.txt", map, errors));
    ASSERT_EQ(errors.size(), 1u);
    EXPECT_EQ(errors[0].rfind("/nonexistent-dir/modules.txt: cannot open: ", 0), 0u) << errors[0];
}

TEST(ModulesFile, ReadsAFileOnDisk) {
    char path[] = "/tmp/perfmarker_modules_XXXXXX";
    const int fd = mkstemp(path);
    ASSERT_GE(fd, 0);
    const std::string text = "# perfmarker modules 1\n0x0 - /lib/a.so 0x1000-0x2000\n";
    ASSERT_EQ(write(fd, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    close(fd);
    ModuleMap map;
    std::vector<std::string> errors;
    EXPECT_TRUE(readModulesFile(path, map, errors));
    EXPECT_TRUE(errors.empty());
    EXPECT_EQ(pathAt(map, 0x1000), "/lib/a.so");
    std::remove(path);
}

// The snapshot of this process has the dlopened test library with the build-id of its file,
// and the main program under the executable's path.
TEST(ModulesFile, LoadedModulesListTheLibraryAndTheExecutable) {
    const test::CallSiteLibrary& library = test::callSiteLibrary();
    ASSERT_NE(library.first, nullptr);
    const ModuleMap map = test::processModules();
    const Module& module = test::moduleAt(map, reinterpret_cast<uint64_t>(library.first));
    EXPECT_EQ(module.path, PM_CALLSITE_LIBRARY);
    EXPECT_FALSE(module.buildId.empty());
    EXPECT_EQ(module.buildId, test::fileBuildId(PM_CALLSITE_LIBRARY));
    const Module& main =
        test::moduleAt(map, reinterpret_cast<uint64_t>(&test::pmCaptureReturnAddress));
    EXPECT_EQ(main.path, atp::executablePath());
    EXPECT_EQ(main.buildId, test::fileBuildId(atp::executablePath()));
}

}  // namespace
}  // namespace perfmarker::symbols
