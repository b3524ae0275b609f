// The OpenCL samples on PoCL, run directly and under `perfmarker trace`: the same stdout and
// exit status both ways, the trace agent really loaded under the launcher, and the run's files
// where the launcher says. Once the merge step is wired (PERFMARKER_CLI_MERGE_WIRED), the trace
// itself is checked too.
#include <gtest/gtest.h>

#include <filesystem>

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
};

void PrintTo(const Sample& sample, std::ostream* out) {
    *out << fs::path(sample.path).filename().string();
}

const Sample kSamples[] = {
    {PERFMARKER_VECADD_PATH, "clperfmarker", "vecadd n=1048576 wrong=0 "},
    {PERFMARKER_MULTIQUEUE_PATH, "amdtperfmarker", "lane 0: rounds=3 wrong=0 "},
};

class SamplesUnderTheLauncher : public ::testing::TestWithParam<Sample> {
protected:
    EnvChanges env() const {
        return {{"OCL_ICD_VENDORS", PERFMARKER_POCL_ICD},
                {"OPENCL_VENDOR_PATH", std::nullopt},
                {"OCL_ICD_FILENAMES", std::nullopt},
                {"OPENCL_LAYERS", std::nullopt},
                {"POCL_CACHE_DIR", m_scratch.path() + "/pocl-cache"},
                {"PERFMARKER_LAYER_SELFTEST", "1"},
                {"PERFMARKER_AGENT_DIR", std::nullopt},
                {"PERFMARKER_OUTPUT", std::nullopt},
                {"PERFMARKER_TMPDIR", std::nullopt}};
    }
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
#if PERFMARKER_CLI_MERGE_WIRED
    EXPECT_TRUE(sessions.empty()) << "session directory left behind; stderr:\n" << traced.err;
    const std::string atp = readFile(output);
    EXPECT_EQ(atp.rfind("TraceFileVersion=3.2\n", 0), 0u) << atp.substr(0, 200);
    EXPECT_NE(atp.find("=====ocl API Trace Output====="), std::string::npos);
    EXPECT_NE(atp.find("=====Perfmarker Output====="), std::string::npos);
#else
    // Until the merge step is wired, the agent's fragments stay in the session directory (and
    // the launcher says so), and the marker library's own file is moved to the output.
    for (const fs::path& session : sessions) {
        for (const auto& entry : fs::directory_iterator(session)) {
            EXPECT_EQ(entry.path().extension(), ".frag") << entry.path();
        }
        EXPECT_NE(traced.err.find("no merge step"), std::string::npos) << traced.err;
    }
    const std::string markers = m_scratch.path() + "/sample." + std::string(sample.markerExtension);
    EXPECT_EQ(readFile(markers).rfind("=====Perfmarker Output=====", 0), 0u) << traced.err;
#endif
}

INSTANTIATE_TEST_SUITE_P(OpenCl, SamplesUnderTheLauncher, ::testing::ValuesIn(kSamples),
                         [](const ::testing::TestParamInfo<Sample>& info) {
                             return fs::path(info.param.path).filename().string();
                         });

}  // namespace
