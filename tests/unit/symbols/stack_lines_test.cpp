// The Stack Trace entry lines (atp/format/stack_lines.h, docs/call-sites.md#the-lines-we-write):
// the three forms, the escaping, and what the product's reader makes of them.
#include "atp/format/stack_lines.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "atp/format/perfmarker_section.h"
#include "atp/read/trace_parser.h"

namespace perfmarker::atp {
namespace {

std::string line(std::string_view api, const CallSiteText& site) {
    std::string out;
    appendStackLine(out, api, site);
    return out;
}

TEST(StackLines, SymbolFormHasFunctionLineAndFile) {
    EXPECT_EQ(line("clFinish", {"main", 42, "/src/app.c", "/usr/bin/app", 0x1234}),
              "clFinish\tmain\t42\t/src/app.c\n");
}

TEST(StackLines, SpacesAndControlBytesAreEscapedInFunctionAndFile) {
    EXPECT_EQ(
        line("clFlush", {"ns::f(int const&, char*)", 7, "/my src/a&b\tc.cpp", "", 0}),
        "clFlush\tns::f(int&nbsp;const&amp;,&nbsp;char*)\t7\t/my&nbsp;src/a&amp;b&#9;c.cpp\n");
}

TEST(StackLines, MissingPartsOfTheSymbolForm) {
    EXPECT_EQ(line("clFinish", {"main", 0, "", "/usr/bin/app", 0x10}), "clFinish\tmain\t0\t\n");
    EXPECT_EQ(line("clFinish", {"", 12, "/src/app.c", "", 0}), "clFinish\tNA\t12\t/src/app.c\n");
}

TEST(StackLines, ModuleFormNamesTheModuleFileAndTheOffsetInHex) {
    EXPECT_EQ(line("clEnqueueNDRangeKernel", {"", 0, "", "/usr/lib/libapp.so", 0x1a2bf}),
              "clEnqueueNDRangeKernel\tlibapp.so+0x1a2bf\n");
    EXPECT_EQ(line("clFinish", {"", 0, "", "/opt/my app/lib x.so", 0}),
              "clFinish\tlib&nbsp;x.so+0x0\n");
}

TEST(StackLines, BareFormWhenNothingIsKnown) { EXPECT_EQ(line("clFinish", {}), "clFinish\n"); }

TEST(StackLines, ModuleFileName) {
    EXPECT_EQ(moduleFileName("/usr/lib/libOpenCL.so.1"), "libOpenCL.so.1");
    EXPECT_EQ(moduleFileName("app"), "app");
}

struct Collect : TraceListener {
    void onStackEntry(const StackEntry& entry) override {
        entries.push_back({std::string(entry.apiName), entry.symbol, entry.sourceLine, entry.file,
                           std::string(entry.address)});
    }
    struct Entry {
        std::string api, symbol;
        uint64_t line;
        std::string file, address;
    };
    std::vector<Entry> entries;
};

// Every form read back by the one reader (src/atp/read) gives what was written.
TEST(StackLines, TheReaderReadsEveryFormBack) {
    std::string text = "TraceFileVersion=3.2\n=====ocl Stack Trace Output=====\n";
    appendThreadHeader(text, 4242, 5);
    appendStackLine(text, "clCreateBuffer",
                    {"pmtest::Queue<int>::enqueue(void* (*)())", 12, "/home/my src/q.hpp",
                     "/lib/libq.so", 0x40});
    appendStackLine(text, "clFinish", {"main", 0, "", "/usr/bin/app", 0x10});
    appendStackLine(text, "clFlush", {"", 0, "", "/usr/lib/libstdc++.so.6", 0xbeef});
    appendStackLine(text, "clFinish", {});
    appendStackLine(text, "clFinish", {"operator+", 3, "a.cpp", "", 0});
    TraceParser parser;
    Collect collect;
    parser.addListener(collect);
    std::string error;
    ASSERT_TRUE(parser.parseBuffer(text, "stack.atp", error)) << error;
    ASSERT_EQ(collect.entries.size(), 5u);
    const auto& e = collect.entries;
    EXPECT_EQ(e[0].api, "clCreateBuffer");
    EXPECT_EQ(e[0].symbol, "pmtest::Queue<int>::enqueue(void* (*)())");
    EXPECT_EQ(e[0].line, 12u);
    EXPECT_EQ(e[0].file, "/home/my src/q.hpp");
    EXPECT_EQ(e[1].symbol, "main");
    EXPECT_EQ(e[1].line, 0u);
    EXPECT_EQ(e[1].file, "");
    EXPECT_EQ(e[2].address, "libstdc++.so.6+0xbeef");
    EXPECT_EQ(e[2].symbol, "");
    EXPECT_EQ(e[3].api, "clFinish");
    EXPECT_EQ(e[3].symbol, "");
    EXPECT_EQ(e[3].address, "");
    EXPECT_EQ(e[4].symbol, "operator+");
    EXPECT_EQ(e[4].address, "");
}

}  // namespace
}  // namespace perfmarker::atp
