// The launcher's pure pieces: flags derived from the session options table, output names,
// command lookup, OPENCL_LAYERS merging and session file names.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "cli/agent_options.h"
#include "cli/opencl_layers.h"
#include "cli/paths.h"
#include "atp/merge/collect.h"

namespace {

using namespace perfmarker::cli;
namespace fs = std::filesystem;

TEST(AgentOptions, EveryTableOptionHasAKnownKindAndAUniqueFlag) {
    std::set<std::string> flags;
    for (const AgentOption& option : agentOptions()) {
        // A new kind in session_options.inc works as a value flag, but decide its metavar and
        // style in agent_options.cpp.
        EXPECT_TRUE(option.knownKind) << option.env << " has kind " << option.kind;
        EXPECT_TRUE(flags.insert(option.flag).second) << "two options give --" << option.flag;
    }
}

TEST(AgentOptions, LauncherOwnsTheOutputAndTheTempDir) {
    ASSERT_NE(optionByField("outputBase"), nullptr);
    ASSERT_NE(optionByField("tempDir"), nullptr);
    EXPECT_EQ(optionByField("outputBase")->style, FlagStyle::Launcher);
    EXPECT_EQ(optionByField("tempDir")->style, FlagStyle::Launcher);
    EXPECT_EQ(optionByEnv("PERFMARKER_MODE")->flag, "mode");
    EXPECT_EQ(optionByEnv("PERFMARKER_INTERVAL_MS")->flag, "interval");
    EXPECT_EQ(optionByEnv("NOT_A_SESSION_VARIABLE"), nullptr);
}

// The flags of the launcher's command line (the brief of `perfmarker trace`), when the table
// has their variables.
TEST(AgentOptions, FlagNamesFollowTheVariableNames) {
    const std::map<std::string, std::pair<std::string, FlagStyle>> expected = {
        {"apiFilterFile", {"api-filter", FlagStyle::Value}},
        {"maxApiCalls", {"max-api-calls", FlagStyle::Value}},
        {"collapse", {"no-collapse", FlagStyle::SetsZero}},
        {"startDisabled", {"start-disabled", FlagStyle::SetsOne}},
        {"delayMs", {"delay", FlagStyle::Value}},
        {"durationMs", {"duration", FlagStyle::Value}},
    };
    for (const auto& [field, flagAndStyle] : expected) {
        const AgentOption* option = optionByField(field);
        if (option == nullptr) continue;  // not in this table yet
        EXPECT_EQ(option->flag, flagAndStyle.first) << field;
        EXPECT_EQ(option->style, flagAndStyle.second) << field;
    }
}

// What a switch sets must be what the libraries accept, and the opposite of the default.
TEST(AgentOptions, SwitchValuesAreAcceptedByTheSessionReader) {
    for (const AgentOption& option : agentOptions()) {
        if (option.style != FlagStyle::SetsOne && option.style != FlagStyle::SetsZero) continue;
        const std::string value = option.style == FlagStyle::SetsOne ? "1" : "0";
        EXPECT_NE(value, option.defaultValue) << option.env;
        EnvValues values{{optionByField("outputBase")->env, "/tmp/x"}, {option.env, value}};
        EXPECT_EQ(validateSessionValues(values), "") << option.env;
    }
}

TEST(AgentOptions, BadValuesAreReportedWithTheVariable) {
    EnvValues values{{"PERFMARKER_OUTPUT", "/tmp/x"}, {"PERFMARKER_MODE", "sometimes"}};
    EXPECT_NE(validateSessionValues(values).find("PERFMARKER_MODE='sometimes'"), std::string::npos);
    values["PERFMARKER_MODE"] = "cached";
    EXPECT_EQ(validateSessionValues(values), "");
}

TEST(OutputPath, ExtensionBecomesAtp) {
    EXPECT_EQ(normalizeOutputPath("/t/run.atp"), "/t/run.atp");
    EXPECT_EQ(normalizeOutputPath("/t/run.csv"), "/t/run.atp");
    EXPECT_EQ(normalizeOutputPath("/t/run"), "/t/run.atp");
    EXPECT_EQ(normalizeOutputPath("/t/run.___PID___"), "/t/run.___PID___.atp");
    EXPECT_EQ(normalizeOutputPath("/t/dir/"), "/t/dir/apitrace.atp");
    EXPECT_EQ(normalizeOutputPath(""), (fs::current_path() / "apitrace.atp").string());
    EXPECT_EQ(normalizeOutputPath("sub/../x.trace"), (fs::current_path() / "x.atp").string());
}

TEST(OutputPath, EachProcessGetsItsOwnName) {
    EXPECT_EQ(processOutputPath("/t/run.atp", 42, true, "atp"), "/t/run.atp");
    EXPECT_EQ(processOutputPath("/t/run.atp", 43, false, "atp"), "/t/run.43.atp");
    EXPECT_EQ(processOutputPath("/t/run.atp", 42, true, "clperfmarker"), "/t/run.clperfmarker");
    EXPECT_EQ(processOutputPath("/t/run____PID___.atp", 42, true, "atp"), "/t/run_42.atp");
    EXPECT_EQ(processOutputPath("/t/run____PID___.atp", 43, false, "atp"), "/t/run_43.atp");
}

TEST(SessionFiles, OnlyFinalPerProcessFilesMatch) {
    std::string ext;
    EXPECT_EQ(perfmarker::atp::sessionFilePid("trace.4242.atp", ext), 4242);
    EXPECT_EQ(ext, "atp");
    EXPECT_EQ(perfmarker::atp::sessionFilePid("trace.7.amdtperfmarker", ext), 7);
    EXPECT_EQ(ext, "amdtperfmarker");
    EXPECT_EQ(perfmarker::atp::sessionFilePid("trace.7.clperfmarker.tmp7", ext), -1);
    EXPECT_EQ(perfmarker::atp::sessionFilePid("trace.x.atp", ext), -1);
    EXPECT_EQ(perfmarker::atp::sessionFilePid("trace.7", ext), -1);
    EXPECT_EQ(perfmarker::atp::sessionFilePid("7_8_0.ocl.frag", ext), -1);
    EXPECT_EQ(perfmarker::atp::sessionFilePid("other.7.atp", ext), -1);
}

class ScratchDirTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "perfmarker-cli-unit-XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        m_dir = pattern;
    }
    void TearDown() override { fs::remove_all(m_dir); }
    std::string makeFile(const std::string& name, mode_t mode) {
        const std::string path = m_dir + "/" + name;
        std::ofstream(path) << "#!/bin/sh\n";
        chmod(path.c_str(), mode);
        return path;
    }
    std::string m_dir;
};

