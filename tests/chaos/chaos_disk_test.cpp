// A full disk, for real and simulated (docs/session.md#chaos-tests). The marker library's
// promise (docs/session.md#files): a finalize that cannot write returns
// AP_FAILED_TO_OPEN_OUTPUT_FILE and drops nothing; the next finalize, once there is room, writes
// every marker, and a process that exits instead leaves fragments `perfmarker merge` recovers.
// The tools' promise (docs/export.md#how-outputs-are-written): a failed write leaves an existing
// output as it was.
//
// FullTmpfs runs chaos_app in a private mount namespace (`unshare -Urm`) on a 64 MiB tmpfs that
// a filler file has made nearly full, and skips where namespaces or mounts are refused.
// EnospcShim makes writes fail with ENOSPC through tests/chaos/enospc_shim.c instead.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "chaos_support.h"
#include "run_process.h"

#ifndef PERFMARKER_CLI_PATH
#error "PERFMARKER_CLI_PATH must name the perfmarker program"
#endif

namespace {

namespace fs = std::filesystem;
using perfmarker::chaos::kChaosApp;
using perfmarker::chaos::PairCount;
using perfmarker::chaos::readPairs;
using perfmarker::test::EnvChanges;
using perfmarker::test::ProcessResult;
using perfmarker::test::readFile;
using perfmarker::test::runProcess;
using perfmarker::test::ScratchDir;
using perfmarker::test::writeFile;

const std::string kPerfmarker = PERFMARKER_CLI_PATH;
const std::string kShim = PERFMARKER_CHAOS_SHIM_PATH;
constexpr long kTmpfsPairs = 200000;
constexpr long kShimPairs = 20000;

// No session but the one a test describes.
EnvChanges noSession() {
    EnvChanges env;
    for (const char* name : {"PERFMARKER_OUTPUT", "PERFMARKER_MODE", "PERFMARKER_INTERVAL_MS",
                             "PERFMARKER_TMPDIR", "PERFMARKER_MAX_MEMORY_MB", "LD_PRELOAD"}) {
        env[name] = std::nullopt;
    }
    return env;
}

std::string quote(const std::string& text) {
    std::string out = "'";
    for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
}

std::string findProgram(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
    for (size_t start = 0; start <= dirs.size();) {
        const size_t end = std::min(dirs.find(':', start), dirs.size());
        const std::string candidate = dirs.substr(start, end - start) + "/" + name;
        if (access(candidate.c_str(), X_OK) == 0) return candidate;
        start = end + 1;
    }
    return "";
}

std::vector<std::string> entries(const std::string& dir) {
    std::vector<std::string> names;
    std::error_code ignored;
    for (const auto& entry : fs::directory_iterator(dir, ignored)) {
        names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

// ---- a real full disk ---------------------------------------------------------------------------

class FullTmpfs : public ::testing::TestWithParam<const char*> {
protected:
    // Why this machine cannot run the test (empty: it can). Asked once: a private mount
    // namespace as this user, and a tmpfs mounted in it.
    static const std::string& refusal() {
        static const std::string reason = [] {
            const std::string unshare = findProgram("unshare");
            if (unshare.empty()) return std::string("no unshare program");
            ScratchDir probe;
            const ProcessResult r =
                runProcess({unshare, "-Urm", "sh", "-c",
                            "mount -t tmpfs -o size=1m chaos " + quote(probe.path())},
                           {}, probe.path());
            if (r.exitCode == 0) return std::string();
            return "cannot mount a tmpfs in a private mount namespace (unshare -Urm): " + r.err;
        }();
        return reason;
    }

    // Runs `steps` (shell) in a private mount namespace where $mnt is a 64 MiB tmpfs holding a
    // 62 MiB filler file ($mnt/filler) and the empty directories $mnt/tmp (0700) and $mnt/out,
    // with a session (the test's mode) writing $mnt/out/run.clperfmarker, fragments in $mnt/tmp.
    // $s is the scratch directory (outside the tmpfs), $app chaos_app, $pm perfmarker.
    ProcessResult inFullTmpfs(const std::string& steps) {
        fs::create_directories(m_scratch.path() + "/mnt");
        const std::string script =
            "set -u\n"
            "s=" +
            quote(m_scratch.path()) + "; mnt=$s/mnt; app=" + quote(kChaosApp) +
            "; pm=" + quote(kPerfmarker) +
            "\n"
            "mount -t tmpfs -o size=64m,mode=0700 perfmarker-chaos \"$mnt\" || exit 90\n"
            "mkdir -m 0700 \"$mnt/tmp\" && mkdir \"$mnt/out\" || exit 91\n"
            "dd if=/dev/zero of=\"$mnt/filler\" bs=1M count=62 2>/dev/null || exit 92\n"
            "export PERFMARKER_OUTPUT=\"$mnt/out/run\" PERFMARKER_TMPDIR=\"$mnt/tmp\" "
            "PERFMARKER_MODE=" +
            std::string(GetParam()) + " PERFMARKER_INTERVAL_MS=20\n" + steps;
        writeFile(m_scratch.path() + "/steps.sh", script);
        return runProcess({findProgram("unshare"), "-Urm", "sh", m_scratch.path() + "/steps.sh"},
                          noSession(), m_scratch.path());
    }

    std::string scratch(const std::string& name) const { return m_scratch.path() + "/" + name; }

    ScratchDir m_scratch;
};

// The first finalize finds the disk full and fails; once the filler is gone the second one
// writes all 200,000 pairs, and leaves no fragment and no temporary file behind.
TEST_P(FullTmpfs, SecondFinalizeWritesEveryPairOnceThereIsRoom) {
    if (!refusal().empty()) GTEST_SKIP() << refusal();
    const ProcessResult run = inFullTmpfs(
        "\"$app\" init pairs " + std::to_string(kTmpfsPairs) +
        " finalize rm \"$mnt/filler\" finalize >\"$s/app.out\" 2>\"$s/app.err\"\n"
        "echo \"status=$?\" >>\"$s/app.out\"\n"
        "ls -A \"$mnt/tmp\" >\"$s/left_tmp.txt\"; ls -A \"$mnt/out\" >\"$s/left_out.txt\"\n"
        "cp \"$mnt/out/run.clperfmarker\" \"$s/\"\n");
    ASSERT_EQ(run.exitCode, 0) << run.err;
    const std::string app = readFile(scratch("app.out"));
    EXPECT_EQ(app, "init=0\npairs=" + std::to_string(kTmpfsPairs) +
                       " failed=0\nfinalize=-8\nrm=0\nfinalize=0\nstatus=0\n")
        << readFile(scratch("app.err"));
    EXPECT_NE(readFile(scratch("app.err")).find("No space left on device"), std::string::npos)
        << readFile(scratch("app.err"));
    EXPECT_EQ(readFile(scratch("left_tmp.txt")), "") << "no fragment left";
    EXPECT_EQ(readFile(scratch("left_out.txt")), "run.clperfmarker\n") << "no temporary file left";
    PairCount count;
    ASSERT_TRUE(readPairs(scratch("run.clperfmarker"), count));
    EXPECT_EQ(count.problem, "");
    EXPECT_EQ(count.threads, 1u);
    EXPECT_EQ(count.openTails, 0u);
    EXPECT_EQ(count.pairs, static_cast<size_t>(kTmpfsPairs));
}

// The process exits after the failed finalize (once the filler is gone): what it leaves in the
// session's directory is every pair, and `perfmarker merge` puts them all in one .atp.
TEST_P(FullTmpfs, MergeRecoversEveryPairAfterAFailedFinalize) {
    if (!refusal().empty()) GTEST_SKIP() << refusal();
    const ProcessResult run = inFullTmpfs(
        "\"$app\" init pairs " + std::to_string(kTmpfsPairs) +
        " finalize rm \"$mnt/filler\" exit >\"$s/app.out\" 2>\"$s/app.err\"\n"
        "echo \"status=$?\" >>\"$s/app.out\"\n"
        "unset PERFMARKER_OUTPUT PERFMARKER_TMPDIR PERFMARKER_MODE PERFMARKER_INTERVAL_MS\n"
        "\"$pm\" merge \"$mnt/tmp\" -o \"$s/merged.atp\" 2>\"$s/merge.err\"\n"
        "echo \"merge=$?\" >>\"$s/app.out\"\n"
        "ls -A \"$mnt/out\" >\"$s/left.txt\"\n");
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_EQ(readFile(scratch("app.out")), "init=0\npairs=" + std::to_string(kTmpfsPairs) +
                                                " failed=0\nfinalize=-8\nrm=0\nstatus=0\nmerge=0\n")
        << readFile(scratch("app.err")) << readFile(scratch("merge.err"));
    EXPECT_EQ(readFile(scratch("left.txt")), "") << "no output and no temporary file on the tmpfs";
    PairCount count;
    ASSERT_TRUE(readPairs(scratch("merged.atp"), count)) << readFile(scratch("merge.err"));
    EXPECT_EQ(count.problem, "");
    EXPECT_EQ(count.threads, 1u);
    EXPECT_EQ(count.openTails, 0u);
    EXPECT_EQ(count.pairs, static_cast<size_t>(kTmpfsPairs));
}

INSTANTIATE_TEST_SUITE_P(Modes, FullTmpfs, ::testing::Values("timeout", "cached"));

// ---- ENOSPC from a shim
// ---------------------------------------------------------------------------

// $s/disk is the "disk": while $s/full exists, every write below it fails with ENOSPC.
class EnospcShim : public ::testing::Test {
protected:
    void SetUp() override {
        fs::create_directories(m_disk + "/out");
        fs::create_directories(m_disk + "/tmp");
        fs::permissions(m_disk + "/tmp", fs::perms::owner_all);
        writeFile(m_control, "");
    }

    EnvChanges shimEnv() const {
        EnvChanges env = noSession();
        env["LD_PRELOAD"] = kShim;
        env["PERFMARKER_CHAOS_ENOSPC_FILE"] = m_control;
        env["PERFMARKER_CHAOS_ENOSPC_DIR"] = m_disk;
        // An ASan build's programs must be told that a library loads before the sanitizer's.
        const char* asan = std::getenv("ASAN_OPTIONS");
        env["ASAN_OPTIONS"] =
            std::string(asan != nullptr ? asan : "") + ":verify_asan_link_order=0";
        return env;
    }

    ProcessResult tool(const std::vector<std::string>& args) {
        std::vector<std::string> argv{kPerfmarker};
        argv.insert(argv.end(), args.begin(), args.end());
        return runProcess(argv, shimEnv(), m_scratch.path());
    }

    ScratchDir m_scratch;
    std::string m_disk = m_scratch.path() + "/disk";
    std::string m_control = m_scratch.path() + "/full";
};

class EnospcShimModes : public EnospcShim, public ::testing::WithParamInterface<const char*> {
protected:
    EnvChanges sessionEnv() const {
        EnvChanges env = shimEnv();
        env["PERFMARKER_OUTPUT"] = m_disk + "/out/run";
        env["PERFMARKER_TMPDIR"] = m_disk + "/tmp";
        env["PERFMARKER_MODE"] = GetParam();
        env["PERFMARKER_INTERVAL_MS"] = "5";
        return env;
    }

    // The output holds every pair once, and nothing else is left on the disk.
    void expectEveryPair() {
        EXPECT_EQ(entries(m_disk + "/tmp"), std::vector<std::string>{});
        EXPECT_EQ(entries(m_disk + "/out"), std::vector<std::string>{"run.clperfmarker"});
        PairCount count;
        ASSERT_TRUE(readPairs(m_disk + "/out/run.clperfmarker", count));
        EXPECT_EQ(count.problem, "");
        EXPECT_EQ(count.openTails, 0u);
        EXPECT_EQ(count.pairs, static_cast<size_t>(kShimPairs));
    }
};

// The disk is "full" from the start (fragments and output fail alike) and has room at the
// second finalize.
TEST_P(EnospcShimModes, FullFromTheStartSecondFinalizeWritesEveryPair) {
    const ProcessResult run = runProcess({kChaosApp, "init", "pairs", std::to_string(kShimPairs),
                                          "finalize", "rm", m_control, "finalize"},
                                         sessionEnv(), m_scratch.path());
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_EQ(run.out, "init=0\npairs=" + std::to_string(kShimPairs) +
                           " failed=0\nfinalize=-8\nrm=0\nfinalize=0\n")
        << run.err;
    EXPECT_NE(run.err.find("No space left on device"), std::string::npos) << run.err;
    expectEveryPair();
}

// The disk fills after the recording (timeout mode has written fragments by then) and has room
// again at the second finalize: the fragments written before are part of the output.
TEST_P(EnospcShimModes, FullAtFinalizeSecondFinalizeWritesEveryPair) {
    fs::remove(m_control);
    const ProcessResult run =
        runProcess({kChaosApp, "init", "pairs", std::to_string(kShimPairs), "touch", m_control,
                    "finalize", "rm", m_control, "finalize"},
                   sessionEnv(), m_scratch.path());
    ASSERT_EQ(run.exitCode, 0) << run.err;
    EXPECT_EQ(run.out, "init=0\npairs=" + std::to_string(kShimPairs) +
                           " failed=0\ntouch=0\nfinalize=-8\nrm=0\nfinalize=0\n")
        << run.err;
    expectEveryPair();
}

INSTANTIATE_TEST_SUITE_P(Modes, EnospcShimModes, ::testing::Values("timeout", "cached"));

// `perfmarker export` and `perfmarker summary -o` on a full disk: the error is named, existing
// outputs are exactly as they were, no temporary file is left; with room again they are written.
TEST_F(EnospcShim, ToolsReportTheErrorAndLeaveExistingOutputs) {
    const std::string trace = std::string(PERFMARKER_ATP_FIXTURES) + "/ocl_vecadd.atp";
    const std::string json = m_disk + "/out/t.json";
    const std::string csv = m_disk + "/out/t";
    const std::string summary = m_disk + "/out/summary.txt";
    for (const std::string& file : {json, csv + "-markers.csv", summary}) {
        writeFile(file, "earlier output\n");
    }
    const std::vector<std::vector<std::string>> commands = {
        {"export", "--format", "perfetto", trace, "-o", json},
        {"export", "--format", "csv", trace, "-o", csv},
        {"summary", trace, "-o", summary},
    };
    for (const auto& args : commands) {
        SCOPED_TRACE(args[0] + " " + args[2]);
        const ProcessResult r = tool(args);
        EXPECT_EQ(r.exitCode, 1) << r.err;
        EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
    }
    for (const std::string& file : {json, csv + "-markers.csv", summary}) {
        EXPECT_EQ(readFile(file), "earlier output\n") << file;
    }
    EXPECT_EQ(entries(m_disk + "/out"),
              (std::vector<std::string>{"summary.txt", "t-markers.csv", "t.json"}));

    fs::remove(m_control);  // room again: the same commands replace the outputs
    for (const auto& args : commands) {
        SCOPED_TRACE(args[0] + " " + args[2]);
        const ProcessResult r = tool(args);
        EXPECT_EQ(r.exitCode, 0) << r.err;
    }
    EXPECT_EQ(readFile(json).rfind("{\"displayTimeUnit\"", 0), 0u);
    EXPECT_NE(readFile(summary).find("clEnqueueNDRangeKernel"), std::string::npos);
    EXPECT_NE(readFile(csv + "-markers.csv"), "earlier output\n");
}

}  // namespace
