// `perfmarker profile` on PoCL through the real ICD loader and the profile layer
// (docs/profile.md): the rows of a known application, the counters, the refusals, an
// application without kernels and one that crashes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "run_process.h"

namespace perfmarker::test {
namespace {

namespace fs = std::filesystem;

struct Csv {
    std::vector<std::string> header;  // the `#` lines
    std::vector<std::string> columns;
    std::vector<std::vector<std::string>> rows;
};

std::vector<std::string> splitValues(const std::string& line) {
    std::vector<std::string> values;
    size_t start = 0;
    while (true) {
        const size_t comma = line.find(", ", start);
        values.push_back(line.substr(start, comma == std::string::npos ? comma : comma - start));
        if (comma == std::string::npos) break;
        start = comma + 2;
    }
    return values;
}

Csv readCsv(const std::string& path) {
    Csv csv;
    std::istringstream in(readFile(path));
    for (std::string line; std::getline(in, line);) {
        if (!line.empty() && line[0] == '#') {
            csv.header.push_back(line);
        } else if (csv.columns.empty()) {
            csv.columns = splitValues(line);
        } else {
            csv.rows.push_back(splitValues(line));
        }
    }
    return csv;
}

// "{   1024       1       1}" -> "1024 1 1"
std::string sizes(const std::string& value) {
    std::istringstream in(value.substr(1, value.size() - 2));
    std::string out;
    for (std::string n; in >> n;) out += (out.empty() ? "" : " ") + n;
    return out;
}

class ProfileMode : public ::testing::Test {
protected:
    EnvChanges env() const {
        return {{"OCL_ICD_VENDORS", PERFMARKER_POCL_ICD},
                {"OPENCL_LAYERS", std::nullopt},
                {"PERFMARKER_PROFILE_OUTPUT", std::nullopt},
                {"PERFMARKER_COUNTERS", std::nullopt}};
    }
    ProcessResult profile(std::vector<std::string> options, const std::string& mode = "") {
        std::vector<std::string> argv = {PERFMARKER_CLI_PATH, "profile"};
        argv.insert(argv.end(), options.begin(), options.end());
        argv.push_back("--");
        argv.push_back(PERFMARKER_TWO_KERNELS_APP);
        if (!mode.empty()) argv.push_back(mode);
        return runProcess(argv, env(), scratch.path());
    }
    std::string csvPath() const { return scratch.path() + "/p.csv"; }

