// The agent under bad conditions: tables it must refuse or can only partly use, calls that
// fail, signals that never complete, an application that never shuts the runtime down, many
// threads, and pause / resume. Also: every slot of both tables is wrapped.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <thread>

#include "api_line_reference.h"
#include "agent_harness.h"
#include "api/hsa_api.h"

namespace perfmarker::test {
namespace {

using atp::SectionKind;

bool has(const std::vector<std::string>& lines, const std::string& text) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

TEST(HsaAgentErrors, RefusesATableOfAnotherMajorVersion) {
    const TracedRun run = runTraced("major", [](FakeRuntime& rt, const Agent& agent) {
        rt.table()->version.major_id = HSA_API_TABLE_MAJOR_VERSION + 1;
        void* before = reinterpret_cast<void*>(rt.core().hsa_signal_load_relaxed_fn);
        CHILD_CHECK(!load(rt, agent, 1));
        CHILD_CHECK(reinterpret_cast<void*>(rt.core().hsa_signal_load_relaxed_fn) == before);
        rt.table()->version.major_id = HSA_API_TABLE_MAJOR_VERSION;
        rt.core().version.major_id = HSA_CORE_API_TABLE_MAJOR_VERSION + 1;
        CHILD_CHECK(!load(rt, agent, 1));
        CHILD_CHECK(!agent.onLoad(nullptr, 1, 0, nullptr));
        agent.onUnload();  // harmless without a load
    });
    EXPECT_EQ(run.exitStatus, 0) << run.childErrors;
    EXPECT_NE(run.childErrors.find("API table has major version 2, this agent knows version 1; "
                                   "not tracing"), std::string::npos) << run.childErrors;
    EXPECT_NE(run.childErrors.find("core table has major version 2"), std::string::npos);
    EXPECT_NE(run.childErrors.find("passed no API table"), std::string::npos);
    EXPECT_FALSE(run.haveAtp);
}

TEST(HsaAgentErrors, WrapsOnlyTheSlotsOfAShortTable) {
    const TracedRun run = runTraced("short", [](FakeRuntime& rt, const Agent& agent) {
        // An older runtime: a core table that ends after hsa_queue_create, no AMD table.
        rt.core().version.minor_id = sizeof(ApiTableVersion) + 8 * sizeof(void*);
        rt.table()->version.minor_id = offsetof(HsaApiTable, amd_ext_);
        void* unwrapped = reinterpret_cast<void*>(rt.core().hsa_signal_create_fn);
        CHILD_CHECK(load(rt, agent, 1));
        CHILD_CHECK(reinterpret_cast<void*>(rt.core().hsa_signal_create_fn) == unwrapped);
        char name[64];
        CHILD_CHECK(rt.core().hsa_agent_get_info_fn(gpu(), HSA_AGENT_INFO_NAME, name) ==
                    HSA_STATUS_SUCCESS);
        hsa_queue_t* q = nullptr;
        CHILD_CHECK(rt.core().hsa_queue_create_fn(gpu(), 64, 0, nullptr, nullptr, 0, 0, &q) ==
                    HSA_STATUS_SUCCESS);
        CHILD_CHECK(rt.calls(kTest_hsa_amd_queue_intercept_create) == 0);
        agent.onUnload();
    });
    ASSERT_EQ(run.exitStatus, 0) << run.childErrors;
    EXPECT_NE(run.childErrors.find("core table has 8 of "), std::string::npos) << run.childErrors;
    EXPECT_NE(run.childErrors.find("no queue interception"), std::string::npos);
    const auto api = run.lines(SectionKind::HsaApiTrace);
    EXPECT_TRUE(has(api, "hsa_agent_get_info ( agent={handle=2000,name=gfx900}"));
    EXPECT_TRUE(has(api, "hsa_queue_create"));
    EXPECT_FALSE(has(api, "hsa_signal_create"));
}

TEST(HsaAgentErrors, RecordsFailingCallsWithTheirStatusAndNoOutputs) {
    const TracedRun run = runTraced("failing", [](FakeRuntime& rt, const Agent& agent) {
        CHILD_CHECK(load(rt, agent, 1));
        hsa_queue_t* q = nullptr;
        CHILD_CHECK(rt.core().hsa_queue_create_fn(hsa_agent_t{42}, 64, 0, nullptr, nullptr, 0, 0,
                                                  &q) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
        CHILD_CHECK(rt.core().hsa_signal_create_fn(1, 0, nullptr, nullptr) ==
                    HSA_STATUS_ERROR_INVALID_ARGUMENT);
        hsa_executable_symbol_t symbol{};
        CHILD_CHECK(rt.core().hsa_executable_get_symbol_by_name_fn(hsa_executable_t{1}, "nope",
                                                                   nullptr, &symbol) != HSA_STATUS_SUCCESS);
        agent.onUnload();
    });
    ASSERT_EQ(run.exitStatus, 0) << run.childErrors;
    const auto api = run.lines(SectionKind::HsaApiTrace);
    ASSERT_EQ(api.size(), 5u);
    EXPECT_EQ(api[1].rfind("HSA_STATUS_ERROR_INVALID_ARGUMENT = hsa_queue_create ( "
                           "agent={handle=42,name=<UnknownDeviceName>};", 0), 0u) << api[1];
    EXPECT_NE(api[1].find(";queue=0x"), std::string::npos) << api[1];  // not dereferenced
    EXPECT_NE(api[2].find("consumers=NULL;signal=NULL )"), std::string::npos) << api[2];
    EXPECT_NE(api[3].find("HSA_STATUS_ERROR_INVALID_SYMBOL_NAME = hsa_executable_get_symbol_by_name"
                          " ( executable={1};symbol_name=[\"nope\"];agent=NULL;symbol=0x"),
              std::string::npos) << api[3];
    ASSERT_TRUE(run.typed.parsed) << run.typed.error;
    ASSERT_EQ(run.typed.calls.size(), 5u);
    EXPECT_EQ(run.typed.calls[1].returnValue, "HSA_STATUS_ERROR_INVALID_ARGUMENT");
    EXPECT_EQ(paramValue(run.typed.calls[2], "signal"), "NULL");
    EXPECT_EQ(run.typed.calls[3].returnValue, "HSA_STATUS_ERROR_INVALID_SYMBOL_NAME");
}

TEST(HsaAgentErrors, DispatchThatNeverCompletesIsReportedAndTheRestWritten) {
    const TracedRun run = runTraced("never", [](FakeRuntime& rt, const Agent& agent) {
        CHILD_CHECK(load(rt, agent, 1));
        hsa_queue_t* q = nullptr;
        CHILD_CHECK(rt.core().hsa_queue_create_fn(gpu(), 64, 0, nullptr, nullptr, 0, 0, &q) ==
                    HSA_STATUS_SUCCESS);
        hsa_signal_t done{};
        CHILD_CHECK(rt.core().hsa_signal_create_fn(1, 0, nullptr, &done) == HSA_STATUS_SUCCESS);
        rt.submit(q, dispatchPacket(done));  // the device never runs it
        agent.onUnload();
    });
    ASSERT_EQ(run.exitStatus, 0) << run.childErrors;
    EXPECT_NE(run.childErrors.find("1 kernel dispatches or copies had not completed"),
              std::string::npos) << run.childErrors;
    EXPECT_EQ(run.lines(SectionKind::HsaKernelTimestamp).size(), 0u);
    EXPECT_EQ(run.lines(SectionKind::HsaApiTrace).size(), 4u);
}

TEST(HsaAgentErrors, ApplicationThatNeverShutsDownStillGetsItsTrace) {
    const TracedRun run = runTraced("noshutdown", [](FakeRuntime& rt, const Agent& agent) {
        CHILD_CHECK(load(rt, agent, 1));
        hsa_signal_t s{};
        CHILD_CHECK(rt.core().hsa_signal_create_fn(3, 0, nullptr, &s) == HSA_STATUS_SUCCESS);
        CHILD_CHECK(rt.core().hsa_signal_load_relaxed_fn(s) == 3);
    });
    ASSERT_EQ(run.exitStatus, 0) << run.childErrors;
    ASSERT_TRUE(run.haveAtp);
    const auto api = run.lines(SectionKind::HsaApiTrace);
    ASSERT_EQ(api.size(), 3u);
    EXPECT_EQ(api[2], "3 = hsa_signal_load_relaxed ( signal={" +
                          api[2].substr(api[2].find('{') + 1, api[2].find('}') - api[2].find('{') - 1) +
                          "} )");
}

TEST(HsaAgentErrors, ManyThreadsEachGetTheirOwnBlock) {
    constexpr int kThreads = 8;
    constexpr int kCalls = 2000;
    const TracedRun run = runTraced("threads", [](FakeRuntime& rt, const Agent& agent) {
        CHILD_CHECK(load(rt, agent, 1));
        hsa_signal_t s{};
        CHILD_CHECK(rt.core().hsa_signal_create_fn(7, 0, nullptr, &s) == HSA_STATUS_SUCCESS);
        std::vector<std::thread> threads;
        for (int t = 0; t < kThreads; ++t) {
            threads.emplace_back([&rt, s] {
                for (int i = 0; i < kCalls; ++i) CHILD_CHECK(rt.core().hsa_signal_load_relaxed_fn(s) == 7);
            });
        }
        for (auto& t : threads) t.join();
        agent.onUnload();
    });
    ASSERT_EQ(run.exitStatus, 0) << run.childErrors;
    const auto& blocks = run.blocks(SectionKind::HsaApiTrace);
    ASSERT_EQ(blocks.size(), static_cast<size_t>(kThreads + 1));
    size_t loads = 0;
    for (const auto& b : blocks) {
        for (const auto& l : b.lines) loads += l.find("hsa_signal_load_relaxed") != std::string::npos;
    }
    EXPECT_EQ(loads, static_cast<size_t>(kThreads * kCalls));
    EXPECT_EQ(run.lines(SectionKind::HsaTimestamp).size(), run.lines(SectionKind::HsaApiTrace).size());
}

TEST(HsaAgentErrors, StopAndResumeLeaveAGapInTheTrace) {
    const TracedRun run = runTraced("pause", [](FakeRuntime& rt, const Agent& agent) {
        CHILD_CHECK(load(rt, agent, 1));
        hsa_signal_t s{};
        CHILD_CHECK(rt.core().hsa_signal_create_fn(0, 0, nullptr, &s) == HSA_STATUS_SUCCESS);
        agent.stop();
        rt.core().hsa_signal_store_relaxed_fn(s, 11);
        agent.resume();
        rt.core().hsa_signal_store_relaxed_fn(s, 12);
        agent.onUnload();
    });
    ASSERT_EQ(run.exitStatus, 0) << run.childErrors;
    const auto api = run.lines(SectionKind::HsaApiTrace);
    EXPECT_FALSE(has(api, "value=11"));
    EXPECT_TRUE(has(api, "value=12"));
}

TEST(HsaAgentErrors, ApiFilterLeavesTheNamedApisOut) {
    const std::string filter = std::string(PERFMARKER_TEST_TMP) + "/hsa_api_filter.txt";
    std::ofstream(filter) << "  hsa_signal_store_relaxed \n\nnot_an_hsa_api\n";
    const TracedRun run = runTraced(
        "filter",
        [](FakeRuntime& rt, const Agent& agent) {
            CHILD_CHECK(load(rt, agent, 1));
            hsa_signal_t s{};
            CHILD_CHECK(rt.core().hsa_signal_create_fn(0, 0, nullptr, &s) == HSA_STATUS_SUCCESS);
            rt.core().hsa_signal_store_relaxed_fn(s, 5);
            CHILD_CHECK(rt.core().hsa_signal_load_relaxed_fn(s) == 5);  // still passed through
            agent.onUnload();
        },
        {{"PERFMARKER_API_FILTER", filter}});
    ASSERT_EQ(run.exitStatus, 0) << run.childErrors;
    const auto api = run.lines(SectionKind::HsaApiTrace);
    EXPECT_FALSE(has(api, "hsa_signal_store_relaxed"));
    EXPECT_TRUE(has(api, "5 = hsa_signal_load_relaxed"));
}

TEST(HsaAgentErrors, WithoutASessionTheTableIsLeftAlone) {
    const TracedRun run = runTraced(
        "nosession",
        [](FakeRuntime& rt, const Agent& agent) {
            void* before = reinterpret_cast<void*>(rt.core().hsa_signal_load_relaxed_fn);
            CHILD_CHECK(load(rt, agent, 1));
            CHILD_CHECK(reinterpret_cast<void*>(rt.core().hsa_signal_load_relaxed_fn) == before);
        },
        {{"PERFMARKER_OUTPUT", ""}});
    EXPECT_EQ(run.exitStatus, 0) << run.childErrors;
    EXPECT_FALSE(run.haveAtp);
}

template <typename R, typename... A>
void callWithDefaults(R (*f)(A...)) {
    f(A{}...);
}

// Every slot of CoreApiTable and AmdExtTable is wrapped, reaches the runtime's function through
// the table, is recorded under its own name, and is restored at unload.
TEST(HsaAgentErrors, EverySlotOfBothTablesIsWrappedAndRestored) {
    const TracedRun run = runTraced("allslots", [](FakeRuntime& rt, const Agent& agent) {
        rt.stubAll();
        CHILD_CHECK(load(rt, agent, 1));
        void** core = reinterpret_cast<void**>(&rt.core().hsa_init_fn);
        void** amd = reinterpret_cast<void**>(&rt.amd().hsa_amd_coherency_get_type_fn);
        const unsigned coreCount = atp::hsaCoreSlotCount();
        const auto slotOf = [&](unsigned s) { return s < coreCount ? core[s] : amd[s - coreCount]; };
        for (unsigned s = 0; s < kTestSlotCount; ++s) CHILD_CHECK(slotOf(s) != FakeRuntime::stubOf(s));
#define PM_TABLE_Core rt.core()
#define PM_TABLE_AmdExt rt.amd()
#define PM_HSA_API(slot, Table, id, name, ret, params) \
    if (slot != kTest_hsa_init && slot != kTest_hsa_shut_down) callWithDefaults(PM_TABLE_##Table.name##_fn);
#include "api/hsa_api_table.inc"
#undef PM_TABLE_Core
#undef PM_TABLE_AmdExt
        for (unsigned s = 0; s < kTestSlotCount; ++s) {
            CHILD_CHECK(rt.calls(s) > 0 || s == kTest_hsa_init || s == kTest_hsa_shut_down);
        }
        agent.onUnload();
        for (unsigned s = 0; s < kTestSlotCount; ++s) CHILD_CHECK(slotOf(s) == FakeRuntime::stubOf(s));
    });
    ASSERT_EQ(run.exitStatus, 0) << run.childErrors;
    const auto api = run.lines(SectionKind::HsaApiTrace);
    ASSERT_EQ(api.size(), atp::hsaApis().size());  // every slot once (init and shut down fabricated)
    for (size_t i = 0; i < api.size(); ++i) {
        atp::reference::ApiLine parsed;
        std::string error;
        ASSERT_TRUE(atp::reference::parseApiLine(api[i], parsed, error)) << api[i] << ": " << error;
    }
    for (const atp::HsaApiSpec& spec : atp::hsaApis()) EXPECT_TRUE(has(api, spec.name + " (")) << spec.name;
    // The tools' reader takes every line of every API (its formatting, the joined timestamps).
    ASSERT_TRUE(run.typed.parsed) << run.typed.error;
    ASSERT_EQ(run.typed.calls.size(), atp::hsaApis().size());
    for (const auto& call : run.typed.calls) {
        const atp::HsaApiSpec* spec = nullptr;
        for (const auto& s : atp::hsaApis()) {
            if (s.name == call.name) spec = &s;
        }
        ASSERT_NE(spec, nullptr) << call.name;
        EXPECT_EQ(call.apiType, spec->apiTypeId) << call.name;
        EXPECT_LE(call.start, call.end) << call.name;
    }
}

}  // namespace
}  // namespace perfmarker::test
