// Call sites in the tools as a user runs them (docs/summary.md#call-sites, docs/report.md,
// docs/export.md#call-sites), on tests/fixtures/atp/call_sites.atp: `perfmarker summary` prints
// each call site as `file:LINE function`, the report shows them, the Perfetto export puts them in
// the slices' arguments; Stack Trace sections that do not line up with their API sections are
// named with their file and line, and a malformed Stack Trace line fails as any malformed line.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "run_process.h"

namespace {

using perfmarker::test::ProcessResult;
using perfmarker::test::readFile;
using perfmarker::test::runProcess;
using perfmarker::test::ScratchDir;
using perfmarker::test::writeFile;

const std::string kPerfmarker = PERFMARKER_CLI_PATH;
const std::string kFixtures = PERFMARKER_FIXTURES_DIR;
const std::string kCallSites = kFixtures + "/atp/call_sites.atp";

// One OpenCL thread (7) of two calls, with the Stack Trace lines given (the first at line 15).
std::string traceWithStackLines(const std::string& lines, bool api = true) {
    std::string text = "TraceFileVersion=3.2\n";
    if (api) {
        text +=
            "=====ocl API Trace Output=====\n7\n2\n"
            "CL_SUCCESS = clFinish ( 0x1 )\nCL_SUCCESS = clFlush ( 0x1 )\n"
            "=====ocl Timestamp Output=====\n7\n2\n"
            "51   clFinish   1000   2000\n50   clFlush   3000   4000\n";
    }
    return text + "=====ocl Stack Trace Output=====\n" + lines;
}

class CallSites : public ::testing::Test {
protected:
    ProcessResult run(std::vector<std::string> args) {
        args.insert(args.begin(), kPerfmarker);
        return runProcess(args, {}, m_scratch.path());
    }
    std::string file(const std::string& name) const { return m_scratch.path() + "/" + name; }

    ScratchDir m_scratch;
};

TEST_F(CallSites, SummaryPrintsFileAndLine) {
    const ProcessResult result = run({"summary", kCallSites});
    EXPECT_EQ(result.exitCode, 0) << result.err;
    EXPECT_EQ(result.err, "");
    EXPECT_NE(result.out.find("Call Site Summary Page"), std::string::npos);
    // The three calls of enqueue_twice (threads 100 and 200), 60 us in all.
    EXPECT_NE(result.out.find("clEnqueueNDRangeKernel  app.c:42 enqueue_twice  3           "
                              "0.06000         0.02000\n"),
              std::string::npos)
        << result.out;
    EXPECT_NE(result.out.find("app.c:57 wait_done"), std::string::npos);
    EXPECT_NE(result.out.find("libhelper.so+0x1a2b"), std::string::npos);
    EXPECT_NE(result.out.find("hsa_setup.cpp:30 setup_queue"), std::string::npos);
    EXPECT_EQ(result.out, readFile(kFixtures + "/golden/summary/call_sites.txt"));
}

TEST_F(CallSites, SummaryJsonHasBothPages) {
    const ProcessResult result = run({"summary", kCallSites, "--format", "json"});
    EXPECT_EQ(result.exitCode, 0) << result.err;
    EXPECT_NE(result.out.find("\"id\": \"CLCallSiteSummary\""), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("\"id\": \"HSACallSiteSummary\""), std::string::npos);
    EXPECT_EQ(result.out, readFile(kFixtures + "/golden/summary/call_sites.json"));
}

TEST_F(CallSites, ReportShowsThemOnHoverAndInATable) {
    const std::string page = file("r.html");
    const ProcessResult result = run({"report", kCallSites, "-o", page});
    EXPECT_EQ(result.exitCode, 0) << result.err;
    const std::string html = readFile(page);
    EXPECT_NE(html.find("<h2>Call Site Summary Page</h2>"), std::string::npos);
    EXPECT_NE(html.find("call site=app.c:42 enqueue_twice"), std::string::npos);
}

TEST_F(CallSites, PerfettoSlicesCarryThem) {
    const std::string out = file("t.json");
    const ProcessResult result = run({"export", "--format", "perfetto", kCallSites, "-o", out});
    EXPECT_EQ(result.exitCode, 0) << result.err;
    EXPECT_EQ(result.err.find("warning"), std::string::npos) << result.err;
    const std::string json = readFile(out);
    EXPECT_NE(json.find("\"call_site\":\"app.c:42 enqueue_twice\""), std::string::npos);
    EXPECT_NE(json.find("\"call_site\":\"libhsa_helper.so+0x400\""), std::string::npos);
}

TEST_F(CallSites, LinesThatDoNotLineUpAreNamed) {
    const std::string trace = file("longer.atp");
    writeFile(trace, traceWithStackLines("7\n3\nclFinish\tf\t1\ta.c\nclFlush\nclFlush\n"));
    const std::string note =
        "ocl Stack Trace Output, thread 7: 3 line(s) for 2 API call(s): the last 1 line(s) "
        "name no call and are left out";

    const ProcessResult summary = run({"summary", trace, "--format", "csv"});
    EXPECT_EQ(summary.exitCode, 0) << summary.err;
    EXPECT_NE(summary.out.find(trace + ",15,\"" + note + "\"\r\n"), std::string::npos)
        << summary.out;
    EXPECT_NE(summary.out.find("clFinish,a.c:1 f,1,0.00100,0.00100"), std::string::npos);

    const ProcessResult exported =
        run({"export", "--format", "perfetto", trace, "-o", file("l.json")});
    EXPECT_EQ(exported.exitCode, 0) << exported.err;
    EXPECT_NE(exported.err.find(trace + ":15: " + note), std::string::npos) << exported.err;
}

TEST_F(CallSites, AStackSectionWithoutApiCalls) {
    const std::string trace = file("alone.atp");
    writeFile(trace, traceWithStackLines("7\n1\nclFinish\tf\t1\ta.c\n", false));
    const ProcessResult result = run({"summary", trace, "--format", "csv"});
    EXPECT_EQ(result.exitCode, 0) << result.err;
    EXPECT_NE(
        result.out.find(trace + ",2,ocl Stack Trace Output: the trace has no OpenCL API calls: "
                                "its 1 line(s) are left out"),
        std::string::npos)
        << result.out;
}

// What the reader refuses fails every tool with the file and the line (docs/format.md#errors).
TEST_F(CallSites, AMalformedStackLineIsAnError) {
    const std::string trace = file("bad.atp");
    writeFile(trace, traceWithStackLines("7\n2\nclFinish\tf\tx\ta.c\nclFlush\n"));
    const ProcessResult result = run({"summary", trace});
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_NE(result.err.find(trace + ":15: expected a source line number"), std::string::npos)
        << result.err;
    // A block that announces more lines than the section holds.
    writeFile(file("cut.atp"), traceWithStackLines("7\n3\nclFinish\nclFlush\n"));
    const ProcessResult cut = run({"export", "--format", "perfetto", file("cut.atp")});
    EXPECT_EQ(cut.exitCode, 1);
    EXPECT_NE(cut.err.find(file("cut.atp") + ":"), std::string::npos) << cut.err;
}

}  // namespace
