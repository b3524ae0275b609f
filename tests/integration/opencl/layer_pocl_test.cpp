// The layer through the real ICD loader with a real runtime: pocl_vecadd_app runs a vector-add
// kernel on PoCL once without and once with OPENCL_LAYERS naming the layer. Both runs must
// succeed with the same output, and the layer must really be in the process (the loader's
// selftest line and the program's own check), so that a layer the loader silently dropped
// fails the test. A third run records (a session in a scratch directory): the agent's
// fragments must hold every call of the program once, device times for every enqueue, and the
// objects; the program's own checks that queue properties and profiling information are as
// without the layer must pass.
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <map>
#include <set>
#include <vector>
#include <string>
#include <sstream>
#include <iterator>

#include "agent_trace.h"
#include "atp/format/clock_anchors.h"
#include "atp_document.h"
#include "run_process.h"

namespace {

using perfmarker::test::EnvChanges;
using perfmarker::test::ProcessResult;
using perfmarker::test::runProcess;
using perfmarker::test::ScratchDir;

int64_t realtimeNs() {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    return static_cast<int64_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

constexpr char kSelftestLine[] = "perfmarker OpenCL trace layer: initialized:";

ProcessResult runVecAdd(const ScratchDir& scratch, bool withLayer,
                        const std::string& sessionDir = {}) {
    const std::string layer = PERFMARKER_CLTRACEAGENT_PATH;
    EnvChanges env{{"OCL_ICD_VENDORS", PERFMARKER_POCL_ICD},
                   {"OPENCL_VENDOR_PATH", std::nullopt},
                   {"OCL_ICD_FILENAMES", std::nullopt},
                   {"POCL_CACHE_DIR", scratch.path() + "/pocl-cache"},
                   {"PERFMARKER_LAYER_SELFTEST", "1"},
                   {"OPENCL_LAYERS", std::nullopt},
                   {"PERFMARKER_OUTPUT", std::nullopt},
                   {"PERFMARKER_TMPDIR", std::nullopt}};
    if (!sessionDir.empty()) {
        env["PERFMARKER_OUTPUT"] = sessionDir + "/trace";
        env["PERFMARKER_TMPDIR"] = sessionDir;
        env["PERFMARKER_KEEP_FRAGMENTS"] = "1";  // the checks read them; the .atp is written too
    }
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

TEST(LayerPocl, RecordsEveryCallWithDeviceTimesAndObjects) {
    ScratchDir scratch;
    const std::string session = scratch.path() + "/session";
    std::filesystem::create_directory(session);
    const ProcessResult direct = runVecAdd(scratch, false);
    ASSERT_EQ(direct.exitCode, 0) << direct.out << direct.err;
    const ProcessResult recorded = runVecAdd(scratch, true, session);
    ASSERT_EQ(recorded.exitCode, 0) << recorded.out << recorded.err;
    EXPECT_EQ(recorded.out, direct.out);

    const perfmarker::test::AgentTrace trace = perfmarker::test::readAgentTrace(session);
    ASSERT_TRUE(trace.error.empty()) << trace.error;
    std::map<std::string, int> counts;
    for (const auto& call : trace.calls) {
        ++counts[call.name];
        EXPECT_FALSE(call.line.empty()) << call.name << ": " << call.formatError;
    }
    // Every call pocl_vecadd_app makes, once per call (all on its main thread).
    const std::map<std::string, int> expected{
        {"clGetDeviceIDs", 1},        {"clCreateContext", 1},
        {"clCreateCommandQueue", 2},  {"clCreateProgramWithSource", 1},
        {"clBuildProgram", 1},        {"clCreateKernel", 1},
        {"clCreateBuffer", 3},        {"clEnqueueWriteBuffer", 3},
        {"clSetKernelArg", 4},        {"clEnqueueNDRangeKernel", 1},
        {"clWaitForEvents", 1},       {"clGetEventProfilingInfo", 3},
        {"clEnqueueReadBuffer", 1},   {"clFinish", 1},
        {"clReleaseEvent", 4},        {"clGetCommandQueueInfo", 2},
        {"clReleaseCommandQueue", 2}, {"clReleaseMemObject", 3},
        {"clReleaseKernel", 1},       {"clReleaseProgram", 1},
        {"clReleaseContext", 1}};
    for (const auto& [api, n] : expected) EXPECT_EQ(counts[api], n) << api;
    EXPECT_GE(counts["clGetPlatformIDs"], 1);
    std::set<uint64_t> tids;
    for (const auto& call : trace.calls) tids.insert(call.tid);
    EXPECT_EQ(tids.size(), 1u) << "the program makes all its calls on one thread";

    // Each successful enqueue: a nonzero id and its device times, in order.
    size_t enqueues = 0;
    for (const auto& call : trace.calls) {
        if (call.name.rfind("clEnqueue", 0) != 0) continue;
        ++enqueues;
        const uint64_t id = call.view().head.enqueueId;
        ASSERT_NE(id, 0u) << call.line;
        const auto t = std::find_if(trace.deviceTimes.begin(), trace.deviceTimes.end(),
                                    [&](const auto& d) { return d.enqueueId == id; });
        ASSERT_NE(t, trace.deviceTimes.end()) << "no device times for " << call.line;
        EXPECT_EQ(t->status, CL_COMPLETE);
        EXPECT_TRUE(t->queued <= t->submit && t->submit <= t->start && t->start <= t->end)
            << call.line << ": " << t->queued << " " << t->submit << " " << t->start << " "
            << t->end;
        EXPECT_NE(t->end, 0u);
        const uint32_t type = call.name == "clEnqueueNDRangeKernel" ? CL_COMMAND_NDRANGE_KERNEL
                              : call.name == "clEnqueueReadBuffer"  ? CL_COMMAND_READ_BUFFER
                                                                    : CL_COMMAND_WRITE_BUFFER;
        EXPECT_EQ(t->commandType, type) << call.line;
    }
    EXPECT_EQ(enqueues, 5u);
    EXPECT_EQ(trace.deviceTimes.size(), 5u);

    // The queues as the program asked for them; the context, the device and the kernel.
    std::map<uint32_t, int> objects;
    std::vector<uint64_t> queueProperties;
    for (const auto& o : trace.objects) {
        ++objects[o.info.type];
        using perfmarker::record::ObjectType;
        if (o.info.type == static_cast<uint32_t>(ObjectType::Queue)) {
            queueProperties.push_back(o.info.properties);
        }
        if (o.info.type == static_cast<uint32_t>(ObjectType::Kernel)) {
            EXPECT_EQ(o.name, "vadd");
        } else if (o.info.type == static_cast<uint32_t>(ObjectType::Device)) {
            EXPECT_FALSE(o.name.empty());
        }
    }
    EXPECT_EQ(objects[1], 1);  // context
    EXPECT_EQ(objects[2], 2);  // queues
    EXPECT_EQ(objects[3], 1);  // device
    EXPECT_EQ(objects[4], 1);  // kernel
    EXPECT_EQ(queueProperties, (std::vector<uint64_t>{CL_QUEUE_PROFILING_ENABLE, 0}));

    // The program's profiling query on the plain queue's event failed as without the layer.
    const auto notAvailable =
        std::count_if(trace.calls.begin(), trace.calls.end(), [](const auto& c) {
            return c.line.rfind("CL_PROFILING_INFO_NOT_AVAILABLE = clGetEventProfilingInfo", 0) ==
                   0;
        });
    EXPECT_EQ(notAvailable, 1);
}

// The agent writes the process's .atp itself at exit (no launcher): both OpenCL sections with
// the same thread, the same count and matching names line by line, and every enqueue line with
// its device times inside the documented order.
TEST(LayerPocl, AgentWritesTheProcessTraceAtExit) {
    ScratchDir scratch;
    const std::string session = scratch.path() + "/session";
    std::filesystem::create_directory(session);
    const int64_t realtimeBefore = realtimeNs();
    const ProcessResult recorded = runVecAdd(scratch, true, session);
    const int64_t realtimeAfter = realtimeNs();
    ASSERT_EQ(recorded.exitCode, 0) << recorded.out << recorded.err;

    perfmarker::atp::AtpDocument doc;
    std::string error;
    ASSERT_TRUE(perfmarker::atp::loadAtpFile(session + "/trace.atp", doc, error)) << error;
    ASSERT_NE(doc.headerValue("TraceFileVersion"), nullptr);
    EXPECT_EQ(*doc.headerValue("TraceFileVersion"), "3.2");
    // What the process knows about itself (docs/format.md#clock-anchors): its working directory,
    // its host, the clocks when its session started and when it merged, in that order.
    ASSERT_NE(doc.headerValue("WorkingDirectory"), nullptr);
    EXPECT_EQ(*doc.headerValue("WorkingDirectory"), std::filesystem::current_path().string());
    ASSERT_NE(doc.headerValue("HostName"), nullptr);
    EXPECT_EQ(*doc.headerValue("HostName"), perfmarker::atp::localHostName());
    perfmarker::atp::TraceClocks clocks;
    std::string problem;
    for (const char* key : {"ClockAnchorStart", "ClockAnchorEnd"}) {
        ASSERT_NE(doc.headerValue(key), nullptr) << key;
        clocks.take(key, *doc.headerValue(key), problem);
    }
    ASSERT_TRUE(problem.empty()) << problem;
    ASSERT_TRUE(clocks.start && clocks.end);
    EXPECT_LT(clocks.start->monotonic, clocks.end->monotonic);
    // CLOCK_MONOTONIC_RAW keeps pace with CLOCK_MONOTONIC. CLOCK_REALTIME does too unless the
    // host's time service stepped it during the run, which the anchors then report (as they
    // should); either way both realtime anchors lie within the run, as this test's clock saw it.
    const std::string inconsistency = clocks.inconsistency();
    EXPECT_TRUE(inconsistency.empty() || inconsistency.rfind("CLOCK_REALTIME ran ", 0) == 0)
        << inconsistency;
    constexpr int64_t kStepSlackNs = 1000000000;
    for (const auto& anchor : {*clocks.start, *clocks.end}) {
        EXPECT_GE(anchor.realtime, realtimeBefore - kStepSlackNs);
        EXPECT_LE(anchor.realtime, realtimeAfter + kStepSlackNs);
    }
    using perfmarker::atp::SectionKind;
    const auto& api = doc.blocks[SectionKind::OclApiTrace];
    const auto& ts = doc.blocks[SectionKind::OclTimestamp];
    ASSERT_EQ(api.size(), 1u);
    ASSERT_EQ(ts.size(), 1u);
    ASSERT_EQ(api[0].lines.size(), ts[0].lines.size());
    size_t enqueueLines = 0;
    for (size_t i = 0; i < ts[0].lines.size(); ++i) {
        std::istringstream fields(ts[0].lines[i]);
        std::vector<std::string> f{std::istream_iterator<std::string>(fields), {}};
        ASSERT_GE(f.size(), 4u) << ts[0].lines[i];
        EXPECT_NE(api[0].lines[i].find(" = " + f[1] + " ( "), std::string::npos)
            << api[0].lines[i] << " vs " << ts[0].lines[i];
        const uint64_t apiStart = std::stoull(f[2]), apiEnd = std::stoull(f[3]);
        EXPECT_LE(apiStart, apiEnd) << ts[0].lines[i];
        if (f.size() < 10) continue;
        ++enqueueLines;
        const uint64_t queued = std::stoull(f[6]), submit = std::stoull(f[7]),
                       start = std::stoull(f[8]), end = std::stoull(f[9]);
        EXPECT_TRUE(apiStart <= queued && queued <= apiEnd) << ts[0].lines[i];
        EXPECT_TRUE(queued <= submit && submit <= start && start <= end) << ts[0].lines[i];
        if (f[5] == "CL_COMMAND_NDRANGE_KERNEL") {
            EXPECT_NE(ts[0].lines[i].find(" vadd "), std::string::npos) << ts[0].lines[i];
        }
    }
    EXPECT_EQ(enqueueLines, 5u);
}

}  // namespace
