// The layer through the real ICD loader with a real runtime: pocl_vecadd_app runs a vector-add
// kernel on PoCL once without and once with OPENCL_LAYERS naming the layer. Both runs must
// succeed with the same output, and the layer must really be in the process (the loader's
// selftest line and the program's own check), so that a layer the loader silently dropped
// fails the test.
#include <gtest/gtest.h>

#include "run_process.h"

namespace {

using perfmarker::test::EnvChanges;
using perfmarker::test::ProcessResult;
using perfmarker::test::runProcess;
using perfmarker::test::ScratchDir;

constexpr char kSelftestLine[] = "perfmarker OpenCL trace layer: initialized:";

ProcessResult runVecAdd(const ScratchDir& scratch, bool withLayer) {
    const std::string layer = PERFMARKER_CLTRACEAGENT_PATH;
    EnvChanges env{{"OCL_ICD_VENDORS", PERFMARKER_POCL_ICD},
                   {"OPENCL_VENDOR_PATH", std::nullopt},
                   {"OCL_ICD_FILENAMES", std::nullopt},
                   {"POCL_CACHE_DIR", scratch.path() + "/pocl-cache"},
                   {"PERFMARKER_LAYER_SELFTEST", "1"},
                   {"OPENCL_LAYERS", std::nullopt}};
    std::vector<std::string> argv{PERFMARKER_POCL_APP_PATH};
    if (withLayer) {
        env["OPENCL_LAYERS"] = layer;
        argv.insert(argv.end(), {"--expect-layer", layer});
    }
    return runProcess(argv, env, scratch.path());
}

TEST(LayerPocl, VectorAddGivesTheSameResultsWithTheLayer) {
    ScratchDir scratch;
    const ProcessResult direct = runVecAdd(scratch, false);
    ASSERT_EQ(direct.exitCode, 0) << direct.out << direct.err;
    EXPECT_EQ(direct.err.find(kSelftestLine), std::string::npos);
    EXPECT_EQ(direct.out.rfind("vadd n=65536 wrong=0 sum=", 0), 0u) << direct.out;

    const ProcessResult layered = runVecAdd(scratch, true);
    EXPECT_EQ(layered.exitCode, 0) << layered.out << layered.err;
    EXPECT_NE(layered.err.find(kSelftestLine), std::string::npos)
        << "the loader did not initialize the layer; stderr:\n"
        << layered.err;
    EXPECT_EQ(layered.out, direct.out);
}

}  // namespace
