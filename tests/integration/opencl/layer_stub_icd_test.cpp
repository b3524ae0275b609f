// The layer through the real ICD loader, against the stub ICD: the program stub_icd_app runs
// once without and once with OPENCL_LAYERS naming the layer. The stub logs every call it
// receives with its arguments; both logs must be identical and match the committed golden log
// (arguments pass through unchanged), and every call the program makes must reach the stub
// through the layer's wrappers. A third run records (a session in a scratch directory): the
// program's calls still reach the stub unchanged, among the agent's own calls, and the agent's
// fragments hold one record per call, with device times for the enqueues.
//
// PERFMARKER_UPDATE_GOLDEN=1 rewrites the golden log from the run without the layer.
#include <CL/cl.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include "agent_trace.h"
#include "run_process.h"

namespace {

using perfmarker::test::EnvChanges;
using perfmarker::test::ProcessResult;
using perfmarker::test::readFile;
using perfmarker::test::runProcess;
using perfmarker::test::ScratchDir;
using perfmarker::test::writeFile;

constexpr char kSelftestLine[] = "perfmarker OpenCL trace layer: initialized:";

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

bool isHexDigit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }

// Length of the %p value ("0x" and lowercase hex digits) at `pos`, or 0.
size_t hexLengthAt(const std::string& line, size_t pos) {
    if (line.compare(pos, 2, "0x") != 0) return 0;
    size_t end = pos + 2;
    while (end < line.size() && isHexDigit(line[end])) ++end;
    return end > pos + 2 ? end - pos : 0;
}

// Replaces each hex pointer by the label of the "app: <label>=<pointer>" anchor that announced
// it, or by <ptr> (heap and stack addresses differ between runs and builds).
std::vector<std::string> normalize(const std::vector<std::string>& log) {
    std::map<std::string, std::string> labels;
    for (const std::string& line : log) {
        const size_t eq = line.find('=');
        if (line.rfind("app: ", 0) == 0 && eq != std::string::npos &&
            hexLengthAt(line, eq + 1) == line.size() - eq - 1) {
            labels[line.substr(eq + 1)] = "<" + line.substr(5, eq - 5) + ">";
        }
    }
    std::vector<std::string> out;
    for (const std::string& line : log) {
        std::string result;
        for (size_t i = 0; i < line.size();) {
            const size_t n = hexLengthAt(line, i);
            if (n == 0) {
                result += line[i++];
                continue;
            }
            auto label = labels.find(line.substr(i, n));
            result += label != labels.end() ? label->second : "<ptr>";
            i += n;
        }
        out.push_back(result);
    }
    return out;
}

// Index of the first anchor: the lines before it are the loader's own calls at initialization,
// which depend on the loader, not on the program.
size_t firstAnchor(const std::vector<std::string>& log) {
    for (size_t i = 0; i < log.size(); ++i) {
        if (log[i].rfind("app: ", 0) == 0) return i;
    }
    return log.size();
}

struct AppRun {
    ProcessResult process;
    std::vector<std::string> log;      // the stub's log, anchors included
    std::vector<std::string> callers;  // "<api> layer|direct", one per logged call
};

