// The tools on a trace the HSA agent wrote: a table-driven run (fake runtime, one queue, two
// kernel dispatches, one async copy) produces an .atp, then the built `perfmarker summary`,
// `export --format perfetto` and `report` read it as a user would run them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "agent_harness.h"
#include "record/clock.h"
#include "run_process.h"

namespace perfmarker::test {
namespace {

const std::string kPerfmarker = PERFMARKER_CLI_PATH;
constexpr char kKernelName[] = "reduce(float*, float*, int)";

void dispatchAndCopy(FakeRuntime& rt, const Agent& agent) {
    CHILD_CHECK(agent.onLoad(rt.table(), 0x10000, 0, nullptr));
    CoreApiTable& t = rt.core();
    hsa_executable_symbol_t symbol{};
    CHILD_CHECK(t.hsa_executable_get_symbol_by_name_fn(hsa_executable_t{5}, kKernelSymbol, nullptr,
                                                       &symbol) == HSA_STATUS_SUCCESS);
    hsa_queue_t* q = nullptr;
    CHILD_CHECK(t.hsa_queue_create_fn(gpu(), 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr,
                                      UINT32_MAX, UINT32_MAX, &q) == HSA_STATUS_SUCCESS);
    hsa_signal_t done{};
    CHILD_CHECK(t.hsa_signal_create_fn(2, 0, nullptr, &done) == HSA_STATUS_SUCCESS);
    rt.submit(q, dispatchPacket(done));
    rt.submit(q, dispatchPacket(done));
    const uint64_t host = record::monotonicNs();
    CHILD_CHECK(rt.execute(q, hostToSystem(host + 100000), hostToSystem(host + 300000)) == 2);
    CHILD_CHECK(t.hsa_signal_wait_scacquire_fn(done, HSA_SIGNAL_CONDITION_EQ, 0, 2000000000,
                                               HSA_WAIT_STATE_BLOCKED) == 0);
    hsa_signal_t copied{};
    CHILD_CHECK(t.hsa_signal_create_fn(1, 0, nullptr, &copied) == HSA_STATUS_SUCCESS);
    rt.setCopyTimes(hostToSystem(host + 400000), hostToSystem(host + 500000));
    static char src[1024], dst[1024];
    CHILD_CHECK(rt.amd().hsa_amd_memory_async_copy_fn(dst, gpu(), src, hsa_agent_t{kCpuAgent},
                                                      sizeof src, 0, nullptr, copied) == HSA_STATUS_SUCCESS);
    CHILD_CHECK(t.hsa_signal_wait_scacquire_fn(copied, HSA_SIGNAL_CONDITION_EQ, 0, 2000000000,
                                               HSA_WAIT_STATE_BLOCKED) == 0);
    CHILD_CHECK(rt.drainHandlers());
    CHILD_CHECK(t.hsa_queue_destroy_fn(q) == HSA_STATUS_SUCCESS);
    agent.onUnload();
}

class HsaTools : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        s_run = new TracedRun(runTraced("tools", dispatchAndCopy));
    }
    static void TearDownTestSuite() {
        delete s_run;
        s_run = nullptr;
    }

    void SetUp() override {
        ASSERT_EQ(s_run->exitStatus, 0) << s_run->childErrors;
        ASSERT_TRUE(s_run->haveAtp) << s_run->childErrors;
    }

    ProcessResult tool(std::vector<std::string> args) {
        args.insert(args.begin(), kPerfmarker);
        args.push_back(s_run->atpPath);
        return runProcess(args, {}, m_scratch.path());
    }

    static TracedRun* s_run;
    ScratchDir m_scratch;
};

TracedRun* HsaTools::s_run = nullptr;

const nlohmann::json* tableWithId(const nlohmann::json& summary, const std::string& id) {
    for (const auto& table : summary.at("tables")) {
        if (table.at("id") == id) return &table;
    }
    return nullptr;
}

