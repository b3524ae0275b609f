// `perfmarker report` on traces from the field: inputs that are no trace are refused naming the
// file, a failed report leaves an existing page as it was (and no temporary file), intervals
// that end before they start are named with their line, unknown times are not drawn, and a
// trace cut at the API call cap says so.
#include <gtest/gtest.h>

#include <filesystem>

#include "run_process.h"

namespace {

namespace fs = std::filesystem;
using perfmarker::test::ProcessResult;
using perfmarker::test::readFile;
using perfmarker::test::runProcess;
using perfmarker::test::ScratchDir;
using perfmarker::test::writeFile;

const std::string kPerfmarker = PERFMARKER_CLI_PATH;
const std::string kFixtures = PERFMARKER_ATP_FIXTURES;

class ReportCli : public ::testing::Test {
protected:
    ProcessResult run(std::vector<std::string> args) {
        args.insert(args.begin(), {kPerfmarker, "report"});
        return runProcess(args, {}, m_scratch.path());
    }
    std::string path(const std::string& name) const { return m_scratch.path() + "/" + name; }
    size_t temporaries() const {
        size_t count = 0;
        for (const auto& entry : fs::directory_iterator(m_scratch.path())) {
            count += entry.path().filename().string().find(".tmp.") != std::string::npos;
        }
        return count;
    }
    ScratchDir m_scratch;
};

TEST_F(ReportCli, NotATraceIsRefusedAndTheOldPageStays) {
    writeFile(path("empty.atp"), "");
    writeFile(path("blank.atp"), "\n \n");
    writeFile(path("garbage.atp"), "a=b\n\xff=\x01\n");
    writeFile(path("binary.atp"), std::string("\x00\x01=\x02\n", 5));
    const std::pair<std::string, std::string> cases[] = {
        {path("empty.atp"), ": not a trace: the file is empty"},
        {"/dev/null", ": not a trace: the file is empty"},
        {path("blank.atp"), ": not a trace: the file holds only blank lines"},
        {path("garbage.atp"), ": not a trace: no section line and no TraceFileVersion= header"},
        {path("binary.atp"), ":1: not a trace: expected a header line"}};
    for (const auto& [input, message] : cases) {
        writeFile(path("r.html"), "old page");
        const ProcessResult result = run({input, "-o", path("r.html")});
        EXPECT_EQ(result.exitCode, 1) << input;
        EXPECT_NE(result.err.find("perfmarker report: " + input + message), std::string::npos)
            << result.err;
        EXPECT_NE(result.err.find("nothing written (" + path("r.html") + " is unchanged)"),
                  std::string::npos)
            << result.err;
        EXPECT_EQ(readFile(path("r.html")), "old page");
    }
    EXPECT_EQ(temporaries(), 0u);
}

TEST_F(ReportCli, AFailedReportLeavesTheOldPage) {
    writeFile(path("r.html"), "old page");
    for (const std::string& input : {path("missing.atp"), kFixtures + "/bad_count.atp"}) {
        const ProcessResult result =
            run({kFixtures + "/ocl_vecadd.atp", input, "-o", path("r.html")});
        EXPECT_EQ(result.exitCode, 1) << input;
        EXPECT_EQ(readFile(path("r.html")), "old page") << input;
    }
    // An output that cannot be written (a directory of that name): named, nothing left behind.
    fs::create_directory(path("dir.html"));
    const ProcessResult result = run({kFixtures + "/ocl_vecadd.atp", "-o", path("dir.html")});
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_NE(result.err.find(path("dir.html") + ": cannot create: Is a directory"),
              std::string::npos)
        << result.err;
    EXPECT_TRUE(fs::is_directory(path("dir.html")));
    EXPECT_EQ(temporaries(), 0u);
    // A good report replaces the old page.
    const ProcessResult good = run({kFixtures + "/ocl_vecadd.atp", "-o", path("r.html")});
    EXPECT_EQ(good.exitCode, 0) << good.err;
    EXPECT_EQ(readFile(path("r.html")).rfind("<!DOCTYPE html>", 0), 0u);
    EXPECT_EQ(temporaries(), 0u);
}

TEST_F(ReportCli, EndsBeforeStartIsNamedOnStderrAndOnThePage) {
    const std::string trace = kFixtures + "/end_before_start.atp";
    const ProcessResult result = run({trace, "-o", path("e.html")});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_NE(result.err.find("perfmarker report: warning: " + trace +
                              ":20: clEnqueueNDRangeKernel: the command ends (6000400000) before "
                              "it starts (6000500000): its times are left out"),
              std::string::npos)
        << result.err;
    const std::string page = readFile(path("e.html"));
    EXPECT_NE(page.find("end_before_start.atp: 2 calls or commands end before they start (the "
                        "first at " +
                        trace + ":20) and are not drawn"),
              std::string::npos);
    EXPECT_NE(page.find("<h2>Trace Notes Page</h2>"), std::string::npos);
}

// The Done-when of the issue: the timeline starts at the first real timestamp.
TEST_F(ReportCli, ZeroDeviceTimesAreNotDrawn) {
    const std::string trace = kFixtures + "/zero_device_times.atp";
    const ProcessResult result = run({trace, "-o", path("z.html")});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_NE(result.err.find(trace + ": 2 commands without device times (unknown), left out"),
              std::string::npos)
        << result.err;
    EXPECT_NE(result.out.find("14 of 14 slices"), std::string::npos) << result.out;
    const std::string page = readFile(path("z.html"));
    EXPECT_NE(page.find("\"t0\":5000000000"), std::string::npos);
    EXPECT_NE(page.find("zero_device_times.atp: 3 calls or commands without times (unknown) are "
                        "not drawn"),
              std::string::npos);
}

TEST_F(ReportCli, ACutTraceSaysSo) {
    const std::string trace = kFixtures + "/cut_at_cap.atp";
    const ProcessResult result = run({trace, "-o", path("c.html")});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_NE(result.err.find(trace + ":6: the trace was cut at the API call cap"),
              std::string::npos)
        << result.err;
    const std::string page = readFile(path("c.html"));
    EXPECT_NE(page.find("cut_at_cap.atp: the trace was cut at the API call cap (25 calls left "
                        "out): the timeline ends at the cut"),
              std::string::npos);
    EXPECT_EQ(page.find("Memory leak detected"), std::string::npos);
}

}  // namespace
