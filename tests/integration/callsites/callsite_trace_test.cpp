// `perfmarker trace --sym` end to end (docs/call-sites.md): applications built with -g -O0 on
// PoCL; the .atp's ocl Stack Trace section is parallel to the API trace and names, for each
// clEnqueueNDRangeKernel, the function, the line and the source file it was called from.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "run_process.h"

namespace perfmarker::test {
namespace {

namespace fs = std::filesystem;

// One section of the .atp as thread blocks: tid -> its entry lines.
using Blocks = std::vector<std::pair<std::string, std::vector<std::string>>>;

Blocks readSection(const std::string& atp, const std::string& name) {
    std::istringstream in(atp);
    Blocks blocks;
    std::string line;
    while (std::getline(in, line) && line != "=====" + name + "=====") {
    }
    while (std::getline(in, line) && line.rfind("=====", 0) != 0) {
        std::string count;
        std::getline(in, count);
        blocks.push_back({line, {}});
        for (unsigned long i = 0, n = std::stoul(count); i < n && std::getline(in, line); ++i) {
            blocks.back().second.push_back(line);
        }
    }
    return blocks;
}

std::vector<std::string> fields(const std::string& line) {
    std::vector<std::string> out;
    std::stringstream in(line);
    for (std::string f; std::getline(in, f, '\t');) out.push_back(f);
    return out;
}

// The line of `marker` in the test's source file `file`.
unsigned lineOf(const std::string& file, const std::string& marker) {
    std::ifstream in(std::string(PERFMARKER_CALLSITE_SOURCES) + "/" + file);
    unsigned number = 0;
    for (std::string line; std::getline(in, line);) {
        ++number;
        if (line.find(marker) != std::string::npos) return number;
    }
    return 0;
}

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class CallSites : public ::testing::Test {
protected:
    EnvChanges env() const {
        return {{"OCL_ICD_VENDORS", PERFMARKER_POCL_ICD}, {"OPENCL_LAYERS", std::nullopt}};
    }
    // Traces `argv` with --sym; returns the .atp's text.
    std::string trace(const std::vector<std::string>& app) {
        std::vector<std::string> argv = {PERFMARKER_CLI_PATH, "trace", "--sym", "-o",
                                         atpPath(),           "--"};
        argv.insert(argv.end(), app.begin(), app.end());
        last = runProcess(argv, env(), scratch.path());
        EXPECT_EQ(last.exitCode, 0) << last.err;
        return readFile(atpPath());
    }
    std::string atpPath() const { return scratch.path() + "/run.atp"; }
    // The stack lines of every clEnqueueNDRangeKernel, after checking that the section is
    // parallel to the API trace.
    std::vector<std::vector<std::string>> ndrangeSites(const std::string& atp) {
        const Blocks api = readSection(atp, "ocl API Trace Output");
        const Blocks stack = readSection(atp, "ocl Stack Trace Output");
        EXPECT_FALSE(stack.empty()) << "no ocl Stack Trace section";
        EXPECT_EQ(stack.size(), api.size());
        std::vector<std::vector<std::string>> sites;
        for (size_t b = 0; b < std::min(api.size(), stack.size()); ++b) {
            EXPECT_EQ(stack[b].first, api[b].first) << "thread of block " << b;
            EXPECT_EQ(stack[b].second.size(), api[b].second.size()) << "entries of block " << b;
            for (size_t i = 0; i < std::min(api[b].second.size(), stack[b].second.size()); ++i) {
                const std::vector<std::string> f = fields(stack[b].second[i]);
                EXPECT_NE(api[b].second[i].find(" = " + f[0] + " ("), std::string::npos)
                    << "stack line " << i << " names another API: " << stack[b].second[i];
                if (f[0] == "clEnqueueNDRangeKernel") sites.push_back(f);
            }
        }
        return sites;
    }

    ScratchDir scratch;
    ProcessResult last;
};

TEST_F(CallSites, EachNDRangeNamesItsFunctionLineAndFile) {
    const std::vector<std::vector<std::string>> sites =
        ndrangeSites(trace({PERFMARKER_CALLSITE_APP}));
    ASSERT_EQ(sites.size(), 7u);
    const unsigned three = lineOf("callsite_cl_app.c", "CALL three");
    const unsigned four = lineOf("callsite_cl_app.c", "CALL four");
    for (size_t i = 0; i < sites.size(); ++i) {
        ASSERT_EQ(sites[i].size(), 4u) << "not the symbol form";
        EXPECT_EQ(sites[i][1], i < 3 ? "enqueue_three" : "enqueue_four");
        EXPECT_EQ(sites[i][2], std::to_string(i < 3 ? three : four));
        EXPECT_TRUE(endsWith(sites[i][3], "callsite_cl_app.c")) << sites[i][3];
    }
    // The summary's Call Site page names both call sites as file.c:LINE.
    const ProcessResult summary =
        runProcess({PERFMARKER_CLI_PATH, "summary", atpPath()}, env(), scratch.path());
    ASSERT_EQ(summary.exitCode, 0) << summary.err;
    EXPECT_NE(summary.out.find("callsite_cl_app.c:" + std::to_string(three) + " enqueue_three"),
              std::string::npos)
        << summary.out;
    EXPECT_NE(summary.out.find("callsite_cl_app.c:" + std::to_string(four) + " enqueue_four"),
              std::string::npos)
        << summary.out;
    // The modules file went with the fragments: nothing is left beside the trace.
    for (const auto& entry : fs::directory_iterator(scratch.path())) {
        const std::string name = entry.path().filename().string();
        EXPECT_TRUE(name == "run.atp" || name.rfind("process", 0) == 0) << name;
    }
}

TEST_F(CallSites, SharedLibraryAndDlopenedModuleOfTheApplication) {
    const std::vector<std::vector<std::string>> sites =
        ndrangeSites(trace({PERFMARKER_CALLSITE_APP, "libs", PERFMARKER_CALLSITE_MODULE}));
    ASSERT_EQ(sites.size(), 9u);
    ASSERT_EQ(sites[7].size(), 4u);
    EXPECT_EQ(sites[7][1], "callsite_lib_enqueue");
    EXPECT_EQ(sites[7][2], std::to_string(lineOf("callsite_lib.c", "CALL lib")));
    EXPECT_TRUE(endsWith(sites[7][3], "callsite_lib.c"));
    ASSERT_EQ(sites[8].size(), 4u);
    EXPECT_EQ(sites[8][1], "callsite_module_enqueue");
    EXPECT_EQ(sites[8][2], std::to_string(lineOf("callsite_lib.c", "CALL module")));
}

TEST_F(CallSites, TraceWithoutSymHasNoStackSection) {
    std::vector<std::string> argv = {PERFMARKER_CLI_PATH, "trace", "-o",
                                     atpPath(),           "--",    PERFMARKER_CALLSITE_APP};
    const ProcessResult run = runProcess(argv, env(), scratch.path());
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_EQ(readFile(atpPath()).find("Stack Trace Output"), std::string::npos);
}

#ifdef PERFMARKER_CALLSITE_CPP_APP
// Through the C++ wrapper header the call site is the application's line that called the
// wrapper's method, not the header's line that called OpenCL.
TEST_F(CallSites, CppWrapperHeaderGivesTheApplicationsLine) {
    const std::vector<std::vector<std::string>> sites =
        ndrangeSites(trace({PERFMARKER_CALLSITE_CPP_APP}));
    ASSERT_EQ(sites.size(), 2u);
    for (const auto& site : sites) {
        ASSERT_EQ(site.size(), 4u);
        EXPECT_NE(site[1].find("enqueueTwice"), std::string::npos) << site[1];
        EXPECT_EQ(site[2], std::to_string(lineOf("callsite_cpp_app.cpp", "CALL twice")));
        EXPECT_TRUE(endsWith(site[3], "callsite_cpp_app.cpp")) << site[3];
    }
}
#endif

}  // namespace
}  // namespace perfmarker::test
