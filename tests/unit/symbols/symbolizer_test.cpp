// The symbolizer (atp/symbols/symbolizer.h, docs/call-sites.md#names-and-lines) on real return
// addresses captured at the call sites of the test library: names, lines and files with debug
// information, the module form for a stripped copy, the bare form outside every module, a
// replaced or missing file, a separate debug file found by build-id, and the cache.
#include "atp/symbols/symbolizer.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>

#include "atp/format/module_lines.h"
#include "callsite_support.h"

namespace perfmarker::symbols {
namespace {

using test::callSiteLibrary;
using test::returnAddressFrom;
using test::siteLine;

class SymbolizerTest : public ::testing::Test {
protected:
    void SetUp() override {
        test::noDebuginfod();
        ASSERT_NE(callSiteLibrary().first, nullptr);
    }

    // This process's modules, with the test library's entry pointing at `path` (and carrying
    // `buildId` when given): a file as the merge would find it after the run.
    static ModuleMap libraryAs(const std::string& path, const std::vector<uint8_t>* buildId) {
        const uint64_t address = reinterpret_cast<uint64_t>(callSiteLibrary().first);
        const ModuleMap process = test::processModules();
        Module module = test::moduleAt(process, address);
        module.path = path;
        if (buildId != nullptr) module.buildId = *buildId;
        ModuleMap map;
        map.add(module, test::rangesAt(address));
        return map;
    }

