// The layer through the real ICD loader, against the stub ICD: the program stub_icd_app runs
// once without and once with OPENCL_LAYERS naming the layer. The stub logs every call it
// receives with its arguments; both logs must be identical and match the committed golden log
// (arguments pass through unchanged), and every call the program makes must reach the stub
// through the layer's wrappers.
//
// PERFMARKER_UPDATE_GOLDEN=1 rewrites the golden log from the run without the layer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

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
        s_direct = new AppRun(run(vendors, false));
        s_layered = new AppRun(run(vendors, true));
    }
    static void TearDownTestSuite() {
        delete s_direct;
        delete s_layered;
        delete s_scratch;
    }

    static AppRun run(const std::string& vendors, bool withLayer) {
        const std::string tag = withLayer ? "layered" : "direct";
        const std::string log = s_scratch->path() + "/" + tag + ".log";
        const std::string callers = s_scratch->path() + "/" + tag + ".callers";
        const std::string layer = PERFMARKER_CLTRACEAGENT_PATH;
        EnvChanges env{{"OCL_ICD_VENDORS", vendors},
                       {"OPENCL_VENDOR_PATH", std::nullopt},
                       {"OCL_ICD_FILENAMES", std::nullopt},
                       {"PERFMARKER_STUB_ICD_LOG", log},
                       {"PERFMARKER_STUB_ICD_CALLERS", callers},
                       {"PERFMARKER_LAYER_SELFTEST", "1"},
                       {"OPENCL_LAYERS", std::nullopt}};
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
};

ScratchDir* LayerStubIcd::s_scratch = nullptr;
AppRun* LayerStubIcd::s_direct = nullptr;
AppRun* LayerStubIcd::s_layered = nullptr;

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

TEST_F(LayerStubIcd, ProgramCallsReachTheStubThroughTheLayer) {
    for (const AppRun* r : {s_direct, s_layered}) {
        const bool layered = r == s_layered;
        const size_t anchors = std::count_if(r->log.begin(), r->log.end(), [](const auto& line) {
            return line.rfind("app: ", 0) == 0;
        });
        ASSERT_EQ(r->callers.size(), r->log.size() - anchors) << "one caller line per call";
        const size_t loaderCalls = firstAnchor(r->log);
        for (size_t i = 0; i < r->callers.size(); ++i) {
            // The loader's own calls at initialization happen before it loads any layer.
            const bool expected = layered && i >= loaderCalls;
            EXPECT_EQ(endsWith(r->callers[i], " layer"), expected)
                << (layered ? "with" : "without") << " the layer, call " << i << ": "
                << r->callers[i];
        }
    }
}

}  // namespace
