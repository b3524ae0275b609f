// `perfmarker summary`, `report` and `export` given kernel profile files (the fixtures of
// tests/fixtures/profile): the pages they show, alone and with a trace, the Perfetto export
// attaching a profile to its trace, and the refusals (exit 1 naming file and line, exit 2 for
// inputs that do not go together).
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "run_process.h"

namespace {

using perfmarker::test::ProcessResult;
using perfmarker::test::readFile;
using perfmarker::test::runProcess;
using perfmarker::test::ScratchDir;
using perfmarker::test::writeFile;

const std::string kPerfmarker = PERFMARKER_CLI_PATH;
const std::string kProfiles = std::string(PERFMARKER_FIXTURES_DIR) + "/profile";
const std::string kCsv = kProfiles + "/twokernels.csv";
const std::string kTrace = kProfiles + "/twokernels.atp";
const std::string kOccupancy = kProfiles + "/original.occupancy";

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// The line of `text` that starts with `start`; "" when none.
std::string lineStartingWith(const std::string& text, const std::string& start) {
    size_t at = 0;
    while (at < text.size()) {
        const size_t end = text.find('\n', at);
        const std::string line = text.substr(at, end - at);
        if (line.rfind(start, 0) == 0) return line;
        if (end == std::string::npos) break;
        at = end + 1;
    }
    return {};
}

class ProfileFiles : public ::testing::Test {
protected:
    ProcessResult run(const std::string& command, std::vector<std::string> args) {
        args.insert(args.begin(), {kPerfmarker, command});
        return runProcess(args, {}, m_scratch.path());
    }
    std::string file(const std::string& name) const { return m_scratch.path() + "/" + name; }