// The row whose first column is `name`, or null.
const nlohmann::json* rowNamed(const nlohmann::json& table, const std::string& name) {
    for (const auto& row : table.at("rows")) {
        if (row.at(0) == name) return &row;
    }
    return nullptr;
}

size_t columnOf(const nlohmann::json& table, const std::string& name) {
    const auto& columns = table.at("columns");
    for (size_t i = 0; i < columns.size(); ++i) {
        if (columns[i] == name) return i;
    }
    ADD_FAILURE() << "no column " << name << " in " << table.at("id");
    return 0;
}

TEST_F(HsaTools, SummaryJsonHasTheApiAndKernelTables) {
    const ProcessResult result = tool({"summary", "--format", "json"});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    const nlohmann::json summary = nlohmann::json::parse(result.out);
    const nlohmann::json* api = tableWithId(summary, "HSAAPISummary");
    ASSERT_NE(api, nullptr) << result.out;
    const size_t calls = columnOf(*api, "# of Calls");
    const std::pair<const char*, const char*> expected[] = {
        {"hsa_init", "1"}, {"hsa_queue_create", "1"}, {"hsa_signal_create", "2"},
        {"hsa_signal_wait_scacquire", "2"}, {"hsa_amd_memory_async_copy", "1"},
        {"hsa_queue_destroy", "1"}, {"hsa_shut_down", "1"}};
    for (const auto& [name, count] : expected) {
        const nlohmann::json* row = rowNamed(*api, name);
        ASSERT_NE(row, nullptr) << name;
        EXPECT_EQ(row->at(calls), count) << name;
    }
    const nlohmann::json* kernels = tableWithId(summary, "HSAKernelSummary");
    ASSERT_NE(kernels, nullptr) << result.out;
    ASSERT_EQ(kernels->at("rows").size(), 1u);
    const nlohmann::json& row = kernels->at("rows")[0];
    EXPECT_EQ(row.at(columnOf(*kernels, "Kernel Name")), kKernelName);
    EXPECT_EQ(row.at(columnOf(*kernels, "Device Name")), kGpuName);
    EXPECT_EQ(row.at(columnOf(*kernels, "# of Calls")), "2");
}

TEST_F(HsaTools, PerfettoExportHasTheDispatchesOnTheQueueTrack) {
    const std::string out = m_scratch.path() + "/trace.json";
    const ProcessResult result = tool({"export", "--format", "perfetto", "-o", out});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    const nlohmann::json trace = nlohmann::json::parse(readFile(out));
    // Track names by (pid, tid), then the kernel slices and the tracks they lie on.
    std::map<std::pair<int64_t, int64_t>, std::string> trackNames;
    for (const auto& e : trace.at("traceEvents")) {
        if (e.at("ph") == "M" && e.at("name") == "thread_name") {
            trackNames[{e.at("pid"), e.at("tid")}] = e.at("args").at("name");
        }
    }
    size_t slices = 0;
    for (const auto& e : trace.at("traceEvents")) {
        if (e.at("ph") != "X" || e.at("name") != kKernelName) continue;
        ++slices;
        const std::string track = trackNames[{e.at("pid"), e.at("tid")}];
        EXPECT_EQ(track.rfind("HSA queue 0 (gfx900)", 0), 0u) << track;
        EXPECT_NEAR(e.at("dur").get<double>(), 200.0, 2.0);  // us: the fake's device time
        EXPECT_EQ(e.at("args").at("kernel handle"), "0x7F8C3A2B1C00");
    }
    EXPECT_EQ(slices, 2u);
}

TEST_F(HsaTools, ReportNamesTheKernel) {
    const std::string out = m_scratch.path() + "/report.html";
    const ProcessResult result = tool({"report", "-o", out});
    ASSERT_EQ(result.exitCode, 0) << result.err;
    const std::string html = readFile(out);
    EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u) << html.substr(0, 80);
    EXPECT_NE(html.find(kKernelName), std::string::npos);
    EXPECT_NE(html.find("hsa_amd_memory_async_copy"), std::string::npos);
}

}  // namespace
}  // namespace perfmarker::test
