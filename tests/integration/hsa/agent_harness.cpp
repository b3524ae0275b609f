#include "agent_harness.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace perfmarker::test {
namespace fs = std::filesystem;

Agent loadAgent() {
    void* handle = dlopen(PERFMARKER_HSA_AGENT_PATH, RTLD_NOW | RTLD_LOCAL);
    Agent a;
    if (handle == nullptr) {
        std::fprintf(stderr, "dlopen %s: %s\n", PERFMARKER_HSA_AGENT_PATH, dlerror());
        return a;
    }
    a.onLoad = reinterpret_cast<decltype(a.onLoad)>(dlsym(handle, "OnLoad"));
    a.onUnload = reinterpret_cast<decltype(a.onUnload)>(dlsym(handle, "OnUnload"));
    a.stop = reinterpret_cast<decltype(a.stop)>(dlsym(handle, "amdtCodeXLStopProfiling"));
    a.resume = reinterpret_cast<decltype(a.resume)>(dlsym(handle, "amdtCodeXLResumeProfiling"));
    return a;
}

void childCheck(bool ok, const char* what, int line) {
    if (ok) return;
    std::fprintf(stderr, "CHILD_CHECK failed at line %d: %s\n", line, what);
    std::fflush(stderr);
    _exit(3);
}

std::vector<std::string> TracedRun::lines(atp::SectionKind kind) const {
    std::vector<std::string> out;
    for (const auto& b : blocks(kind)) out.insert(out.end(), b.lines.begin(), b.lines.end());
    return out;
}

const std::vector<atp::AtpThreadBlock>& TracedRun::blocks(atp::SectionKind kind) const {
    static const std::vector<atp::AtpThreadBlock> none;
    const auto it = doc.blocks.find(kind);
    return it == doc.blocks.end() ? none : it->second;
}

TracedRun runTraced(const std::string& name, const ChildBody& body,
                    const std::map<std::string, std::string>& extraEnv) {
    const fs::path dir = fs::path(PERFMARKER_TEST_TMP) / ("hsa_" + name + "_" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string errPath = (dir / "stderr.txt").string();
    std::fflush(nullptr);
    const pid_t pid = fork();
    if (pid == 0) {
        const int fd = open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        dup2(fd, 2);
        setenv("PERFMARKER_OUTPUT", (dir / "trace").c_str(), 1);
        setenv("PERFMARKER_TMPDIR", dir.c_str(), 1);
        for (const auto& [k, v] : extraEnv) setenv(k.c_str(), v.c_str(), 1);
        const Agent agent = loadAgent();
        childCheck(agent.onLoad != nullptr && agent.onUnload != nullptr, "agent loaded", __LINE__);
        {
            FakeRuntime runtime;
            body(runtime, agent);
        }
        std::exit(0);  // atexit handlers and the agent's destructor run: the merge
    }
    TracedRun run;
    int status = 0;
    waitpid(pid, &status, 0);
    run.exitStatus = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    std::ifstream err(errPath);
    std::stringstream text;
    text << err.rdbuf();
    run.childErrors = text.str();
    run.atpPath = (dir / "trace.atp").string();
    run.haveAtp = fs::exists(run.atpPath);
    if (run.haveAtp) {
        atp::loadAtpFile(run.atpPath, run.doc, run.readError);
        run.typed = readTyped(run.atpPath);
    }
    return run;
}

std::vector<std::string> fields(const std::string& line) {
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string f; in >> f;) out.push_back(f);
    return out;
}

}  // namespace perfmarker::test