    ScratchDir scratch;
};

TEST_F(ProfileMode, SevenDispatchesOfTwoKernelsInExecutionOrder) {
    const ProcessResult plain = runProcess({PERFMARKER_TWO_KERNELS_APP}, env(), scratch.path());
    ASSERT_EQ(plain.exitCode, 0) << plain.err;
    const ProcessResult run = profile({"-o", csvPath()});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    // The application's output is unchanged, the queue's properties it prints included.
    EXPECT_EQ(run.out, plain.out);
    EXPECT_NE(plain.out.find("queue properties: 0\n"), std::string::npos) << plain.out;

    const Csv csv = readCsv(csvPath());
    const std::vector<std::string> keys = {
        "#ProfileFileVersion=5.6",
        "#ProfilerVersion=",
        "#API=OpenCL",
        "#Application=" + std::string(PERFMARKER_TWO_KERNELS_APP),
        "#ApplicationArgs=",
        "#WorkingDirectory=",
        "#Device ",
        "#OS Version=",
        "#DisplayName=",
        "#ListSeparator=,"};
    size_t at = 0;
    for (const std::string& key : keys) {  // each present, in this order
        while (at < csv.header.size() && csv.header[at].rfind(key, 0) != 0) ++at;
        ASSERT_LT(at, csv.header.size()) << "missing or out of order: " << key;
    }
    const std::vector<std::string> first = {"Method",    "ExecutionOrder", "ThreadID",
                                            "CallIndex", "GlobalWorkSize", "WorkGroupSize",
                                            "Time",      "LocalMemSize"};
    ASSERT_GE(csv.columns.size(), first.size());
    EXPECT_EQ(std::vector<std::string>(csv.columns.begin(), csv.columns.begin() + 8), first);
    ASSERT_EQ(csv.rows.size(), 7u);
    for (size_t i = 0; i < csv.rows.size(); ++i) {
        const std::vector<std::string>& row = csv.rows[i];
        ASSERT_EQ(row.size(), csv.columns.size());
        const bool isScale = i < 3;
        EXPECT_EQ(row[0].rfind(isScale ? "scale__k" : "tile_sum__k", 0), 0u) << row[0];
        EXPECT_EQ(row[0].substr(row[0].size() - 4), "_CPU");
        EXPECT_EQ(row[1], std::to_string(i + 1));
        EXPECT_EQ(sizes(row[4]), isScale ? "1024 1 1" : "256 4 1");
        EXPECT_EQ(sizes(row[5]), isScale ? "64 1 1" : "16 2 1");
        EXPECT_GT(std::stod(row[6]), 0.0) << "Time of row " << i + 1;
        if (!isScale) {
            EXPECT_GE(std::stoull(row[7]), 4096u);
        }
    }
    // Call indices grow within the thread; both kernels have one id each.
    EXPECT_LT(std::stoull(csv.rows[0][3]), std::stoull(csv.rows[1][3]));
    EXPECT_EQ(csv.rows[0][0], csv.rows[2][0]);
    EXPECT_EQ(csv.rows[3][0], csv.rows[6][0]);
    EXPECT_NE(csv.rows[0][0], csv.rows[3][0]);
    // The summary of the file names both kernels on its kernel profile page.
    const ProcessResult summary =
        runProcess({PERFMARKER_CLI_PATH, "summary", csvPath()}, env(), scratch.path());
    ASSERT_EQ(summary.exitCode, 0) << summary.err;
    EXPECT_NE(summary.out.find("scale"), std::string::npos) << summary.out;
    EXPECT_NE(summary.out.find("tile_sum"), std::string::npos) << summary.out;
    // Nothing left in the output's directory but the profile.
    for (const auto& entry : fs::directory_iterator(scratch.path())) {
        const std::string name = entry.path().filename().string();
        EXPECT_TRUE(name == "p.csv" || name.rfind("process", 0) == 0) << name;
    }
}

TEST_F(ProfileMode, RowsOfEveryThread) {
    const ProcessResult run = profile({"-o", csvPath()}, "threads");
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const Csv csv = readCsv(csvPath());
    ASSERT_EQ(csv.rows.size(), 7u);
    EXPECT_NE(csv.rows[0][2], csv.rows[3][2]);  // ThreadID: two threads
    for (size_t i = 0; i < 7; ++i) EXPECT_EQ(csv.rows[i][1], std::to_string(i + 1));
}

TEST_F(ProfileMode, CountersAddColumnsCountedOverEachDispatch) {
    const ProcessResult run =
        profile({"-o", csvPath(), "--counters", "task-clock,context-switches"});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const Csv csv = readCsv(csvPath());
    ASSERT_GE(csv.columns.size(), 2u);
    EXPECT_EQ(csv.columns[csv.columns.size() - 2], "task-clock");
    EXPECT_EQ(csv.columns.back(), "context-switches");
    ASSERT_EQ(csv.rows.size(), 7u);
    for (const auto& row : csv.rows) {
        EXPECT_GT(std::stoull(row[row.size() - 2]), 0u) << "task-clock of " << row[1];
    }
}

TEST_F(ProfileMode, ListCountersIncludesTaskClock) {
    const ProcessResult run =
        runProcess({PERFMARKER_CLI_PATH, "profile", "--list-counters"}, env(), scratch.path());
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_NE(("\n" + run.out).find("\ntask-clock\n"), std::string::npos) << run.out;
}

TEST_F(ProfileMode, UnknownCounterIsRefusedBeforeTheApplicationRuns) {
    const ProcessResult run =
        profile({"-o", csvPath(), "--counters", "task-clock,no-such-counter"});
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_NE(run.err.find("no-such-counter"), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("task-clock"), std::string::npos) << "lists the available ones";
    EXPECT_EQ(run.out.find("checksum"), std::string::npos) << "the application ran";
    EXPECT_FALSE(fs::exists(csvPath()));
}

TEST_F(ProfileMode, ApplicationWithoutKernelsGetsTheHeaderAndAMessage) {
    const ProcessResult run = profile({"-o", csvPath()}, "none");
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_NE(run.err.find("dispatched no kernels"), std::string::npos) << run.err;
    const Csv csv = readCsv(csvPath());
    EXPECT_FALSE(csv.header.empty());
    EXPECT_EQ(csv.columns.front(), "Method");
    EXPECT_TRUE(csv.rows.empty());
}

TEST_F(ProfileMode, ApplicationWithoutOpenClGetsTheLaunchersHeader) {
    const ProcessResult run =
        runProcess({PERFMARKER_CLI_PATH, "profile", "-o", csvPath(), "--", "/bin/true"}, env(),
                   scratch.path());
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_NE(run.err.find("dispatched no kernels"), std::string::npos) << run.err;
    const Csv csv = readCsv(csvPath());
    EXPECT_EQ(csv.header.front(), "#ProfileFileVersion=5.6");
    EXPECT_EQ(csv.columns.front(), "Method");
    EXPECT_TRUE(csv.rows.empty());
}

TEST_F(ProfileMode, RowsOfACrashedApplicationAreKept) {
    const ProcessResult run = profile({"-o", csvPath()}, "crash");
    EXPECT_EQ(run.exitCode, 128 + 6);  // SIGABRT, passed through
    EXPECT_NE(run.err.find("ended before it finished its profile"), std::string::npos) << run.err;
    const Csv csv = readCsv(csvPath());
    EXPECT_EQ(csv.columns.front(), "Method");
    ASSERT_EQ(csv.rows.size(), 3u);
    EXPECT_EQ(csv.rows[2][1], "3");
}

TEST_F(ProfileMode, BadEnvAssignmentAndMissingApplicationAreUsageErrors) {
    ProcessResult run = runProcess(
        {PERFMARKER_CLI_PATH, "profile", "-e", "NOVALUE", "--", PERFMARKER_TWO_KERNELS_APP}, env(),
        scratch.path());
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_NE(run.err.find("NAME=VALUE"), std::string::npos) << run.err;
    run = runProcess({PERFMARKER_CLI_PATH, "profile"}, env(), scratch.path());
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_NE(run.err.find("no application"), std::string::npos) << run.err;
    run = runProcess({PERFMARKER_CLI_PATH, "profile", "-o", scratch.path() + "/no/such/p.csv", "--",
                      PERFMARKER_TWO_KERNELS_APP},
                     env(), scratch.path());
    EXPECT_EQ(run.exitCode, 2);
    EXPECT_NE(run.err.find("does not exist"), std::string::npos) << run.err;
}

}  // namespace
}  // namespace perfmarker::test
