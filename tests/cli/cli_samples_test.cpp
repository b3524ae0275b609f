// The OpenCL samples on PoCL, run directly and under `perfmarker trace`: the same stdout and
// exit status both ways, the trace agent really loaded under the launcher, and the run's files
// where the launcher says, with the trace itself checked.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <csignal>
#include <filesystem>
#include <string>
#include <vector>

#include "run_process.h"

namespace {

namespace fs = std::filesystem;
using perfmarker::test::EnvChanges;
using perfmarker::test::ProcessResult;
using perfmarker::test::readFile;
using perfmarker::test::runProcess;
using perfmarker::test::ScratchDir;

constexpr char kSelftestLine[] = "perfmarker OpenCL trace layer: initialized:";

struct Sample {
    const char* path;
    const char* markerExtension;  // the marker file the sample's library writes
    const char* firstLine;        // start of its stdout
    const char* kernel;           // the kernel it enqueues
    const char* marker;           // one marker name it records
};

void PrintTo(const Sample& sample, std::ostream* out) {
    *out << fs::path(sample.path).filename().string();
}

const Sample kSamples[] = {
    {PERFMARKER_VECADD_PATH, "clperfmarker", "vecadd n=1048576 wrong=0 ", "vadd", "Setup"},
    {PERFMARKER_MULTIQUEUE_PATH, "amdtperfmarker", "lane 0: rounds=3 wrong=0 ", "axpb", "Setup"},
};

// PoCL through the real loader, the layer's self-test line on, and no session or layer from
// the caller's environment.
EnvChanges launcherEnv(const ScratchDir& scratch) {
    return {{"OCL_ICD_VENDORS", PERFMARKER_POCL_ICD},
            {"OPENCL_VENDOR_PATH", std::nullopt},
            {"OCL_ICD_FILENAMES", std::nullopt},
            {"OPENCL_LAYERS", std::nullopt},
            {"POCL_CACHE_DIR", scratch.path() + "/pocl-cache"},
            {"PERFMARKER_LAYER_SELFTEST", "1"},
            {"PERFMARKER_AGENT_DIR", std::nullopt},
            {"PERFMARKER_OUTPUT", std::nullopt},
            {"PERFMARKER_TMPDIR", std::nullopt}};
}

class SamplesUnderTheLauncher : public ::testing::TestWithParam<Sample> {
protected:
    EnvChanges env() const { return launcherEnv(m_scratch); }
    ScratchDir m_scratch;
};

TEST_P(SamplesUnderTheLauncher, SameOutputAndStatusWithAndWithoutTheTracer) {
    const Sample& sample = GetParam();
    const ProcessResult direct = runProcess({sample.path}, env(), m_scratch.path());
    ASSERT_EQ(direct.exitCode, 0) << direct.err;
    EXPECT_EQ(direct.out.rfind(sample.firstLine, 0), 0u) << direct.out;
    EXPECT_EQ(direct.err.find(kSelftestLine), std::string::npos);

    const std::string output = m_scratch.path() + "/sample.atp";
    const ProcessResult traced = runProcess(
        {PERFMARKER_CLI_PATH, "trace", "-o", output, "--", sample.path}, env(), m_scratch.path());
    EXPECT_EQ(traced.exitCode, direct.exitCode) << traced.err;
    EXPECT_EQ(traced.out, direct.out);
    EXPECT_NE(traced.err.find(kSelftestLine), std::string::npos)
        << "the loader did not take the agent; stderr:\n"
        << traced.err;

    std::vector<fs::path> sessions;
    for (const auto& entry : fs::directory_iterator(m_scratch.path())) {
        if (entry.path().filename().string().rfind("perfmarker-session.", 0) == 0) {
            sessions.push_back(entry.path());
        }
    }
    EXPECT_TRUE(sessions.empty()) << "session directory left behind; stderr:\n" << traced.err;
    const std::string atp = readFile(output);
    EXPECT_EQ(atp.rfind("TraceFileVersion=3.2\n", 0), 0u) << atp.substr(0, 200);
    EXPECT_NE(atp.find("=====ocl API Trace Output====="), std::string::npos);
    EXPECT_NE(atp.find("=====Perfmarker Output====="), std::string::npos);
}

// The rows of the summary table `id` in `perfmarker summary --format json` output.
std::vector<nlohmann::json> summaryRows(const nlohmann::json& summary, const std::string& id) {
    for (const nlohmann::json& table : summary.at("tables")) {
        if (table.at("id") == id) return table.at("rows").get<std::vector<nlohmann::json>>();
    }
    return {};
}

bool anyRowStartsWith(const std::vector<nlohmann::json>& rows, const std::string& first) {
    for (const nlohmann::json& row : rows) {
        if (!row.empty() && row[0] == first) return true;
    }
    return false;
}

// The tools read what the agent wrote: summary (JSON), Perfetto export and the HTML report of a
// sample's trace name its kernel and its markers.
TEST_P(SamplesUnderTheLauncher, ToolsReadTheAgentsTrace) {
    const Sample& sample = GetParam();
    const std::string trace = m_scratch.path() + "/sample.atp";
    const ProcessResult traced = runProcess(
        {PERFMARKER_CLI_PATH, "trace", "-o", trace, "--", sample.path}, env(), m_scratch.path());
    ASSERT_EQ(traced.exitCode, 0) << traced.err;

    const ProcessResult summary = runProcess(
        {PERFMARKER_CLI_PATH, "summary", "--format", "json", trace}, env(), m_scratch.path());
    ASSERT_EQ(summary.exitCode, 0) << summary.err;
    const nlohmann::json pages = nlohmann::json::parse(summary.out);
    EXPECT_TRUE(anyRowStartsWith(summaryRows(pages, "CLKernelSummary"), sample.kernel))
        << summary.out.substr(0, 2000);
    EXPECT_TRUE(anyRowStartsWith(summaryRows(pages, "CLAPISummary"), "clEnqueueNDRangeKernel"));
    EXPECT_TRUE(anyRowStartsWith(summaryRows(pages, "MarkerSummary"), sample.marker));

    const std::string json = m_scratch.path() + "/sample.json";
    const ProcessResult perfetto =
        runProcess({PERFMARKER_CLI_PATH, "export", "--format", "perfetto", trace, "-o", json},
                   env(), m_scratch.path());
    ASSERT_EQ(perfetto.exitCode, 0) << perfetto.err;
    const nlohmann::json timeline = nlohmann::json::parse(readFile(json));
    size_t kernels = 0;
    size_t markers = 0;
    for (const nlohmann::json& event : timeline.at("traceEvents")) {
        if (!event.contains("name") || event.value("ph", "") != "X") continue;
        if (event["name"] == sample.kernel) ++kernels;
        if (event["name"] == sample.marker) ++markers;
    }
    EXPECT_GT(kernels, 0u);
    EXPECT_GT(markers, 0u);

    const std::string html = m_scratch.path() + "/sample.html";
    const ProcessResult report = runProcess(
        {PERFMARKER_CLI_PATH, "report", trace, "-o", html}, env(), m_scratch.path());
    ASSERT_EQ(report.exitCode, 0) << report.err;
    const std::string page = readFile(html);
    EXPECT_NE(page.find(sample.kernel), std::string::npos);
    EXPECT_NE(page.find("clEnqueueNDRangeKernel"), std::string::npos);
}

// pyopencl, a client we did not write, gives the same output and status under the tracer, and
// its calls are in the trace. It needs Debian's python3-pyopencl in /usr/bin/python3, and an
// uninstrumented process: a sanitizer build's agent cannot load into the system interpreter.
TEST(PyOpenClUnderTheLauncher, SameOutputAndStatusWithAndWithoutTheTracer) {
    ScratchDir scratch;
#if PERFMARKER_SANITIZED_BUILD
    GTEST_SKIP() << "the sanitizer build's agent cannot load into /usr/bin/python3";
#endif
    const std::vector<std::string> app{"/usr/bin/python3", PERFMARKER_PYOPENCL_SCRIPT};
    const ProcessResult probe = runProcess({"/usr/bin/python3", "-c", "import pyopencl"},
                                           launcherEnv(scratch), scratch.path());
    if (probe.exitCode != 0) GTEST_SKIP() << "python3-pyopencl is not installed";
    const ProcessResult direct = runProcess(app, launcherEnv(scratch), scratch.path());
    ASSERT_EQ(direct.exitCode, 0) << direct.err;
    EXPECT_EQ(direct.out.rfind("pyopencl vadd n=65536 wrong=0 ", 0), 0u) << direct.out;

    const std::string output = scratch.path() + "/py.atp";
    std::vector<std::string> traced{PERFMARKER_CLI_PATH, "trace", "-o", output, "--"};
    traced.insert(traced.end(), app.begin(), app.end());
    const ProcessResult run = runProcess(traced, launcherEnv(scratch), scratch.path());
    EXPECT_EQ(run.exitCode, direct.exitCode) << run.err;
    EXPECT_EQ(run.out, direct.out);
    const std::string atp = readFile(output);
    EXPECT_EQ(atp.rfind("TraceFileVersion=3.2\n", 0), 0u) << run.err;
    for (const char* api : {"clBuildProgram", "clEnqueueNDRangeKernel", "clCreateBuffer"}) {
        EXPECT_NE(atp.find(std::string(" = ") + api + " ( "), std::string::npos) << api;
    }
    EXPECT_NE(atp.find("CL_COMMAND_NDRANGE_KERNEL"), std::string::npos);
}

// An application that aborts (no exit handler runs, the agent never merges) still leaves a
// trace: what the agent flushed every interval is merged by the launcher, which forwards the
// crash as 128 + SIGABRT.
TEST(CrashUnderTheLauncher, FlushedCallsAreMergedAfterAnAbort) {
    ScratchDir scratch;
    EnvChanges env = launcherEnv(scratch);
    env["PERFMARKER_TEST_CRASH_AFTER_MS"] = "400";
    const std::string output = scratch.path() + "/crash.atp";
    const ProcessResult run = runProcess({PERFMARKER_CLI_PATH, "trace", "--interval", "10", "-o",
                                          output, "--", PERFMARKER_POCL_APP_PATH},
                                         env, scratch.path());
    EXPECT_EQ(run.exitCode, 128 + SIGABRT) << run.err;
    const std::string atp = readFile(output);
    EXPECT_EQ(atp.rfind("TraceFileVersion=3.2\n", 0), 0u) << run.err;
    // Everything the program called before it aborted (its releases would come after).
    for (const char* api : {"clCreateContext", "clBuildProgram", "clEnqueueNDRangeKernel",
                            "clEnqueueReadBuffer", "clGetEventProfilingInfo"}) {
        EXPECT_NE(atp.find(std::string(" = ") + api + " ( "), std::string::npos) << api;
    }
    EXPECT_NE(atp.find("CL_COMMAND_NDRANGE_KERNEL"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(OpenCl, SamplesUnderTheLauncher, ::testing::ValuesIn(kSamples),
                         [](const ::testing::TestParamInfo<Sample>& info) {
                             return fs::path(info.param.path).filename().string();
                         });

}  // namespace
