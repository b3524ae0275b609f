// The OpenCL layer and the HSA agent in one process, as under `perfmarker trace --hsa` with an
// OpenCL application on ROCm: each records, each flushes at exit, and the .atp written at exit
// must hold both agents' sections whichever of them finishes first (only the last one merges).
// The agents finish in the reverse order of loading (ELF destructors), so the load order picks
// the exit order.
#include <CL/cl_icd.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "atp/merge/agent_registry.h"
#include "atp_document.h"
#include "atp/merge/merger.h"
#include "fake_runtime.h"

namespace perfmarker::test {
namespace {

namespace fs = std::filesystem;
using atp::SectionKind;

// In the child: a failed check ends it with status 3 (the parent reports the stderr).
void childCheck(bool ok, const char* what, int line) {
    if (ok) return;
    std::fprintf(stderr, "child check failed at line %d: %s\n", line, what);
    std::_Exit(3);
}
#define CHILD_CHECK(cond) childCheck((cond), #cond, __LINE__)

struct Agent {
    bool (*onLoad)(void*, uint64_t, uint64_t, const char* const*) = nullptr;
    void (*onUnload)() = nullptr;
};

// The runtime's way: dlopen of HSA_TOOLS_LIB, then OnLoad / OnUnload.
Agent loadHsaAgent() {
    Agent agent;
    void* handle = dlopen(PERFMARKER_HSA_AGENT_PATH, RTLD_NOW | RTLD_LOCAL);
    CHILD_CHECK(handle != nullptr);
    agent.onLoad = reinterpret_cast<decltype(agent.onLoad)>(dlsym(handle, "OnLoad"));
    agent.onUnload = reinterpret_cast<decltype(agent.onUnload)>(dlsym(handle, "OnUnload"));
    CHILD_CHECK(agent.onLoad != nullptr && agent.onUnload != nullptr);
    return agent;
}

cl_int CL_API_CALL fakeGetPlatformIDs(cl_uint, cl_platform_id*, cl_uint* count) {
    if (count != nullptr) *count = 0;
    return CL_SUCCESS;
}

// Loads the layer and makes one call through the table it returns, as the ICD loader would.
void traceOneClCall() {
    void* handle = dlopen(PERFMARKER_CL_AGENT_PATH, RTLD_NOW | RTLD_LOCAL);
    CHILD_CHECK(handle != nullptr);
    using InitLayer =
        cl_int (*)(cl_uint, const cl_icd_dispatch*, cl_uint*, const cl_icd_dispatch**);
    auto init = reinterpret_cast<InitLayer>(dlsym(handle, "clInitLayer"));
    CHILD_CHECK(init != nullptr);
    static cl_icd_dispatch target{};
    target.clGetPlatformIDs = &fakeGetPlatformIDs;
    cl_uint entries = 0;
    const cl_icd_dispatch* layer = nullptr;
    CHILD_CHECK(init(sizeof target / sizeof(void*), &target, &entries, &layer) == CL_SUCCESS);
    cl_uint count = 7;
    CHILD_CHECK(layer->clGetPlatformIDs(0, nullptr, &count) == CL_SUCCESS && count == 0);
}

void traceOneHsaCall(const Agent& agent) {
    FakeRuntime runtime;
    CHILD_CHECK(agent.onLoad(runtime.table(), 0x10000, 0, nullptr));
    hsa_signal_t s{};
    CHILD_CHECK(runtime.core().hsa_signal_create_fn(1, 0, nullptr, &s) == HSA_STATUS_SUCCESS);
    agent.onUnload();
}

struct DualRun {
    int exitStatus = -1;
    std::string childErrors;
    fs::path dir;
    atp::AtpDocument doc;
    bool haveAtp = false;
};

bool isLive(const char* dir, const std::string& tag) {
    return access((std::string(dir) + "/" + std::to_string(getpid()) + "." + tag + ".live").c_str(),
                  F_OK) == 0;
}

// hsaFirst: the HSA agent is loaded last, so it finishes (and flushes) first. staleAgent: a live
// file of a third agent that never finishes (one that died), so no agent may merge at exit.
DualRun runBoth(const std::string& name, bool hsaFirst, bool staleAgent = false) {
    DualRun run;
    run.dir = fs::path(PERFMARKER_TEST_TMP) / ("dual_" + name + "_" + std::to_string(getpid()));
    fs::remove_all(run.dir);
    fs::create_directories(run.dir);
    fs::permissions(run.dir, fs::perms::owner_all);  // private, like the launcher's: flat layout
    const std::string errPath = (run.dir / "stderr.txt").string();
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        const int fd = open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 2);
        setenv("PERFMARKER_OUTPUT", (run.dir / "trace").c_str(), 1);
        setenv("PERFMARKER_TMPDIR", run.dir.c_str(), 1);
        if (hsaFirst) traceOneClCall();
        traceOneHsaCall(loadHsaAgent());
        if (!hsaFirst) traceOneClCall();
        CHILD_CHECK(isLive(run.dir.c_str(), "ocl") && isLive(run.dir.c_str(), "hsa"));
        std::string error;
        if (staleAgent)
            CHILD_CHECK(atp::registerLiveAgent(run.dir.string(), getpid(), "dead", error));
        std::exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    run.exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::ifstream err(errPath);
    std::stringstream text;
    text << err.rdbuf();
    run.childErrors = text.str();
    const std::string atpPath = (run.dir / "trace.atp").string();
    run.haveAtp = fs::exists(atpPath);
    std::string error;
    if (run.haveAtp) run.haveAtp = atp::loadAtpFile(atpPath, run.doc, error);
    return run;
}

size_t linesOf(const DualRun& run, SectionKind kind) {
    const auto it = run.doc.blocks.find(kind);
    size_t n = 0;
    if (it != run.doc.blocks.end()) {
        for (const atp::AtpThreadBlock& b : it->second) n += b.lines.size();
    }
    return n;
}

size_t leftovers(const fs::path& dir) {
    size_t n = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        const std::string f = e.path().filename().string();
        if (f.find(".frag") != std::string::npos || f.find(".live") != std::string::npos) ++n;
    }
    return n;
}

