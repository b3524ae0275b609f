// Runs one traced "application" in a child process: the child loads the built agent with
// dlopen, builds the fake runtime's table, and runs the test body (which calls OnLoad, drives
// the table, and usually OnUnload); its exit runs the agent's merge. The parent then reads the
// .atp with the project's text reader and again with the tools' typed reader. One process per scenario, because the agent's state is
// per process, as it is under the real runtime.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "atp_document.h"
#include "fake_runtime.h"
#include "typed_trace.h"

namespace perfmarker::test {

struct Agent {
    bool (*onLoad)(void*, uint64_t, uint64_t, const char* const*) = nullptr;
    void (*onUnload)() = nullptr;
    void (*stop)() = nullptr;
    void (*resume)() = nullptr;
};

// Loads the agent into this process (dlopen of the built libHSATraceAgent.so).
Agent loadAgent();

// The runtime's OnLoad call to the agent, with runtime version `runtimeVersion`.
inline bool load(FakeRuntime& rt, const Agent& agent, uint64_t runtimeVersion = 0x10000) {
    return agent.onLoad(rt.table(), runtimeVersion, 0, nullptr);
}

struct TracedRun {
    int exitStatus = -1;      // the child's exit status (0: every CHILD_CHECK held)
    std::string childErrors;  // the child's stderr (the agent's messages, failed checks)
    bool haveAtp = false;
    std::string atpPath;  // the merged trace (kept after the run for the tools' tests)
    atp::AtpDocument doc;
    std::string readError;
    TypedTrace typed;  // the same file through the tools' streaming reader

    // Lines of a section, all thread blocks together, and the blocks themselves.
    std::vector<std::string> lines(atp::SectionKind kind) const;
    const std::vector<atp::AtpThreadBlock>& blocks(atp::SectionKind kind) const;
};

using ChildBody = std::function<void(FakeRuntime& runtime, const Agent& agent)>;
TracedRun runTraced(const std::string& name, const ChildBody& body,
                    const std::map<std::string, std::string>& extraEnv = {});

// In the child: reports and exits with status 3 when `ok` is false.
void childCheck(bool ok, const char* what, int line);
#define CHILD_CHECK(cond) ::perfmarker::test::childCheck((cond), #cond, __LINE__)

// Splits on white space.
std::vector<std::string> fields(const std::string& line);

}  // namespace perfmarker::test