TEST_F(ScratchDirTest, CommandsAreFoundLikeAShellDoes) {
    makeFile("tool", 0755);
    makeFile("plain", 0644);
    EXPECT_EQ(resolveCommand("tool", "/nonexistent:" + m_dir).path, m_dir + "/tool");
    const ResolvedCommand notExecutable = resolveCommand("plain", m_dir);
    EXPECT_EQ(notExecutable.exitCode, 126);
    EXPECT_NE(notExecutable.error.find("Permission denied"), std::string::npos);
    EXPECT_EQ(resolveCommand("missing", m_dir).exitCode, 127);
    EXPECT_EQ(resolveCommand("missing", m_dir).error, "missing: command not found");
    EXPECT_EQ(resolveCommand(m_dir + "/missing", "").exitCode, 127);
    EXPECT_EQ(resolveCommand(m_dir + "/plain", "").exitCode, 126);
    EXPECT_EQ(resolveCommand(m_dir, "").exitCode, 126);  // a directory
    EXPECT_EQ(resolveCommand(m_dir + "/tool", "").path, m_dir + "/tool");
}

TEST_F(ScratchDirTest, AgentIsFoundThroughTheOverrideOnly) {
    const AgentLocation missing = locateAgent(m_dir.c_str(), "/usr/bin/perfmarker");
    EXPECT_EQ(missing.path, "");
    ASSERT_EQ(missing.searched.size(), 1u);
    EXPECT_EQ(missing.searched[0], m_dir + "/" + kAgentFileName);
    makeFile(kAgentFileName, 0644);
    EXPECT_EQ(locateAgent(m_dir.c_str(), "/usr/bin/perfmarker").path, m_dir + "/" + kAgentFileName);
}

TEST_F(ScratchDirTest, AgentIsFoundInTheInstalledLayout) {
    const fs::path agentDir =
        (fs::path(m_dir) / "bin" / PERFMARKER_AGENT_RELATIVE_DIR).lexically_normal();
    fs::create_directories(m_dir + "/bin");
    fs::create_directories(agentDir);
    const std::string agent = (agentDir / kAgentFileName).string();
    std::ofstream(agent) << "";
    EXPECT_EQ(locateAgent(nullptr, m_dir + "/bin/perfmarker").path, agent);
}

TEST(OpenClLayers, OursComesFirstAndOnlyOnce) {
    const std::string ours = "/opt/pm/lib/perfmarker/libCLTraceAgent.so";
    EXPECT_EQ(mergeOpenClLayers(ours, nullptr), ours);
    EXPECT_EQ(mergeOpenClLayers(ours, ""), ours);
    EXPECT_EQ(mergeOpenClLayers(ours, "/a/libA.so"), ours + ":/a/libA.so");
    EXPECT_EQ(mergeOpenClLayers(ours, "/a/libA.so::/b/libB.so:"), ours + ":/a/libA.so:/b/libB.so");
    EXPECT_EQ(mergeOpenClLayers(ours, (ours + ":/a/libA.so").c_str()), ours + ":/a/libA.so");
    EXPECT_EQ(mergeOpenClLayers(ours, "/a/libA.so:/old/build/libCLTraceAgent.so"),
              ours + ":/a/libA.so");
}

}  // namespace