class LayerStubIcd : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        s_scratch = new ScratchDir;
        const std::string vendors = s_scratch->path() + "/vendors";
        std::filesystem::create_directory(vendors);
        writeFile(vendors + "/perfmarker_stub.icd", std::string(PERFMARKER_STUB_ICD_PATH) + "\n");
        s_direct = new AppRun(run(vendors, false, false));
        s_layered = new AppRun(run(vendors, true, false));
        s_recorded = new AppRun(run(vendors, true, true));
    }
    static void TearDownTestSuite() {
        delete s_direct;
        delete s_layered;
        delete s_recorded;
        delete s_scratch;
    }

    static std::string sessionDir() { return s_scratch->path() + "/session"; }

    static AppRun run(const std::string& vendors, bool withLayer, bool record) {
        const std::string tag = record ? "recorded" : withLayer ? "layered" : "direct";
        const std::string log = s_scratch->path() + "/" + tag + ".log";
        const std::string callers = s_scratch->path() + "/" + tag + ".callers";
        const std::string layer = PERFMARKER_CLTRACEAGENT_PATH;
        EnvChanges env{{"OCL_ICD_VENDORS", vendors},
                       {"OPENCL_VENDOR_PATH", std::nullopt},
                       {"OCL_ICD_FILENAMES", std::nullopt},
                       {"PERFMARKER_STUB_ICD_LOG", log},
                       {"PERFMARKER_STUB_ICD_CALLERS", callers},
                       {"PERFMARKER_LAYER_SELFTEST", "1"},
                       {"OPENCL_LAYERS", std::nullopt},
                       {"PERFMARKER_OUTPUT", std::nullopt},
                       {"PERFMARKER_TMPDIR", std::nullopt}};
        if (record) {
            std::filesystem::create_directory(sessionDir());
            env["PERFMARKER_OUTPUT"] = sessionDir() + "/trace";
            env["PERFMARKER_TMPDIR"] = sessionDir();
            env["PERFMARKER_KEEP_FRAGMENTS"] = "1";  // the checks below read them
        }
        std::vector<std::string> argv{PERFMARKER_STUB_APP_PATH};
        if (withLayer) {
            env["OPENCL_LAYERS"] = layer;
            argv.insert(argv.end(), {"--expect-layer", layer});
        }
        AppRun r;
        r.process = runProcess(argv, env, s_scratch->path());
        r.log = lines(readFile(log));
        r.callers = lines(readFile(callers));
        return r;
    }

    static ScratchDir* s_scratch;
    static AppRun* s_direct;
    static AppRun* s_layered;
    static AppRun* s_recorded;
};

ScratchDir* LayerStubIcd::s_scratch = nullptr;
AppRun* LayerStubIcd::s_direct = nullptr;
AppRun* LayerStubIcd::s_layered = nullptr;
AppRun* LayerStubIcd::s_recorded = nullptr;

TEST_F(LayerStubIcd, ProgramSucceedsWithoutTheLayer) {
    EXPECT_EQ(s_direct->process.exitCode, 0) << s_direct->process.err;
    EXPECT_EQ(s_direct->process.err.find(kSelftestLine), std::string::npos);
    EXPECT_GT(firstAnchor(s_direct->log), 0u) << "the loader initialized the stub";
}

TEST_F(LayerStubIcd, ProgramSucceedsWithTheLayerLoaded) {
    EXPECT_EQ(s_layered->process.exitCode, 0) << s_layered->process.err;
    EXPECT_NE(s_layered->process.err.find(kSelftestLine), std::string::npos)
        << "the loader did not initialize the layer; stderr:\n"
        << s_layered->process.err;
}

TEST_F(LayerStubIcd, StubReceivesTheSameCallsWithAndWithoutTheLayer) {
    ASSERT_FALSE(s_direct->log.empty());
    EXPECT_EQ(normalize(s_direct->log), normalize(s_layered->log));
}

TEST_F(LayerStubIcd, StubLogMatchesGoldenLog) {
    const std::vector<std::string> normalized = normalize(s_direct->log);
    const std::vector<std::string> program(normalized.begin() + firstAnchor(normalized),
                                           normalized.end());
    std::string text;
    for (const std::string& line : program) text += line + "\n";
    const char* update = std::getenv("PERFMARKER_UPDATE_GOLDEN");
    if (update != nullptr && std::string(update) == "1") {
        writeFile(PERFMARKER_STUB_GOLDEN_PATH, text);
        GTEST_SKIP() << "golden log rewritten: " << PERFMARKER_STUB_GOLDEN_PATH;
    }
    EXPECT_EQ(text, readFile(PERFMARKER_STUB_GOLDEN_PATH))
        << "to accept the new log: PERFMARKER_UPDATE_GOLDEN=1 ctest -R LayerStubIcd";
}