void expectBothSections(const DualRun& run) {
    ASSERT_EQ(run.exitStatus, 0) << run.childErrors;
    ASSERT_TRUE(run.haveAtp) << run.childErrors;
    EXPECT_GT(linesOf(run, SectionKind::OclApiTrace), 0u) << run.childErrors;
    EXPECT_GT(linesOf(run, SectionKind::HsaApiTrace), 0u) << run.childErrors;
    EXPECT_EQ(leftovers(run.dir), 0u);
}

TEST(DualAgentMerge, OpenClLayerFinishesFirst) { expectBothSections(runBoth("ocl_first", false)); }

TEST(DualAgentMerge, HsaAgentFinishesFirst) { expectBothSections(runBoth("hsa_first", true)); }

// The launcher's step after a process whose agent never finished: the live file keeps the
// agents from merging, the fragments stay, and the launcher's merge takes them and the file.
TEST(DualAgentMerge, LeftoverLiveFileLeavesTheMergeToTheLauncher) {
    DualRun run = runBoth("stale", false, true);
    ASSERT_EQ(run.exitStatus, 0) << run.childErrors;
    ASSERT_FALSE(run.haveAtp) << "an agent merged although another was still live";
    atp::SessionDirListing listing;
    std::string error;
    ASSERT_TRUE(atp::listSessionPids(run.dir.string(), listing, error)) << error;
    ASSERT_EQ(listing.pids.size(), 1u);
    atp::MergeResult result;
    ASSERT_TRUE(atp::mergeProcess(run.dir.string(), listing.pids[0], (run.dir / "trace").string(),
                                  atp::AtpHeader{}, atp::MergeOptions{}, result, error))
        << error;
    ASSERT_TRUE(result.written);
    ASSERT_TRUE(atp::loadAtpFile(result.atpPath, run.doc, error)) << error;
    EXPECT_GT(linesOf(run, SectionKind::OclApiTrace), 0u);
    EXPECT_GT(linesOf(run, SectionKind::HsaApiTrace), 0u);
    EXPECT_EQ(leftovers(run.dir), 0u);
}

TEST(AgentRegistry, OnlyTheLastAgentMerges) {
    const fs::path dir = fs::path(PERFMARKER_TEST_TMP) / ("registry_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    std::string error;
    ASSERT_TRUE(atp::registerLiveAgent(dir.string(), 42, "ocl", error)) << error;
    ASSERT_TRUE(atp::registerLiveAgent(dir.string(), 42, "hsa", error)) << error;
    ASSERT_TRUE(atp::registerLiveAgent(dir.string(), 43, "hsa", error)) << error;
    EXPECT_FALSE(atp::finishLiveAgent(dir.string(), 42, "ocl"));  // the HSA agent is still live
    EXPECT_TRUE(atp::finishLiveAgent(dir.string(), 42, "hsa"));   // another pid does not count
    EXPECT_EQ(atp::removeLiveAgents(dir.string(), 43), 1u);
    EXPECT_TRUE(fs::is_empty(dir));
    fs::remove_all(dir);
}

TEST(AgentRegistry, ReportsAnUnwritableDirectory) {
    std::string error;
    EXPECT_FALSE(atp::registerLiveAgent("/nonexistent/perfmarker", 1, "ocl", error));
    EXPECT_NE(error.find("/nonexistent/perfmarker/1.ocl.live"), std::string::npos) << error;
    // Without a live file or a directory the caller is alone: it merges.
    EXPECT_TRUE(atp::finishLiveAgent("/nonexistent/perfmarker", 1, "ocl"));
}

TEST(AgentRegistry, ParsesOnlyLiveFileNames) {
    uint64_t pid = 0;
    EXPECT_TRUE(atp::liveAgentPid("123.hsa.live", pid));
    EXPECT_EQ(pid, 123u);
    EXPECT_FALSE(atp::liveAgentPid("123.live", pid));
    EXPECT_FALSE(atp::liveAgentPid(".hsa.live", pid));
    EXPECT_FALSE(atp::liveAgentPid("12a.hsa.live", pid));
    EXPECT_FALSE(atp::liveAgentPid("123.hsa.frag", pid));
    EXPECT_FALSE(atp::liveAgentPid("99999999999999999999999.hsa.live", pid));
}

}  // namespace
}  // namespace perfmarker::test