    static uint64_t offsetOf(uint64_t address) {
        const ModuleMap map = test::processModules();
        return address - test::moduleAt(map, address).loadBias;
    }
};

TEST_F(SymbolizerTest, NamesFunctionLineAndFileWithDebugInformation) {
    Symbolizer symbolizer(test::processModules());
    const uint64_t first = returnAddressFrom(callSiteLibrary().first);
    const uint64_t second = returnAddressFrom(callSiteLibrary().second);
    const CallSite& a = symbolizer.resolve(first);
    EXPECT_EQ(a.function, "pm_first_site");
    EXPECT_EQ(a.line, siteLine(PM_CALLSITE_C_SOURCE, "first"));
    EXPECT_EQ(a.file, PM_CALLSITE_C_SOURCE);
    EXPECT_EQ(a.module, PM_CALLSITE_LIBRARY);
    EXPECT_EQ(a.offset, offsetOf(first));
    const CallSite& b = symbolizer.resolve(second);
    EXPECT_EQ(b.function, "pm_second_site");
    EXPECT_EQ(b.line, siteLine(PM_CALLSITE_C_SOURCE, "second"));
    EXPECT_EQ(b.file, PM_CALLSITE_C_SOURCE);
    const CallSite& hidden = symbolizer.resolve(returnAddressFrom(callSiteLibrary().hidden));
    EXPECT_EQ(hidden.function, "pm_hidden_site");
    EXPECT_EQ(hidden.line, siteLine(PM_CALLSITE_C_SOURCE, "hidden"));
    EXPECT_TRUE(symbolizer.warnings().empty());

    std::string out;
    symbolizer.appendStackLine(out, "clEnqueueNDRangeKernel", first);
    EXPECT_EQ(out, "clEnqueueNDRangeKernel\tpm_first_site\t" +
                       std::to_string(siteLine(PM_CALLSITE_C_SOURCE, "first")) + "\t" +
                       PM_CALLSITE_C_SOURCE + "\n");
}

TEST_F(SymbolizerTest, DemangledNameThroughACppWrapper) {
    Symbolizer symbolizer(test::processModules());
    const CallSite& site = symbolizer.resolve(returnAddressFrom(callSiteLibrary().wrapper));
    EXPECT_EQ(site.function, "pmtest::Queue<int>::enqueue(void* (*)())");
    EXPECT_EQ(site.line, siteLine(PM_CALLSITE_CPP_SOURCE, "wrapper"));
    EXPECT_EQ(site.file, PM_CALLSITE_CPP_SOURCE);
    std::string out;
    atp::appendStackLine(out, "clFinish", site.text());
    EXPECT_EQ(out.substr(0, out.find('\t', 9)),
              "clFinish\tpmtest::Queue<int>::enqueue(void*&nbsp;(*)())");
}

// The function named is the one whose code holds the line: the inlined one.
TEST_F(SymbolizerTest, InlinedFunctionIsNamedWithItsLine) {
    Symbolizer symbolizer(test::processModules());
    const CallSite& site = symbolizer.resolve(returnAddressFrom(callSiteLibrary().inlined));
    EXPECT_EQ(site.function, "pm_inlined_call");
    EXPECT_EQ(site.line, siteLine(PM_CALLSITE_C_SOURCE, "inlined"));
    EXPECT_EQ(site.file, PM_CALLSITE_C_SOURCE);
}

TEST_F(SymbolizerTest, MainProgramFunctionsByName) {
    Symbolizer symbolizer(test::processModules());
    const uint64_t entry = reinterpret_cast<uint64_t>(&test::pmCaptureReturnAddress);
    const CallSite& site = symbolizer.resolve(entry + 1);  // its first byte is the "call"
    EXPECT_EQ(site.function, "pmCaptureReturnAddress");
    EXPECT_EQ(site.module, atp::executablePath());
}

// A module without the address index .debug_aranges (Clang writes none by default): the compile
// unit is found by its ranges, and the names, lines and files are those of the library.
TEST_F(SymbolizerTest, ModuleWithoutAddressIndexGivesLinesToo) {
    std::ifstream file(PM_CALLSITE_NO_ARANGES, std::ios::binary);
    const std::string bytes{std::istreambuf_iterator<char>(file), {}};
    ASSERT_FALSE(bytes.empty());
    ASSERT_EQ(bytes.find(".debug_aranges"), std::string::npos);  // the copy has no index
    ASSERT_NE(bytes.find(".debug_line"), std::string::npos);
    Symbolizer symbolizer(libraryAs(PM_CALLSITE_NO_ARANGES, nullptr));
    const CallSite& a = symbolizer.resolve(returnAddressFrom(callSiteLibrary().first));
    EXPECT_EQ(a.function, "pm_first_site");
    EXPECT_EQ(a.line, siteLine(PM_CALLSITE_C_SOURCE, "first"));
    EXPECT_EQ(a.file, PM_CALLSITE_C_SOURCE);
    const CallSite& inlined = symbolizer.resolve(returnAddressFrom(callSiteLibrary().inlined));
    EXPECT_EQ(inlined.function, "pm_inlined_call");
    EXPECT_EQ(inlined.line, siteLine(PM_CALLSITE_C_SOURCE, "inlined"));
    const CallSite& wrapper = symbolizer.resolve(returnAddressFrom(callSiteLibrary().wrapper));
    EXPECT_EQ(wrapper.function, "pmtest::Queue<int>::enqueue(void* (*)())");
    EXPECT_EQ(wrapper.line, siteLine(PM_CALLSITE_CPP_SOURCE, "wrapper"));
    EXPECT_EQ(wrapper.file, PM_CALLSITE_CPP_SOURCE);
    EXPECT_TRUE(symbolizer.warnings().empty());
}

// Without symbols: a static function has no name at all, an exported one keeps the name of
// the dynamic symbol table, without a line.
TEST_F(SymbolizerTest, StrippedCopyGivesModuleAndOffset) {
    Symbolizer symbolizer(libraryAs(PM_CALLSITE_STRIPPED, nullptr));
    const uint64_t address = returnAddressFrom(callSiteLibrary().hidden);
    const CallSite& hidden = symbolizer.resolve(address);
    EXPECT_EQ(hidden.function, "");
    EXPECT_EQ(hidden.line, 0u);
    EXPECT_EQ(hidden.file, "");
    EXPECT_EQ(hidden.module, PM_CALLSITE_STRIPPED);
    std::string out;
    symbolizer.appendStackLine(out, "clFinish", address);
    char expected[128];
    std::snprintf(expected, sizeof expected,
                  "clFinish\tlibperfmarker_callsite_app_stripped.so+0x%llx\n",
                  static_cast<unsigned long long>(offsetOf(address)));
    EXPECT_EQ(out, expected);

    const CallSite& exported = symbolizer.resolve(returnAddressFrom(callSiteLibrary().first));
    EXPECT_EQ(exported.function, "pm_first_site");
    EXPECT_EQ(exported.line, 0u);
    EXPECT_EQ(exported.file, "");
    EXPECT_TRUE(symbolizer.warnings().empty()) << symbolizer.warnings().front();
}

// The stripped copy with its debug file at <dir>/.build-id/xx/yyyy.debug.
TEST_F(SymbolizerTest, SeparateDebugFileFoundByBuildId) {
    const std::vector<uint8_t> id = test::fileBuildId(PM_CALLSITE_STRIPPED);
    ASSERT_GE(id.size(), 2u);
    char dir[] = "/tmp/perfmarker_debug_XXXXXX";
    ASSERT_NE(mkdtemp(dir), nullptr);
    static constexpr char kHex[] = "0123456789abcdef";
    std::string rest;
    for (size_t i = 1; i < id.size(); ++i) rest += {kHex[id[i] >> 4], kHex[id[i] & 0xf]};
    const std::filesystem::path idDir =
        std::filesystem::path(dir) / ".build-id" / std::string{kHex[id[0] >> 4], kHex[id[0] & 0xf]};
    std::filesystem::create_directories(idDir);
    std::filesystem::copy_file(PM_CALLSITE_DEBUG, idDir / (rest + ".debug"));

    SymbolizerOptions options;
    options.debugPath = dir;
    Symbolizer symbolizer(libraryAs(PM_CALLSITE_STRIPPED, nullptr), options);
    const CallSite& site = symbolizer.resolve(returnAddressFrom(callSiteLibrary().hidden));
    EXPECT_EQ(site.function, "pm_hidden_site");
    EXPECT_EQ(site.line, siteLine(PM_CALLSITE_C_SOURCE, "hidden"));
    EXPECT_EQ(site.file, PM_CALLSITE_C_SOURCE);
    EXPECT_TRUE(symbolizer.warnings().empty()) << symbolizer.warnings().front();
    std::filesystem::remove_all(dir);
}

TEST_F(SymbolizerTest, AddressInNoModuleIsBare) {
    Symbolizer symbolizer(test::processModules());
    auto heap = std::make_unique<char[]>(64);  // stands for JIT code: no module holds it
    const uint64_t jit = reinterpret_cast<uint64_t>(heap.get()) + 8;
    for (const uint64_t address : {jit, uint64_t{0}, uint64_t{1}}) {
        const CallSite& site = symbolizer.resolve(address);
        EXPECT_EQ(site.module, "");
        std::string out;
        symbolizer.appendStackLine(out, "clFinish", address);
        EXPECT_EQ(out, "clFinish\n");
    }
    EXPECT_TRUE(symbolizer.warnings().empty());
}

// The file at the recorded path is another build than the one that ran: reported once, and no
// call is attributed to its code.
TEST_F(SymbolizerTest, BuildIdMismatchIsReportedOnceAndNotSymbolized) {
    const std::vector<uint8_t> recorded = {0xde, 0xad, 0xbe, 0xef, 0x01};
    Symbolizer symbolizer(libraryAs(PM_CALLSITE_LIBRARY, &recorded));
    for (int round = 0; round < 2; ++round) {
        for (const test::Site site : {callSiteLibrary().first, callSiteLibrary().second}) {
            const CallSite& resolved = symbolizer.resolve(returnAddressFrom(site));
            EXPECT_EQ(resolved.function, "");
            EXPECT_EQ(resolved.line, 0u);
            EXPECT_EQ(resolved.file, "");
            EXPECT_EQ(resolved.module, PM_CALLSITE_LIBRARY);
        }
    }
    ASSERT_EQ(symbolizer.warnings().size(), 1u);
    const std::string& warning = symbolizer.warnings()[0];
    EXPECT_NE(warning.find(PM_CALLSITE_LIBRARY), std::string::npos) << warning;
    EXPECT_NE(warning.find("deadbeef01"), std::string::npos) << warning;
}

TEST_F(SymbolizerTest, MissingFileGivesModuleAndOffsetReportedOnce) {
    Symbolizer symbolizer(libraryAs("/nonexistent-dir/libgone.so", nullptr));
    const uint64_t first = returnAddressFrom(callSiteLibrary().first);
    const uint64_t second = returnAddressFrom(callSiteLibrary().second);
    std::string out;
    symbolizer.appendStackLine(out, "clFinish", first);
    symbolizer.appendStackLine(out, "clFlush", second);
    char expected[160];
    std::snprintf(expected, sizeof expected,
                  "clFinish\tlibgone.so+0x%llx\nclFlush\tlibgone.so+0x%llx\n",
                  static_cast<unsigned long long>(offsetOf(first)),
                  static_cast<unsigned long long>(offsetOf(second)));
    EXPECT_EQ(out, expected);
    ASSERT_EQ(symbolizer.warnings().size(), 1u);
    EXPECT_NE(symbolizer.warnings()[0].find("/nonexistent-dir/libgone.so"), std::string::npos);
}

TEST_F(SymbolizerTest, EachAddressIsLookedUpOnce) {
    Symbolizer symbolizer(test::processModules());
    const uint64_t first = returnAddressFrom(callSiteLibrary().first);
    const uint64_t second = returnAddressFrom(callSiteLibrary().second);
    std::string out;
    for (int i = 0; i < 1000; ++i) {
        out.clear();
        symbolizer.appendStackLine(out, "clFinish", i % 2 == 0 ? first : second);
        EXPECT_EQ(symbolizer.resolve(first).function, "pm_first_site");
    }
    EXPECT_EQ(symbolizer.lookups(), 2u);
    EXPECT_EQ(&symbolizer.resolve(first), &symbolizer.resolve(first));
}

}  // namespace
}  // namespace perfmarker::symbols