    ScratchDir m_scratch;
};

TEST_F(ProfileFiles, SummaryOfACsvNamesBothKernels) {
    const ProcessResult result = run("summary", {kCsv});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_EQ(result.err, "");
    EXPECT_EQ(result.out.rfind("Kernel Profile Page\n===================\n", 0), 0u);
    EXPECT_TRUE(contains(lineStartingWith(result.out, "blur2d "), " 4 ")) << result.out;
    EXPECT_TRUE(contains(lineStartingWith(result.out, "vecadd "), " 0.15000 ")) << result.out;
}

TEST_F(ProfileFiles, SummaryOfAnOriginalOccupancyFileShowsEachKernel) {
    const ProcessResult result = run("summary", {kOccupancy});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_EQ(result.out.rfind("Occupancy Page\n", 0), 0u);
    const std::pair<const char*, const char*> expected[] = {
        {"matmul ", " 30.00"}, {"histogram ", " 40.00-80.00"}, {"reduce ", " 100.00"}};
    for (const auto& [kernel, occupancy] : expected) {
        const std::string line = lineStartingWith(result.out, kernel);
        ASSERT_FALSE(line.empty()) << kernel << "\n" << result.out;
        EXPECT_EQ(line.substr(line.size() - std::string(occupancy).size()), occupancy) << line;
    }
}

TEST_F(ProfileFiles, SummaryOfTraceAndProfilesTogether) {
    const ProcessResult result =
        run("summary",
            {kTrace, kCsv, kOccupancy, kProfiles + "/original_semicolon.csv", "--format", "json"});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    const nlohmann::json summary = nlohmann::json::parse(result.out);
    std::vector<std::string> ids;
    for (const auto& table : summary["tables"]) ids.push_back(table["id"]);
    ASSERT_GE(ids.size(), 3u);
    EXPECT_EQ(ids[0], "CLAPISummary");
    EXPECT_EQ(ids[ids.size() - 2], "KernelProfileSummary");
    EXPECT_EQ(ids.back(), "OccupancySummary");
    EXPECT_EQ(summary["tables"][ids.size() - 2]["rows"].size(), 4u);  // 2 + 2 kernels
}

TEST_F(ProfileFiles, SummaryOfAHeaderOnlyCsvSaysSo) {
    const ProcessResult result = run("summary", {kProfiles + "/header_only.csv"});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_TRUE(contains(result.out, "header_only.csv: no kernel dispatches")) << result.out;
}

TEST_F(ProfileFiles, SummaryRefusesMalformedFilesNamingTheLine) {
    std::string text = readFile(kCsv);
    const std::string size = "{    256       4       1}";
    text.replace(text.find(size), size.size(), "{256 4 1 1}");
    writeFile(file("bad.csv"), text);
    const ProcessResult bad = run("summary", {kTrace, file("bad.csv")});
    EXPECT_EQ(bad.exitCode, 1);
    EXPECT_EQ(bad.out, "");
    EXPECT_EQ(bad.err, "perfmarker summary: " + file("bad.csv") +
                           ":18: GlobalWorkSize: expected a size such as {   1024       1       "
                           "1} or NULL, found '{256 4 1 1}'\n");

    writeFile(file("other.csv"), "name,value\n1,2\n");
    const ProcessResult neither = run("summary", {file("other.csv")});
    EXPECT_EQ(neither.exitCode, 1);
    EXPECT_TRUE(contains(neither.err, "other.csv:1: not a kernel profile file")) << neither.err;

    writeFile(file("short.occupancy"), "# ProfilerVersion=5.6.0\nThread ID,Kernel Name\n");
    const ProcessResult occupancy = run("summary", {file("short.occupancy")});
    EXPECT_EQ(occupancy.exitCode, 1);
    EXPECT_TRUE(contains(occupancy.err, "short.occupancy:2: expected the 26 columns"))
        << occupancy.err;

    const ProcessResult missing = run("summary", {file("missing.csv")});
    EXPECT_EQ(missing.exitCode, 1);
    EXPECT_TRUE(contains(missing.err, "missing.csv: cannot open")) << missing.err;
}

TEST_F(ProfileFiles, ReportShowsTheSamePages) {
    const ProcessResult alone = run("report", {kCsv, kOccupancy, "-o", file("p.html")});
    ASSERT_EQ(alone.exitCode, 0) << alone.err;
    const std::string page = readFile(file("p.html"));
    EXPECT_TRUE(contains(page, "<h2>Kernel Profile Page</h2>"));
    EXPECT_TRUE(contains(page, "<h2>Occupancy Page</h2>"));
    EXPECT_TRUE(contains(page, "id=\"no-trace-notice\""));
    EXPECT_TRUE(contains(page, "40.00-80.00"));

    const ProcessResult together = run("report", {kTrace, kCsv, "-o", file("t.html")});
    ASSERT_EQ(together.exitCode, 0) << together.err;
    const std::string both = readFile(file("t.html"));
    EXPECT_TRUE(contains(both, "<h2>Kernel Summary Page</h2>"));
    EXPECT_TRUE(contains(both, "<h2>Kernel Profile Page</h2>"));
    EXPECT_FALSE(contains(both, "no-trace-notice"));
}

TEST_F(ProfileFiles, ReportOfAMalformedProfileWritesNothing) {
    writeFile(file("keep.html"), "old");
    writeFile(file("bad.occupancy"), "# ProfilerVersion=5.6.0\n# KernelCount=x\n");
    const ProcessResult result =
        run("report", {kTrace, file("bad.occupancy"), "-o", file("keep.html")});
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_TRUE(contains(result.err, "bad.occupancy:2: KernelCount= 'x' is not a whole number"))
        << result.err;
    EXPECT_TRUE(contains(result.err, "nothing written")) << result.err;
    EXPECT_EQ(readFile(file("keep.html")), "old");
}

// ExecutionOrder of each kernel slice, by the slice's start.
std::map<double, uint64_t> profiledKernels(const std::string& path) {
    const nlohmann::json trace = nlohmann::json::parse(readFile(path));
    std::map<double, uint64_t> kernels;
    for (const auto& event : trace["traceEvents"]) {
        if (event["ph"] != "X" || event["cat"] != "kernels") continue;
        const auto& args = event["args"];
        kernels[event["ts"].get<double>()] =
            args.contains("profile") ? args["profile"]["ExecutionOrder"].get<uint64_t>() : 0;
    }
    return kernels;
}

TEST_F(ProfileFiles, PerfettoExportAttachesTheProfileInEnqueueOrder) {
    const ProcessResult result =
        run("export", {"--format", "perfetto", kTrace, kCsv, "-o", file("t.json")});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_FALSE(contains(result.err, "warning")) << result.err;
    // twokernels.atp: thread 5001 enqueues vecadd at 100, 300 and 500 µs past its start,
    // thread 5002 blur2d at 200, 400, 600 and 700; each runs 20 µs after its enqueue.
    const std::map<double, uint64_t> expected{
        {1000000120.0, 1}, {1000000220.0, 2}, {1000000320.0, 3}, {1000000420.0, 4},
        {1000000520.0, 5}, {1000000620.0, 6}, {1000000720.0, 7}};
    EXPECT_EQ(profiledKernels(file("t.json")), expected);
    EXPECT_TRUE(contains(readFile(file("t.json")), "\"task-clock\":400000"));
}

TEST_F(ProfileFiles, PerfettoExportWarnsOnceAtTheFirstNameMismatch) {
    std::string text = readFile(kCsv);
    const size_t third = text.find("vecadd__k1_CPU, 3,");
    text.replace(third, 6, "scaled");
    writeFile(file("other_run.csv"), text);
    const ProcessResult result = run(
        "export", {"--format", "perfetto", kTrace, file("other_run.csv"), "-o", file("t.json")});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_TRUE(contains(result.err,
                         "perfmarker export: warning: " + kTrace +
                             ": kernel dispatch 3 is 'vecadd' in the trace but ExecutionOrder 3 "
                             "of " +
                             file("other_run.csv") +
                             " is 'scaled': profile counters attached to the first 2 "
                             "dispatch(es) only\n"))
        << result.err;
    const std::map<double, uint64_t> kernels = profiledKernels(file("t.json"));
    EXPECT_EQ(kernels.at(1000000220.0), 2u);
    EXPECT_EQ(kernels.at(1000000320.0), 0u);
    EXPECT_EQ(kernels.at(1000000720.0), 0u);
}

TEST_F(ProfileFiles, ExportRefusesProfilesThatDoNotGoTogether) {
    const ProcessResult csv = run("export", {"--format", "csv", kTrace, kCsv, "-o", file("t")});
    EXPECT_EQ(csv.exitCode, 2);
    EXPECT_TRUE(contains(csv.err, "are only attached by --format perfetto")) << csv.err;
    const ProcessResult occupancy =
        run("export", {"--format", "perfetto", kTrace, kOccupancy, "-o", file("t.json")});
    EXPECT_EQ(occupancy.exitCode, 2);
    EXPECT_TRUE(contains(occupancy.err, "original.occupancy: an occupancy file is not exported"))
        << occupancy.err;
    const ProcessResult alone = run("export", {"--format", "perfetto", kCsv, "-o", file("t.json")});
    EXPECT_EQ(alone.exitCode, 2);
    EXPECT_TRUE(contains(alone.err, "1 kernel profile(s) for 0 trace(s)")) << alone.err;
    EXPECT_FALSE(std::filesystem::exists(file("t.json")));
}

TEST_F(ProfileFiles, ExportOfAMalformedProfileWritesNothing) {
    writeFile(file("bad.csv"), "#ProfileFileVersion=5.6\n#API=CUDA\n");
    writeFile(file("t.json"), "old");
    const ProcessResult result =
        run("export", {"--format", "perfetto", kTrace, file("bad.csv"), "-o", file("t.json")});
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_EQ(result.err, "perfmarker export: " + file("bad.csv") +
                              ":2: #API= must be OpenCL or HSA, found 'CUDA'\n"
                              "perfmarker export: nothing written (existing outputs are "
                              "unchanged)\n");
    EXPECT_EQ(readFile(file("t.json")), "old");
}

}  // namespace
