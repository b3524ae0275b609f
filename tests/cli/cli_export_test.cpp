// `perfmarker export` as a user runs it: usage errors (exit 2), missing and malformed traces
// (exit 1, the message names the file and the line), unwritable outputs (exit 1), default
// output names, and the list of written files on stderr.
#include <gtest/gtest.h>

#include <cctype>
#include <filesystem>

#include "run_process.h"

namespace {

namespace fs = std::filesystem;
using perfmarker::test::ProcessResult;
using perfmarker::test::readFile;
using perfmarker::test::runProcess;
using perfmarker::test::ScratchDir;

const std::string kPerfmarker = PERFMARKER_CLI_PATH;
const std::string kFixtures = PERFMARKER_ATP_FIXTURES;

// True when `text` holds "<file>:<line>: ".
bool namesFileAndLine(const std::string& text, const std::string& file) {
    for (size_t at = text.find(file + ":"); at != std::string::npos;
         at = text.find(file + ":", at + 1)) {
        size_t digits = at + file.size() + 1;
        const size_t first = digits;
        while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) {
            ++digits;
        }
        if (digits > first && text.compare(digits, 2, ": ") == 0) return true;
    }
    return false;
}

class ExportCli : public ::testing::Test {
protected:
    ProcessResult run(std::vector<std::string> args) {
        args.insert(args.begin(), {kPerfmarker, "export"});
        return runProcess(args, {}, m_scratch.path());
    }
    // A copy of a fixture in the scratch directory (the default outputs go next to it).
    std::string fixture(const std::string& name) {
        const std::string copy = m_scratch.path() + "/" + name;
        fs::copy_file(kFixtures + "/" + name, copy, fs::copy_options::overwrite_existing);
        return copy;
    }
    ScratchDir m_scratch;
};

TEST_F(ExportCli, UsageErrorsExitWithTwo) {
    const std::string trace = fixture("ocl_vecadd.atp");
    EXPECT_EQ(run({trace}).exitCode, 2);                     // no --format
    EXPECT_EQ(run({"--format", "svg", trace}).exitCode, 2);  // unknown format
    EXPECT_EQ(run({"--format", "perfetto"}).exitCode, 2);    // no trace
    EXPECT_EQ(run({"--format", "perfetto", "--max-file-mb", "0", trace}).exitCode, 2);
    const ProcessResult bad = run({"--format", "svg", trace});
    EXPECT_NE(bad.err.find("svg"), std::string::npos) << bad.err;
}

TEST_F(ExportCli, MissingTraceNamesTheFile) {
    const std::string missing = m_scratch.path() + "/absent.atp";
    const ProcessResult result = run({"--format", "csv", missing});
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_NE(result.err.find("absent.atp"), std::string::npos) << result.err;
}

TEST_F(ExportCli, MalformedTraceNamesFileAndLine) {
    const std::string trace = fixture("bad_count.atp");
    const ProcessResult result =
        run({"--format", "perfetto", trace, "-o", m_scratch.path() + "/bad.json"});
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_TRUE(namesFileAndLine(result.err, "bad_count.atp")) << result.err;
}

TEST_F(ExportCli, UnwritableOutputFails) {
    const std::string trace = fixture("ocl_vecadd.atp");
    const std::string out = m_scratch.path() + "/no/such/dir/t.json";
    const ProcessResult result = run({"--format", "perfetto", trace, "-o", out});
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_NE(result.err.find(out), std::string::npos) << result.err;
    const ProcessResult csv =
        run({"--format", "csv", trace, "-o", m_scratch.path() + "/no/such/base"});
    EXPECT_EQ(csv.exitCode, 1);
    EXPECT_NE(csv.err.find("no/such/base-api.csv"), std::string::npos) << csv.err;
}

TEST_F(ExportCli, PerfettoDefaultOutputAndSplit) {
    const std::string trace = fixture("ocl_vecadd.atp");
    const ProcessResult result = run({"--format", "perfetto", trace});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    const std::string json = m_scratch.path() + "/ocl_vecadd.json";
    EXPECT_TRUE(fs::exists(json));
    EXPECT_NE(result.err.find("wrote " + json), std::string::npos) << result.err;
    EXPECT_EQ(readFile(json).rfind("{\"displayTimeUnit\"", 0), 0u);

    const ProcessResult split = run({"--format", "perfetto", "--max-file-mb", "0.004", trace, "-o",
                                     m_scratch.path() + "/s.json"});
    ASSERT_EQ(split.exitCode, 0) << split.err;
    EXPECT_TRUE(fs::exists(m_scratch.path() + "/s-2.json"));
    EXPECT_NE(split.err.find("wrote " + m_scratch.path() + "/s-2.json"), std::string::npos);
}

TEST_F(ExportCli, VtuneAndCsvIntoADirectory) {
    const std::string trace = fixture("ocl_vecadd.atp");
    const std::string dir = m_scratch.path() + "/out";
    fs::create_directories(dir);
    ProcessResult result = run({"--format", "vtune", "--hostname", "box1", trace, "-o", dir});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_TRUE(fs::exists(dir + "/ocl_vecadd-markers-hostname-box1.csv")) << result.err;
    EXPECT_TRUE(fs::exists(dir + "/ocl_vecadd-kernels-hostname-box1.csv"));
    result = run({"--format", "csv", trace, "-o", dir + "/"});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    for (const char* table : {"api", "enqueues", "markers"}) {
        EXPECT_TRUE(fs::exists(dir + "/ocl_vecadd-" + table + ".csv")) << table;
    }
}

}  // namespace
