// `perfmarker` as a user runs it: command-line errors and their exit statuses, exit status
// forwarding, the environment the application gets, the session directory, signal forwarding,
// and `perfmarker merge`. The application is cli_probe_app; the agent is a placeholder file
// named through PERFMARKER_AGENT_DIR (the probe never loads OpenCL).
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "run_process.h"

namespace {

namespace fs = std::filesystem;
using perfmarker::test::EnvChanges;
using perfmarker::test::ProcessResult;
using perfmarker::test::readFile;
using perfmarker::test::runProcess;
using perfmarker::test::ScratchDir;
using perfmarker::test::writeFile;

const std::string kPerfmarker = PERFMARKER_CLI_PATH;
const std::string kProbe = PERFMARKER_PROBE_APP_PATH;

class Launcher : public ::testing::Test {
protected:
    void SetUp() override {
        m_agentDir = m_scratch.path() + "/agent";
        fs::create_directories(m_agentDir);
        m_agent = m_agentDir + "/libCLTraceAgent.so";
        writeFile(m_agent, "");
        m_out = m_scratch.path() + "/out";
        fs::create_directories(m_out);
    }

    EnvChanges baseEnv() const {
        return {{"PERFMARKER_AGENT_DIR", m_agentDir},
                {"OPENCL_LAYERS", std::nullopt},
                {"PERFMARKER_OUTPUT", std::nullopt},
                {"PERFMARKER_TMPDIR", std::nullopt}};
    }

    ProcessResult run(std::vector<std::string> args, EnvChanges env = {}) {
        EnvChanges all = baseEnv();
        for (auto& [name, value] : env) all[name] = value;
        args.insert(args.begin(), kPerfmarker);
        return runProcess(args, all, m_scratch.path());
    }

    // `perfmarker trace -o <out>/t.atp -- probe <probe args>`
    ProcessResult trace(std::vector<std::string> probeArgs, EnvChanges env = {}) {
        std::vector<std::string> args{"trace", "-o", m_out + "/t.atp", "--", kProbe};
        args.insert(args.end(), probeArgs.begin(), probeArgs.end());
        return run(args, env);
    }

    std::vector<std::string> outDirEntries() const {
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(m_out)) {
            names.push_back(entry.path().filename().string());
        }
        std::sort(names.begin(), names.end());
        return names;
    }

    ScratchDir m_scratch;
    std::string m_agentDir;
    std::string m_agent;
    std::string m_out;
};

// --- Command line -------------------------------------------------------------------------------

TEST_F(Launcher, HelpAndVersionExitZero) {
    const ProcessResult help = run({"--help"});
    EXPECT_EQ(help.exitCode, 0);
    EXPECT_NE(help.out.find("trace"), std::string::npos);
    EXPECT_NE(help.out.find("merge"), std::string::npos);
    const ProcessResult traceHelp = run({"trace", "--help"});
    EXPECT_EQ(traceHelp.exitCode, 0);
    for (const char* flag : {"--output", "--mode", "--interval", "--env", "--working-dir"}) {
        EXPECT_NE(traceHelp.out.find(flag), std::string::npos) << flag;
    }
    const ProcessResult version = run({"--version"});
    EXPECT_EQ(version.exitCode, 0);
    EXPECT_EQ(version.out.rfind("perfmarker ", 0), 0u) << version.out;
}

TEST_F(Launcher, UsageErrorsExitTwoWithAMessage) {
    const std::vector<std::vector<std::string>> cases = {
        {},
        {"frobnicate"},
        {"--bogus"},
        {"trace", "--bogus", "--", kProbe, "exit", "0"},
        {"trace"},
        {"trace", "--interval", "soon", "--", kProbe, "exit", "0"},
        {"trace", "--mode", "sometimes", "--", kProbe, "exit", "0"},
        {"trace", "-e", "NOEQUALS", "--", kProbe, "exit", "0"},
        {"trace", "-e", "PERFMARKER_OUTPUT=/x", "--", kProbe, "exit", "0"},
        {"trace", "-w", "/nonexistent/dir", "--", kProbe, "exit", "0"},
        {"merge", "/nonexistent/dir"},
    };
    for (const auto& args : cases) {
        const ProcessResult result = run(args);
        std::string joined;
        for (const std::string& arg : args) joined += arg + " ";
        EXPECT_EQ(result.exitCode, 2) << joined << "\n" << result.err;
        EXPECT_NE(result.err.find("perfmarker"), std::string::npos) << joined;
        EXPECT_EQ(result.out, "") << joined;
    }
    EXPECT_NE(run({"frobnicate"}).err.find("unknown subcommand 'frobnicate'"), std::string::npos);
    EXPECT_NE(run({"trace", "--bogus", "--", kProbe}).err.find("--bogus"), std::string::npos);
    EXPECT_NE(run({"trace", "--interval", "soon", "--", kProbe}).err.find("--interval"),
              std::string::npos);
}

