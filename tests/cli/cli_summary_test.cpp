// `perfmarker summary` as a user runs it: formats, output file, usage errors (exit 2), bad or
// missing traces and write errors (exit 1, message naming the file).
#include <gtest/gtest.h>

#include <filesystem>

#include "run_process.h"

namespace {

namespace fs = std::filesystem;
using perfmarker::test::ProcessResult;
using perfmarker::test::readFile;
using perfmarker::test::runProcess;
using perfmarker::test::ScratchDir;

const std::string kPerfmarker = PERFMARKER_CLI_PATH;
const std::string kFixtures = PERFMARKER_FIXTURES_DIR;
const std::string kVecadd = kFixtures + "/atp/ocl_vecadd.atp";

class Summary : public ::testing::Test {
protected:
    ProcessResult run(std::vector<std::string> args) {
        args.insert(args.begin(), {kPerfmarker, "summary"});
        return runProcess(args, {}, m_scratch.path());
    }

    ScratchDir m_scratch;
};

TEST_F(Summary, TextToStdout) {
    const ProcessResult result = run({kVecadd});
    EXPECT_EQ(result.exitCode, 0) << result.err;
    EXPECT_EQ(result.out.rfind("API Summary Page\n================\n", 0), 0u);
    EXPECT_NE(result.out.find("Marker Summary Page"), std::string::npos);
    EXPECT_EQ(result.err, "");
}

TEST_F(Summary, EveryFormatMatchesItsGoldenFile) {
    const std::pair<const char*, const char*> formats[] = {
        {"text", "txt"}, {"md", "md"}, {"csv", "csv"}, {"json", "json"}};
    for (const auto& [format, extension] : formats) {
        const std::string out = m_scratch.path() + "/summary." + extension;
        const ProcessResult result = run({kVecadd, "--format", format, "-o", out});
        EXPECT_EQ(result.exitCode, 0) << result.err;
        EXPECT_EQ(result.out, "");
        EXPECT_EQ(readFile(out), readFile(kFixtures + "/golden/summary/ocl_vecadd." + extension))
            << format;
    }
}

TEST_F(Summary, TopAndMaxMessagesOptions) {
    const ProcessResult result = run({kVecadd, "--top", "1", "--max-messages", "1"});
    EXPECT_EQ(result.exitCode, 0) << result.err;
    EXPECT_NE(result.out.find("Top 1 Kernels Page"), std::string::npos);
    EXPECT_NE(result.out.find("Note: Maximum number of messages for RefTracker exceeded"),
              std::string::npos);
}

TEST_F(Summary, SeveralTracesAreSummedUp) {
    const ProcessResult result = run({kVecadd, kFixtures + "/atp/hsa_reduce.atp"});
    EXPECT_EQ(result.exitCode, 0) << result.err;
    EXPECT_EQ(result.out, readFile(kFixtures + "/golden/summary/ocl_and_hsa.txt"));
}

TEST_F(Summary, UsageErrorsExitTwo) {
    EXPECT_EQ(run({}).exitCode, 2);
    EXPECT_EQ(run({kVecadd, "--format", "html"}).exitCode, 2);
    EXPECT_EQ(run({kVecadd, "--top", "0"}).exitCode, 2);
    EXPECT_EQ(run({kVecadd, "--max-messages", "x"}).exitCode, 2);
    EXPECT_EQ(run({kVecadd, "--no-such-flag"}).exitCode, 2);
}

TEST_F(Summary, HelpHasAnExample) {
    const ProcessResult result = run({"--help"});
    EXPECT_EQ(result.exitCode, 0);
    EXPECT_NE(result.out.find("Example:"), std::string::npos);
    EXPECT_NE(result.out.find("--max-messages"), std::string::npos);
}

TEST_F(Summary, MissingTraceNamesTheFile) {
    const std::string missing = m_scratch.path() + "/missing.atp";
    const ProcessResult result = run({kVecadd, missing});
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_NE(result.err.find("perfmarker summary: " + missing), std::string::npos) << result.err;
    EXPECT_EQ(result.out, "");  // nothing half-written
}

TEST_F(Summary, MalformedTraceNamesFileAndLine) {
    const std::string bad = kFixtures + "/atp/bad_count.atp";
    const ProcessResult result = run({bad});
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_NE(result.err.find("perfmarker summary: " + bad + ":41: expected"), std::string::npos)
        << result.err;
}

TEST_F(Summary, ReaderWarningsGoToStderr) {
    const ProcessResult result = run({kFixtures + "/atp/legacy_codexl.atp"});
    EXPECT_EQ(result.exitCode, 0);
    EXPECT_NE(result.err.find("perfmarker summary: warning: "), std::string::npos);
    EXPECT_NE(result.err.find("legacy_codexl.atp:26:"), std::string::npos);
    EXPECT_EQ(result.out, readFile(kFixtures + "/golden/summary/legacy_codexl.txt"));
}

TEST_F(Summary, WriteErrorsAreReported) {
    const std::string noDir = m_scratch.path() + "/no/such/dir/out.txt";
    ProcessResult result = run({kVecadd, "-o", noDir});
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_NE(result.err.find("cannot write " + noDir), std::string::npos) << result.err;

    result = run({kVecadd, "-o", m_scratch.path()});  // a directory
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_NE(result.err.find("cannot write"), std::string::npos) << result.err;

    if (fs::exists("/dev/full")) {  // the disk is full
        result = run({kVecadd, "-o", "/dev/full"});
        EXPECT_EQ(result.exitCode, 1);
        EXPECT_NE(result.err.find("cannot write /dev/full"), std::string::npos) << result.err;
    }
}

}  // namespace