bool endsWith(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Checked on the recording run: without a session a wrapper tail-calls the next layer and
// leaves no frame on the stack for the stub to see. A paused wrapper of an API with no special
// case tail-calls it too where the compiler makes the call a jump (not under the sanitizers),
// so the program's second clFinish, made while it pauses the agent, may show either way.
TEST_F(LayerStubIcd, ProgramCallsReachTheStubThroughTheLayer) {
    for (const AppRun* r : {s_direct, s_recorded}) {
        const bool layered = r == s_recorded;
        const size_t anchors = std::count_if(r->log.begin(), r->log.end(), [](const auto& line) {
            return line.rfind("app: ", 0) == 0;
        });
        ASSERT_EQ(r->callers.size(), r->log.size() - anchors) << "one caller line per call";
        const size_t loaderCalls = firstAnchor(r->log);
        int finishes = 0;
        for (size_t i = 0; i < r->callers.size(); ++i) {
            const bool paused =
                r->callers[i].rfind("clFinish ", 0) == 0 && ++finishes == 2;
            if (layered && paused) continue;
            // The loader's own calls at initialization happen before it loads any layer.
            const bool expected = layered && i >= loaderCalls;
            EXPECT_EQ(endsWith(r->callers[i], " layer"), expected)
                << (layered ? "with" : "without") << " the layer, call " << i << ": "
                << r->callers[i];
        }
    }
}

// The normalized log of a recording run without the agent's own calls: the queries it makes
// for device times and object names (APIs the program never calls, and its device queries of
// 255 bytes), the reference it holds on each event until that event's callback released it,
// the event it passes down for an enqueue the program asked no event of
// (docs/opencl-trace.md#enqueue-events), and the clFinish before the program's last release of a
// queue.
std::vector<std::string> withoutAgentCalls(const std::vector<std::string>& log) {
    const char* agentOnly[] = {"clRetainEvent(",         "clSetEventCallback(",
                               "clGetEventInfo(",        "clGetEventProfilingInfo(",
                               "clGetCommandQueueInfo(", "clRetainCommandQueue("};
    std::vector<std::string> out;
    bool inCallback = false;
    for (std::string line : log) {
        const bool callback = line.rfind("clSetEventCallback(", 0) == 0;
        const bool agentQuery =
            std::any_of(std::begin(agentOnly), std::end(agentOnly),
                        [&](const char* api) { return line.rfind(api, 0) == 0; }) ||
            (line.rfind("clGetDeviceInfo(", 0) == 0 &&
             (line.find("param_value_size=255,") != std::string::npos ||
              line.find("param_name=4096,") != std::string::npos));
        inCallback = inCallback || callback;
        if (agentQuery) continue;
        if (inCallback && line.rfind("clReleaseEvent(", 0) == 0) {
            inCallback = false;  // the callback's release of the agent's reference
            continue;
        }
        const size_t own = line.find("event=<ptr>) = 0 [event=event#");
        if (line.rfind("clEnqueue", 0) == 0 && own != std::string::npos) {
            line = line.substr(0, own) + "event=NULL) = 0";
        }
        if (line.rfind("clReleaseCommandQueue(", 0) == 0 && !out.empty() &&
            out.back().rfind("clFinish(", 0) == 0) {
            out.pop_back();
        }
        out.push_back(line);
    }
    return out;
}

TEST_F(LayerStubIcd, RecordingPassesTheProgramsCallsThroughUnchanged) {
    ASSERT_EQ(s_recorded->process.exitCode, 0) << s_recorded->process.err;
    const std::vector<std::string> direct = normalize(s_direct->log);
    const std::vector<std::string> recorded = withoutAgentCalls(normalize(s_recorded->log));
    EXPECT_EQ(std::vector<std::string>(recorded.begin() + firstAnchor(recorded), recorded.end()),
              std::vector<std::string>(direct.begin() + firstAnchor(direct), direct.end()));
}

TEST_F(LayerStubIcd, RecordsEachCallOnceWithDeviceTimesAndObjects) {
    ASSERT_EQ(s_recorded->process.exitCode, 0) << s_recorded->process.err;
    const perfmarker::test::AgentTrace trace = perfmarker::test::readAgentTrace(sessionDir());
    ASSERT_TRUE(trace.error.empty()) << trace.error;
    std::vector<std::string> names;
    for (const auto& call : trace.calls) {
        EXPECT_FALSE(call.line.empty()) << call.name << ": " << call.formatError;
        if (call.name != "clGetPlatformIDs") names.push_back(call.name);  // loader-dependent
    }
    // The program's calls after its platform lookup, in order; the clFinish made while the
    // agent was paused is not recorded.
    const std::vector<std::string> expected{
        "clGetPlatformInfo", "clGetPlatformInfo", "clGetDeviceIDs",       "clGetDeviceIDs",
        "clGetDeviceInfo",   "clGetDeviceInfo",   "clCreateContext",      "clCreateCommandQueue",
        "clCreateBuffer",    "clCreateBuffer",    "clEnqueueWriteBuffer", "clEnqueueReadBuffer",
        "clFinish",          "clReleaseEvent",    "clReleaseMemObject",   "clReleaseCommandQueue",
        "clReleaseContext"};
    EXPECT_EQ(names, expected);

    size_t enqueues = 0;
    for (const auto& call : trace.calls) {
        const uint64_t id = call.view().head.enqueueId;
        if (call.name.rfind("clEnqueue", 0) != 0) {
            EXPECT_EQ(id, 0u) << call.name;
            continue;
        }
        ++enqueues;
        ASSERT_NE(id, 0u) << call.line;
        const auto times = std::find_if(trace.deviceTimes.begin(), trace.deviceTimes.end(),
                                        [&](const auto& t) { return t.enqueueId == id; });
        ASSERT_NE(times, trace.deviceTimes.end()) << call.line;
        EXPECT_EQ(times->status, CL_COMPLETE);
        EXPECT_EQ(times->commandType, call.name == "clEnqueueWriteBuffer"
                                          ? uint32_t{CL_COMMAND_WRITE_BUFFER}
                                          : uint32_t{CL_COMMAND_READ_BUFFER});
        EXPECT_TRUE(times->queued > 0 && times->queued <= times->submit &&
                    times->submit <= times->start && times->start <= times->end);
    }
    EXPECT_EQ(enqueues, 2u);
    EXPECT_EQ(trace.deviceTimes.size(), 2u);

    const auto& lines = trace.calls;
    const auto line = [&](const char* api) {
        auto it =
            std::find_if(lines.begin(), lines.end(), [&](const auto& c) { return c.name == api; });
        return it == lines.end() ? std::string() : it->line;
    };
    EXPECT_EQ(line("clGetPlatformInfo").substr(0, 33), "CL_SUCCESS = clGetPlatformInfo ( ");
    EXPECT_NE(line("clGetPlatformInfo")
                  .find(";CL_PLATFORM_NAME;64;[\"perfmarker stub platform\"];[25] )"),
              std::string::npos)
        << line("clGetPlatformInfo");
    EXPECT_NE(line("clEnqueueReadBuffer").find(";CL_TRUE;16;48;"), std::string::npos);
    EXPECT_NE(line("clEnqueueReadBuffer").find(";1;[0x"), std::string::npos);
    EXPECT_NE(line("clEnqueueReadBuffer").find("];NULL )"), std::string::npos)
        << "the program passed no event: " << line("clEnqueueReadBuffer");

    int contexts = 0, queues = 0, devices = 0;
    for (const auto& o : trace.objects) {
        using perfmarker::record::ObjectType;
        const auto type = static_cast<ObjectType>(o.info.type);
        contexts += type == ObjectType::Context;
        queues += type == ObjectType::Queue;
        if (type == ObjectType::Queue) {
            EXPECT_EQ(o.info.properties, uint64_t{CL_QUEUE_PROFILING_ENABLE});
        }
        if (type == ObjectType::Device) {
            ++devices;
            EXPECT_EQ(o.name, "perfmarker stub device");
            EXPECT_EQ(o.info.properties, uint64_t{CL_DEVICE_TYPE_CPU});
        }
    }
    EXPECT_EQ(contexts, 1);
    EXPECT_EQ(queues, 1);
    EXPECT_EQ(devices, 1);
}

}  // namespace
