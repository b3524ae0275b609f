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

// A trace through a pipe (docs/summary.md#reading-from-a-pipe): the same pages as from the file
// (the reader reads the API sections again, from the copy), and errors name /dev/stdin.
TEST_F(Summary, TraceFromAPipe) {
    const auto piped = [&](const std::string& producer, const std::string& args) {
        return runProcess({"/bin/sh", "-c", producer + " | '" + kPerfmarker + "' summary " + args},
                          {}, m_scratch.path());
    };
    const ProcessResult csv = piped("cat '" + kVecadd + "'", "/dev/stdin --format csv");
    EXPECT_EQ(csv.exitCode, 0) << csv.err;
    EXPECT_EQ(csv.out, readFile(kFixtures + "/golden/summary/ocl_vecadd.csv"));
    EXPECT_EQ(csv.err, "");

    const ProcessResult bad = piped("cat '" + kFixtures + "/atp/bad_count.atp'", "/dev/stdin");
    EXPECT_EQ(bad.exitCode, 1);
    EXPECT_NE(bad.err.find("perfmarker summary: /dev/stdin:41: expected"), std::string::npos)
        << bad.err;
    const ProcessResult empty = piped("printf ''", "/dev/stdin");
    EXPECT_EQ(empty.exitCode, 1);
    EXPECT_NE(empty.err.find("/dev/stdin: not a trace: the file is empty"), std::string::npos)
        << empty.err;
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

// Not a trace at all: refused, naming the file, instead of summarised as an empty trace.
TEST_F(Summary, NotATraceIsRefusedNamingTheFile) {
    const std::string empty = m_scratch.path() + "/empty.atp";
    const std::string blank = m_scratch.path() + "/blank.atp";
    const std::string garbage = m_scratch.path() + "/garbage.bin";
    const std::string binary = m_scratch.path() + "/binary.bin";
    perfmarker::test::writeFile(empty, "");
    perfmarker::test::writeFile(blank, "\n   \n\n");
    perfmarker::test::writeFile(garbage, "x=\xff\xfe\n\x80=\x01\n");  // '=' on every line
    perfmarker::test::writeFile(binary, std::string("\x7f"
                                                    "ELF\x02\x01\x01\0\0=\n",
                                                    11));
    const std::pair<std::string, std::string> cases[] = {
        {empty, empty + ": not a trace: the file is empty"},
        {"/dev/null", "/dev/null: not a trace: the file is empty"},
        {blank, blank + ": not a trace: the file holds only blank lines"},
        {garbage, garbage + ": not a trace: no section line and no TraceFileVersion= header line"},
        {binary, binary + ":1: not a trace: expected a header line KEY=VALUE"}};
    for (const auto& [file, message] : cases) {
        const ProcessResult result = run({file});
        EXPECT_EQ(result.exitCode, 1) << file;
        EXPECT_NE(result.err.find("perfmarker summary: " + message), std::string::npos)
            << result.err;
        EXPECT_EQ(result.out, "");
    }
}

TEST_F(Summary, EndsBeforeStartIsNamedAndCounted) {
    const std::string trace = kFixtures + "/atp/end_before_start.atp";
    const ProcessResult result = run({trace});
    EXPECT_EQ(result.exitCode, 0) << result.err;
    EXPECT_NE(result.err.find("perfmarker summary: warning: " + trace +
                              ":20: clEnqueueNDRangeKernel: the command ends (6000400000) before "
                              "it starts (6000500000): its times are left out"),
              std::string::npos)
        << result.err;
    EXPECT_NE(result.err.find(trace + ":21: clFinish: the call ends"), std::string::npos);
    EXPECT_NE(result.out.find("Trace Notes Page"), std::string::npos);
    EXPECT_NE(result.out.find(trace + "  20    clEnqueueNDRangeKernel: the command ends 100000 ns "
                                      "before it starts: left out"),
              std::string::npos)
        << result.out;
    EXPECT_NE(result.out.find("Note: Left out of every page: 2 records that end before they start"),
              std::string::npos);
}

TEST_F(Summary, UnknownDeviceTimesAreLeftOutAndCountedOnce) {
    const std::string trace = kFixtures + "/atp/zero_device_times.atp";
    const ProcessResult result = run({trace, "--format", "csv"});
    EXPECT_EQ(result.exitCode, 0) << result.err;
    const std::string count = trace + ": 2 commands without device times (unknown), left out";
    const size_t at = result.err.find(count);
    EXPECT_NE(at, std::string::npos) << result.err;
    EXPECT_EQ(result.err.find(count, at + 1), std::string::npos);  // once per file
    // Averages agree with the minimums: the unknown kernel is in no count.
    EXPECT_NE(result.out.find("vadd,gfx900,2,0.40000,100.00,0.20000,0.30000,0.10000"),
              std::string::npos)
        << result.out;
}

TEST_F(Summary, ACutTraceSaysSoAndReportsNoLeaks) {
    const std::string trace = kFixtures + "/atp/cut_at_cap.atp";
    const ProcessResult result = run({trace});
    EXPECT_EQ(result.exitCode, 0) << result.err;
    EXPECT_NE(result.err.find(trace + ":6: the trace was cut at the API call cap: 25 API calls"),
              std::string::npos)
        << result.err;
    EXPECT_EQ(result.out.find("Memory leak detected"), std::string::npos) << result.out;
    EXPECT_NE(result.out.find("2 objects still alive at the cut are not reported as leaks"),
              std::string::npos)
        << result.out;
}

TEST_F(Summary, AFailedSummaryLeavesTheOutputFileAsItWas) {
    const std::string out = m_scratch.path() + "/summary.md";
    perfmarker::test::writeFile(out, "old");
    ProcessResult result = run({m_scratch.path() + "/missing.atp", "-o", out});
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_EQ(readFile(out), "old");
    result = run({kVecadd, "-f", "md", "-o", out});
    EXPECT_EQ(result.exitCode, 0) << result.err;
    EXPECT_EQ(readFile(out), readFile(kFixtures + "/golden/summary/ocl_vecadd.md"));
    size_t files = 0;
    for (const auto& entry : fs::directory_iterator(m_scratch.path())) {
        files += entry.path().filename().string().find(".tmp.") != std::string::npos;
    }
    EXPECT_EQ(files, 0u);  // no temporary file left behind
}

}  // namespace