TEST_F(Launcher, MissingApplicationExits127) {
    const ProcessResult byPath = run({"trace", "--", m_scratch.path() + "/no-such-app"});
    EXPECT_EQ(byPath.exitCode, 127);
    EXPECT_NE(byPath.err.find("no-such-app: No such file or directory"), std::string::npos)
        << byPath.err;
    const ProcessResult byName = run({"trace", "--", "perfmarker-no-such-command"});
    EXPECT_EQ(byName.exitCode, 127);
    EXPECT_NE(byName.err.find("perfmarker-no-such-command: command not found"), std::string::npos)
        << byName.err;
}

TEST_F(Launcher, NonExecutableApplicationExits126) {
    const std::string script = m_scratch.path() + "/not-executable.sh";
    writeFile(script, "#!/bin/sh\nexit 0\n");
    const ProcessResult result = run({"trace", "--", script});
    EXPECT_EQ(result.exitCode, 126);
    EXPECT_NE(result.err.find("Permission denied"), std::string::npos) << result.err;
    EXPECT_EQ(run({"trace", "--", m_scratch.path()}).exitCode, 126);  // a directory
}

TEST_F(Launcher, MissingAgentIsReported) {
    const ProcessResult result =
        trace({"exit", "0"}, {{"PERFMARKER_AGENT_DIR", m_scratch.path() + "/nowhere"}});
    EXPECT_EQ(result.exitCode, 1);
    EXPECT_NE(result.err.find("libCLTraceAgent.so"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("PERFMARKER_AGENT_DIR"), std::string::npos) << result.err;
}

// --- Running the application
// ----------------------------------------------------------------------

TEST_F(Launcher, ExitStatusIsForwarded) {
    EXPECT_EQ(trace({"exit", "0"}).exitCode, 0);
    EXPECT_EQ(trace({"exit", "3"}).exitCode, 3);
    EXPECT_EQ(trace({"kill", std::to_string(SIGKILL)}).exitCode, 128 + SIGKILL);
    EXPECT_EQ(trace({"kill", std::to_string(SIGSEGV)}).exitCode, 128 + SIGSEGV);
}

TEST_F(Launcher, ApplicationArgumentsAreNotParsedByTheLauncher) {
    // Everything after the application belongs to it, with or without "--".
    const ProcessResult result =
        run({"trace", "-o", m_out + "/t.atp", kProbe, "env", "--interval", "-o"});
    EXPECT_EQ(result.exitCode, 0) << result.err;
    EXPECT_EQ(result.out, "--interval unset\n-o unset\n");
}

TEST_F(Launcher, SessionEnvironmentComesFromTheFlags) {
    const ProcessResult result =
        run({"trace", "-o", m_out + "/t.atp", "--mode", "cached", "--interval", "250", "-e",
             "PROBE_A=1", "-e", "PROBE_B=x=y", "--", kProbe, "env", "PERFMARKER_MODE",
             "PERFMARKER_INTERVAL_MS", "PERFMARKER_MAX_MEMORY_MB", "PROBE_A", "PROBE_B"},
            {{"PERFMARKER_MAX_MEMORY_MB", "7"}});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    // A session variable of the caller's environment does not leak into the launcher's session.
    EXPECT_EQ(result.out,
              "PERFMARKER_MODE=cached\nPERFMARKER_INTERVAL_MS=250\nPERFMARKER_MAX_MEMORY_MB unset\n"
              "PROBE_A=1\nPROBE_B=x=y\n");
}

TEST_F(Launcher, OutputBaseIsPerProcessInsideThePrivateSessionDir) {
    const ProcessResult result = trace({"env", "PERFMARKER_OUTPUT", "PERFMARKER_TMPDIR"});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    const std::string prefix = "PERFMARKER_OUTPUT=" + m_out + "/perfmarker-session.";
    EXPECT_EQ(result.out.rfind(prefix, 0), 0u) << result.out;
    const std::string dir = result.out.substr(18, result.out.find("/trace.___PID___\n") - 18);
    EXPECT_NE(result.out.find("PERFMARKER_TMPDIR=" + dir + "\n"), std::string::npos) << result.out;
    EXPECT_FALSE(fs::exists(dir)) << "the empty session directory is removed";
}

TEST_F(Launcher, SessionDirIsPrivateAndRemovedAfterwards) {
    const ProcessResult result = trace({"session-dir"});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_EQ(result.out, "700\n");
    EXPECT_TRUE(outDirEntries().empty());
}

TEST_F(Launcher, OpenClLayersKeepsTheUsersLayersAfterOurs) {
    const std::string user = m_scratch.path() + "/libUserLayer.so";
    ProcessResult result = trace({"env", "OPENCL_LAYERS"});
    EXPECT_EQ(result.out, "OPENCL_LAYERS=" + m_agent + "\n");
    result = trace({"env", "OPENCL_LAYERS"}, {{"OPENCL_LAYERS", user}});
    EXPECT_EQ(result.out, "OPENCL_LAYERS=" + m_agent + ":" + user + "\n");
    // Ours is not added twice, and empty entries go.
    result = trace({"env", "OPENCL_LAYERS"}, {{"OPENCL_LAYERS", ":" + m_agent + "::" + user}});
    EXPECT_EQ(result.out, "OPENCL_LAYERS=" + m_agent + ":" + user + "\n");
    // -e OPENCL_LAYERS is merged the same way.
    result = run({"trace", "-o", m_out + "/t.atp", "-e", "OPENCL_LAYERS=" + user, "--", kProbe,
                  "env", "OPENCL_LAYERS"});
    EXPECT_EQ(result.out, "OPENCL_LAYERS=" + m_agent + ":" + user + "\n");
}

TEST_F(Launcher, WorkingDirectoryIsTheApplicationsAndRelativePathsStayTheCallers) {
    const ProcessResult result =
        run({"trace", "-o", m_out + "/t.atp", "-w", m_scratch.path(), "--", kProbe, "pwd"});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_EQ(result.out, fs::canonical(m_scratch.path()).string() + "\n");
}

TEST_F(Launcher, PerProcessFilesAreMovedAndForeignFilesLeftAlone) {
    const ProcessResult result = trace({"write-session-files"});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    const std::vector<std::string> entries = outDirEntries();
    ASSERT_EQ(entries.size(), 4u) << result.err;
    EXPECT_EQ(entries[0].rfind("perfmarker-session.", 0), 0u);
    EXPECT_EQ(std::vector<std::string>(entries.begin() + 1, entries.end()),
              (std::vector<std::string>{"t.99999.atp", "t.atp", "t.clperfmarker"}));
    EXPECT_EQ(readFile(m_out + "/t.atp"), "main trace\n");
    EXPECT_EQ(readFile(m_out + "/t.99999.atp"), "child trace\n");
    EXPECT_EQ(readFile(m_out + "/t.clperfmarker"), "main markers\n");
    EXPECT_TRUE(fs::exists(m_out + "/" + entries[0] + "/notes.txt"));
    EXPECT_NE(result.err.find("wrote " + m_out + "/t.atp"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("left alone"), std::string::npos) << result.err;
    EXPECT_NE(result.err.find("notes.txt"), std::string::npos) << result.err;
}

TEST_F(Launcher, PidTokenInTheOutputNamesEveryProcess) {
    const ProcessResult result =
        run({"trace", "-o", m_out + "/run-___PID___", "--", kProbe, "write-session-files"});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    EXPECT_TRUE(fs::exists(m_out + "/run-99999.atp"));
    size_t mainTraces = 0;
    for (const std::string& name : outDirEntries()) {
        if (name.rfind("run-", 0) == 0 && name != "run-99999.atp" && name.size() > 4 &&
            name.compare(name.size() - 4, 4, ".atp") == 0) {
            ++mainTraces;
        }
    }
    EXPECT_EQ(mainTraces, 1u);
}

#if defined(PERFMARKER_CL_MARKERS_PATH)  // (the helpers of the header test, which needs cl_markers)
// The value of header key `key` in the .atp text, or "(none)".
std::string headerValue(const std::string& atp, const std::string& key) {
    const size_t at = atp.rfind("\n" + key + "=", atp.find("\n====="));
    if (at == std::string::npos) return "(none)";
    const size_t start = at + key.size() + 2;
    return atp.substr(start, atp.find('\n', start) - start);
}

// The number after "<clock>=" in an anchor value, -1 when missing.
long long anchorClock(const std::string& anchor, const std::string& clock) {
    const size_t at = anchor.find(clock + "=");
    if (at == std::string::npos) return -1;
    return std::stoll(anchor.substr(at + clock.size() + 1));
}

long long monotonicNow() {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<long long>(now.tv_sec) * 1000000000LL + now.tv_nsec;
}
#endif

// What only the traced machine knows goes into the header (docs/format.md#clock-anchors): the
// host, the application's working directory (ours, or -w's), and the clocks read before the
// application started and after it ended.
TEST_F(Launcher, HeaderSaysWhereAndWhenTheRunWas) {
#if defined(PERFMARKER_CL_MARKERS_PATH)
    char host[256] = {};
    ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
    for (const bool withDir : {false, true}) {
        SCOPED_TRACE(withDir ? "-w" : "no -w");
        std::vector<std::string> args{"trace", "-o", m_out + "/run.atp"};
        const std::string dir = m_out + "/wd";
        fs::create_directories(dir);
        if (withDir) args.insert(args.end(), {"-w", dir});
        args.insert(args.end(), {"--", PERFMARKER_CL_MARKERS_PATH});
        const long long before = monotonicNow();
        const ProcessResult result = run(args);
        const long long after = monotonicNow();
        ASSERT_EQ(result.exitCode, 0) << result.err;
        const std::string atp = readFile(m_out + "/run.atp");
        EXPECT_EQ(fs::canonical(headerValue(atp, "WorkingDirectory")),
                  fs::canonical(withDir ? dir : fs::current_path().string()));
        EXPECT_EQ(headerValue(atp, "HostName"), host[0] != '\0' ? host : "localhost");
        const std::string start = headerValue(atp, "ClockAnchorStart");
        const std::string end = headerValue(atp, "ClockAnchorEnd");
        for (const char* clock :
             {"CLOCK_MONOTONIC", "CLOCK_MONOTONIC_RAW", "CLOCK_REALTIME"}) {
            EXPECT_GT(anchorClock(start, clock), 0) << start;
            EXPECT_GT(anchorClock(end, clock), 0) << end;
        }
        const long long startMonotonic = anchorClock(start, "CLOCK_MONOTONIC");
        const long long endMonotonic = anchorClock(end, "CLOCK_MONOTONIC");
        EXPECT_LE(before, startMonotonic);
        EXPECT_LE(startMonotonic, endMonotonic);
        EXPECT_LE(endMonotonic, after);
    }
#else
    GTEST_SKIP() << "the marker samples are not built";
#endif
}

// An application that records markers but makes no OpenCL or HSA call (so no agent runs in
// it): its markers still end up in the `.atp` that `-o` names, in the Perfmarker section, and the
// tools read them. The real marker samples, one per library.
TEST_F(Launcher, MarkerOnlyApplicationGetsAnAtpWithItsMarkers) {
#if defined(PERFMARKER_CL_MARKERS_PATH) && defined(PERFMARKER_SCOPED_MARKERS_PATH)
    const struct {
        const char* app;
        const char* library;
        const char* marker;
    } samples[] = {{PERFMARKER_CL_MARKERS_PATH, "clperfmarker", "Parse&nbsp;arguments"},
                   {PERFMARKER_SCOPED_MARKERS_PATH, "amdtperfmarker", "Load&nbsp;cache"}};
    for (const auto& sample : samples) {
        SCOPED_TRACE(sample.app);
        const std::string out = m_out + "/" + sample.library;
        fs::create_directories(out);
        const ProcessResult result = run({"trace", "-o", out + "/run.atp", "--", sample.app});
        ASSERT_EQ(result.exitCode, 0) << result.err;
        std::vector<std::string> names;
        for (const auto& entry : fs::directory_iterator(out)) {
            names.push_back(entry.path().filename().string());
        }
        EXPECT_EQ(names, std::vector<std::string>{"run.atp"}) << result.err;
        const std::string atp = readFile(out + "/run.atp");
        EXPECT_EQ(atp.rfind("TraceFileVersion=", 0), 0u) << atp.substr(0, 200);
        EXPECT_NE(atp.find("=====Perfmarker Output====="), std::string::npos) << atp;
        EXPECT_NE(atp.find(sample.marker), std::string::npos) << atp;
        EXPECT_NE(result.err.find("wrote " + out + "/run.atp"), std::string::npos) << result.err;

        const ProcessResult summary = run({"summary", "--format", "csv", out + "/run.atp"});
        EXPECT_EQ(summary.exitCode, 0) << summary.err;
        std::string plain = sample.marker;
        plain.replace(plain.find("&nbsp;"), 6, " ");
        EXPECT_NE(summary.out.find(plain), std::string::npos) << summary.out;
    }
#else
    GTEST_SKIP() << "the marker samples are not built";
#endif
}

// A marker file the merge cannot read is not thrown away: it is moved next to the output under
// its own name, and the launcher says why there is no `.atp`.
TEST_F(Launcher, UnreadableMarkerFileWithoutAtpIsKept) {
    const ProcessResult result = trace({"write-marker-file-only"});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    const std::vector<std::string> entries = outDirEntries();
    EXPECT_EQ(entries, std::vector<std::string>{"t.clperfmarker"}) << result.err;
    EXPECT_EQ(readFile(m_out + "/t.clperfmarker"), "not a marker section\n");
    EXPECT_NE(result.err.find("no .atp written"), std::string::npos) << result.err;
}

// A SIGTERM sent to the launcher reaches the application, and the launcher still exits with the
// application's status. The launcher is started with SIGTERM blocked, as some job runners do:
// it must take the signal anyway (the application keeps the mask it inherited).
TEST_F(Launcher, TerminationSignalsAreForwarded) {
    const std::string ready = m_scratch.path() + "/ready";
    const std::string outFile = m_scratch.path() + "/forward.out";
    const pid_t launcher = fork();
    ASSERT_GE(launcher, 0);
    if (launcher == 0) {
        setenv("PERFMARKER_AGENT_DIR", m_agentDir.c_str(), 1);
        if (freopen(outFile.c_str(), "w", stdout) == nullptr) _exit(99);
        sigset_t blocked;
        sigemptyset(&blocked);
        sigaddset(&blocked, SIGTERM);
        sigprocmask(SIG_BLOCK, &blocked, nullptr);
        execl(kPerfmarker.c_str(), kPerfmarker.c_str(), "trace", "-o", (m_out + "/t.atp").c_str(),
              "--", kProbe.c_str(), "wait-signal", ready.c_str(), static_cast<char*>(nullptr));
        _exit(98);
    }
    for (int i = 0; i < 1000 && !fs::exists(ready); ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(fs::exists(ready));
    kill(launcher, SIGTERM);
    int status = 0;
    ASSERT_EQ(waitpid(launcher, &status, 0), launcher);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 42);
    EXPECT_EQ(readFile(outFile), "got SIGTERM\n");
}

// --- perfmarker merge
// -----------------------------------------------------------------------------

TEST_F(Launcher, MergeMovesASessionLeftBehind) {
    const std::string session = m_out + "/perfmarker-session.abc123";
    fs::create_directories(session);
    writeFile(session + "/trace.4242.atp", "left behind\n");
    writeFile(session + "/unrelated.log", "x\n");
    const ProcessResult result = run({"merge", session, "-o", m_out + "/recovered"});
    EXPECT_EQ(result.exitCode, 0) << result.err;
    EXPECT_EQ(readFile(m_out + "/recovered.atp"), "left behind\n");
    EXPECT_TRUE(fs::exists(session + "/unrelated.log"));
    EXPECT_NE(result.err.find("unrelated.log"), std::string::npos) << result.err;

    fs::remove(session + "/unrelated.log");
    const ProcessResult empty = run({"merge", session});
    EXPECT_EQ(empty.exitCode, 1);
    EXPECT_NE(empty.err.find("nothing to merge"), std::string::npos) << empty.err;
    EXPECT_FALSE(fs::exists(session)) << "an empty session directory of ours is removed";
}

}  // namespace
