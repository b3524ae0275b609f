// The HSA agent driven through a constructed runtime table (see fake_runtime.h): OnLoad, the
// application's calls through the table, OnUnload, then the .atp read back.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <thread>

#include "ActivityLogger.h"
#include "agent_harness.h"
#include "api/hsa_api.h"
#include "record/clock.h"

namespace perfmarker::test {
namespace {

using atp::SectionKind;

bool contains(const std::vector<std::string>& lines, const std::string& text) {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.find(text) != std::string::npos; });
}

int64_t toInt(const std::string& s) { return std::stoll(s); }

// The tools' reader accepted the whole file, with nothing to warn about.
void expectTypedReadClean(const TracedRun& run) {
    EXPECT_TRUE(run.typed.parsed) << run.typed.error;
    EXPECT_TRUE(run.typed.warnings.empty()) << run.typed.warnings.front();
}

TEST(HsaAgent, WritesApiTraceAndTimestampSections) {
    const TracedRun run = runTraced("api", [](FakeRuntime& rt, const Agent& agent) {
        CHILD_CHECK(load(rt, agent));
        CoreApiTable& t = rt.core();
        hsa_signal_t s{};
        CHILD_CHECK(t.hsa_signal_create_fn(1, 0, nullptr, &s) == HSA_STATUS_SUCCESS);
        t.hsa_signal_store_relaxed_fn(s, 1);
        CHILD_CHECK(t.hsa_signal_wait_scacquire_fn(s, HSA_SIGNAL_CONDITION_LT, 2, UINT64_MAX,
                                                   HSA_WAIT_STATE_BLOCKED) == 1);
        char name[64];
        CHILD_CHECK(t.hsa_agent_get_info_fn(gpu(), HSA_AGENT_INFO_NAME, name) == HSA_STATUS_SUCCESS);
        hsa_queue_t* q = nullptr;
        CHILD_CHECK(t.hsa_queue_create_fn(gpu(), 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr,
                                          UINT32_MAX, UINT32_MAX, &q) == HSA_STATUS_SUCCESS);
        CHILD_CHECK(t.hsa_queue_destroy_fn(q) == HSA_STATUS_SUCCESS);
        CHILD_CHECK(t.hsa_signal_destroy_fn(s) == HSA_STATUS_SUCCESS);
        agent.onUnload();
    });
    ASSERT_EQ(run.exitStatus, 0) << run.childErrors;
    ASSERT_TRUE(run.haveAtp) << run.childErrors;
    ASSERT_TRUE(run.readError.empty()) << run.readError;
    const auto api = run.lines(SectionKind::HsaApiTrace);
    const auto ts = run.lines(SectionKind::HsaTimestamp);
    ASSERT_EQ(api.size(), 9u);
    ASSERT_EQ(ts.size(), api.size());
    EXPECT_EQ(api.front(), "HSA_STATUS_SUCCESS = hsa_init (  )");
    EXPECT_EQ(api.back(), "HSA_STATUS_SUCCESS = hsa_shut_down (  )");
    EXPECT_TRUE(api[1].rfind("HSA_STATUS_SUCCESS = hsa_signal_create ( initial_value=1;num_consumers=0;"
                             "consumers=NULL;signal=[{", 0) == 0) << api[1];
    EXPECT_TRUE(api[2].rfind("hsa_signal_store_relaxed ( signal={", 0) == 0) << api[2];
    EXPECT_NE(api[2].find("};value=1 )"), std::string::npos) << api[2];
    EXPECT_NE(api[3].find("1 = hsa_signal_wait_scacquire ( "), std::string::npos) << api[3];
    EXPECT_NE(api[3].find("condition=HSA_SIGNAL_CONDITION_LT;compare_value=2;"
                          "timeout_hint=18446744073709551615;wait_state_hint=HSA_WAIT_STATE_BLOCKED )"),
              std::string::npos) << api[3];
    EXPECT_NE(api[4].find("agent={handle=2000,name=gfx900};attribute=HSA_AGENT_INFO_NAME;"),
              std::string::npos) << api[4];
    EXPECT_NE(api[5].find("hsa_queue_create ( agent={handle=2000,name=gfx900};size=64;type=0;"
                          "callback=0;data=NULL;private_segment_size=4294967295;"
                          "group_segment_size=4294967295;queue=[[{0,1,"),
              std::string::npos) << api[5];
    // Timestamp lines: HSA_API_Type id, name, start <= end, in order.
    const std::vector<std::pair<int, std::string>> expected = {
        {1, "hsa_init"}, {10, "hsa_signal_create"}, {14, "hsa_signal_store_relaxed"},
        {44, "hsa_signal_wait_scacquire"}, {6, "hsa_agent_get_info"}, {46, "hsa_queue_create"},
        {48, "hsa_queue_destroy"}, {11, "hsa_signal_destroy"}, {2, "hsa_shut_down"}};
    int64_t previous = 0;
    for (size_t i = 0; i < ts.size(); ++i) {
        const auto f = fields(ts[i]);
        ASSERT_EQ(f.size(), 4u) << ts[i];
        EXPECT_EQ(toInt(f[0]), expected[i].first) << ts[i];
        EXPECT_EQ(f[1], expected[i].second);
        EXPECT_LE(toInt(f[2]), toInt(f[3]));
        EXPECT_GE(toInt(f[2]), previous);
        previous = toInt(f[2]);
    }
    EXPECT_EQ(run.blocks(SectionKind::HsaKernelTimestamp).size(), 0u);

    // The same calls as the tools see them: names, HSA_API_Type ids, returns, parameters.
    expectTypedReadClean(run);
    const auto& calls = run.typed.calls;
    ASSERT_EQ(calls.size(), expected.size());
    for (size_t i = 0; i < calls.size(); ++i) {
        EXPECT_EQ(calls[i].apiType, expected[i].first);
        EXPECT_EQ(calls[i].name, expected[i].second);
        EXPECT_LE(calls[i].start, calls[i].end) << calls[i].name;
        EXPECT_FALSE(calls[i].hasTransferTimes) << calls[i].name;
    }
    EXPECT_EQ(calls[0].returnValue, "HSA_STATUS_SUCCESS");
    EXPECT_TRUE(calls[0].params.empty());
    EXPECT_EQ(calls[2].returnValue, "");  // void API: no "<ret> = "
    EXPECT_EQ(paramValue(calls[2], "value"), "1");
    EXPECT_EQ(calls[3].returnValue, "1");  // integer return in decimal
    EXPECT_EQ(paramValue(calls[3], "condition"), "HSA_SIGNAL_CONDITION_LT");
    EXPECT_EQ(paramValue(calls[4], "agent"), "{handle=2000,name=gfx900}");
    EXPECT_EQ(paramValue(calls[4], "attribute"), "HSA_AGENT_INFO_NAME");
    EXPECT_EQ(calls[5].params.size(), 8u);
    EXPECT_EQ(paramValue(calls[5], "size"), "64");
    EXPECT_EQ(paramValue(calls[5], "queue").rfind("[[{0,1,", 0), 0u);
    EXPECT_TRUE(run.typed.dispatches.empty());
}

TEST(HsaAgent, TimesKernelDispatchesThroughQueueInterception) {
    const TracedRun run = runTraced("dispatch", [](FakeRuntime& rt, const Agent& agent) {
        CHILD_CHECK(load(rt, agent));
        CoreApiTable& t = rt.core();
        hsa_executable_symbol_t symbol{};
        CHILD_CHECK(t.hsa_executable_get_symbol_by_name_fn(hsa_executable_t{5}, kKernelSymbol,
                                                           nullptr, &symbol) == HSA_STATUS_SUCCESS);
        hsa_queue_t* q = nullptr;
        CHILD_CHECK(t.hsa_queue_create_fn(gpu(), 64, HSA_QUEUE_TYPE_MULTI, nullptr, nullptr,
                                          UINT32_MAX, UINT32_MAX, &q) == HSA_STATUS_SUCCESS);
        CHILD_CHECK(rt.calls(kTest_hsa_amd_queue_intercept_create) == 1);
        hsa_signal_t done{};
        CHILD_CHECK(t.hsa_signal_create_fn(2, 0, nullptr, &done) == HSA_STATUS_SUCCESS);
        rt.submit(q, dispatchPacket(done));
        rt.submit(q, dispatchPacket(done));
        // Known device times: 1 ms and 2 ms from now on the host clock, in the system domain.
        const uint64_t host = record::monotonicNs();
        CHILD_CHECK(rt.execute(q, hostToSystem(host + 1000000), hostToSystem(host + 2000000)) == 2);
        CHILD_CHECK(t.hsa_signal_wait_scacquire_fn(done, HSA_SIGNAL_CONDITION_EQ, 0, 2000000000,
                                                   HSA_WAIT_STATE_BLOCKED) == 0);
        CHILD_CHECK(rt.drainHandlers());
        agent.onUnload();
    });
    ASSERT_EQ(run.exitStatus, 0) << run.childErrors;
    ASSERT_TRUE(run.readError.empty()) << run.readError;
    const auto kernels = run.lines(SectionKind::HsaKernelTimestamp);
    ASSERT_EQ(kernels.size(), 2u) << run.childErrors;
    const auto f = fields(kernels[0]);
    ASSERT_EQ(f.size(), 11u) << kernels[0];
    EXPECT_EQ(f[0], "reduce(float*&comma;&nbsp;float*&comma;&nbsp;int)");
    EXPECT_EQ(f[1], "0x7F8C3A2B1C00");
    // Converted back into the trace clock: 1 ms apart (within the calibration's error).
    EXPECT_NEAR(static_cast<double>(toInt(f[3]) - toInt(f[2])), 1e6, 2e3);
    EXPECT_EQ(f[4], "gfx900");
    EXPECT_EQ(f[5], "{2000}");
    EXPECT_EQ(f[6], "0");  // queue index
    EXPECT_EQ(f[7], "0");  // GPU index
    EXPECT_EQ(f[8], "HSA_PACKET_TYPE_KERNEL_DISPATCH");
    EXPECT_EQ(f[9], "0");  // packet id: the first write index
    EXPECT_EQ(fields(kernels[1])[9], "1");
    EXPECT_EQ(f[10].rfind("{", 0), 0u);
    EXPECT_NE(f[10].find(",256,1,1,0,1048576,1,1,0,0,140240248052736,NULL,0,{"), std::string::npos)
        << f[10];
    // The packet shows the application's completion signal, not the agent's.
    const auto api = run.lines(SectionKind::HsaApiTrace);
    ASSERT_TRUE(contains(api, "hsa_executable_get_symbol_by_name"));
    // Device times lie between the first and last API call (same clock).
    const auto ts = run.lines(SectionKind::HsaTimestamp);
    EXPECT_GT(toInt(f[2]), toInt(fields(ts.front())[2]));

    // The dispatches as the tools see them, equal to what the fake queue ran.
    expectTypedReadClean(run);
    const auto& d = run.typed.dispatches;
    ASSERT_EQ(d.size(), 2u);
    for (size_t i = 0; i < d.size(); ++i) {
        EXPECT_EQ(d[i].kernelName, "reduce(float*, float*, int)");
        EXPECT_EQ(d[i].kernelHandle, "0x7F8C3A2B1C00");
        EXPECT_EQ(d[i].start, static_cast<uint64_t>(toInt(fields(kernels[i])[2])));
        EXPECT_EQ(d[i].end, static_cast<uint64_t>(toInt(fields(kernels[i])[3])));
        EXPECT_LT(d[i].start, d[i].end);
        EXPECT_EQ(d[i].agentName, kGpuName);
        EXPECT_EQ(d[i].agentHandle, "{2000}");
        EXPECT_EQ(d[i].queueIndex, 0u);
        EXPECT_EQ(d[i].agentIndex, 0u);
        EXPECT_EQ(d[i].packetType, "HSA_PACKET_TYPE_KERNEL_DISPATCH");
        EXPECT_EQ(d[i].packetId, std::to_string(i));
    }
    // Both ran in one execute(): the device times the fake gave them, 1 ms long.
    EXPECT_NEAR(static_cast<double>(d[1].end - d[1].start), 1e6, 2e3);
    EXPECT_EQ(d[0].start, d[1].start);
    EXPECT_EQ(d[0].end, d[1].end);
    EXPECT_GT(d[0].start, run.typed.calls.front().start);
    const auto lookups = run.typed.callsNamed("hsa_executable_get_symbol_by_name");
    ASSERT_EQ(lookups.size(), 1u);
    EXPECT_EQ(lookups[0].returnValue, "HSA_STATUS_SUCCESS");
    EXPECT_EQ(paramValue(lookups[0], "symbol_name"), "[\"_Z6reducePfS_i\"]");
}

TEST(HsaAgent, AsyncCopiesCarryTheirTransferTimes) {
    const TracedRun run = runTraced("copy", [](FakeRuntime& rt, const Agent& agent) {
        CHILD_CHECK(load(rt, agent));
        hsa_signal_t done{};
        CHILD_CHECK(rt.core().hsa_signal_create_fn(1, 0, nullptr, &done) == HSA_STATUS_SUCCESS);
        const uint64_t host = record::monotonicNs();
        rt.setCopyTimes(hostToSystem(host + 500000), hostToSystem(host + 1500000));
        static char src[4096], dst[4096];
        CHILD_CHECK(rt.amd().hsa_amd_memory_async_copy_fn(dst, gpu(), src, hsa_agent_t{kCpuAgent},
                                                          sizeof src, 0, nullptr, done) == HSA_STATUS_SUCCESS);
        // The application's signal completes as the copy's would, once the agent saw its times.
        CHILD_CHECK(rt.core().hsa_signal_wait_scacquire_fn(done, HSA_SIGNAL_CONDITION_EQ, 0,
                                                           2000000000, HSA_WAIT_STATE_BLOCKED) == 0);
        CHILD_CHECK(rt.amd().hsa_amd_memory_async_copy_fn(dst, gpu(), src, gpu(), 0, 0, nullptr,
                                                          done) == HSA_STATUS_ERROR_INVALID_ARGUMENT);
        CHILD_CHECK(rt.drainHandlers());
        CHILD_CHECK(rt.core().hsa_signal_load_relaxed_fn(done) == 0);  // untouched by the failure
        agent.onUnload();
    });
    ASSERT_EQ(run.exitStatus, 0) << run.childErrors;
    const auto api = run.lines(SectionKind::HsaApiTrace);
    const auto ts = run.lines(SectionKind::HsaTimestamp);
    ASSERT_EQ(api.size(), 7u);
    EXPECT_NE(api[2].find("HSA_STATUS_SUCCESS = hsa_amd_memory_async_copy ( dst=0x"), std::string::npos);
    EXPECT_NE(api[2].find(";dst_agent={handle=2000,name=gfx900};src=0x"), std::string::npos) << api[2];
    EXPECT_NE(api[2].find("src_agent={handle=1000,name=AMD&nbsp;Ryzen&nbsp;7&nbsp;1800X&nbsp;"
                          "Eight-Core&nbsp;Processor};size=4096;num_dep_signals=0;dep_signals=NULL;"
                          "completion_signal={"), std::string::npos) << api[2];
    const auto copy = fields(ts[2]);
    ASSERT_EQ(copy.size(), 6u) << ts[2];
    EXPECT_EQ(copy[0], "128");
    EXPECT_NEAR(static_cast<double>(toInt(copy[5]) - toInt(copy[4])), 1e6, 2e3);
    // The call began at or after `host` and the transfer at host + 0.5 ms, so the transfer starts
    // at most 0.5 ms (plus the calibration's error) after the call; a loaded machine can delay
    // the call by any amount, so there is no lower bound.
    EXPECT_LE(static_cast<double>(toInt(copy[4]) - toInt(copy[2])), 5e5 + 2e3);
    const auto failed = fields(ts[4]);
    EXPECT_EQ(failed.size(), 4u) << ts[4];
    EXPECT_NE(api[4].find("HSA_STATUS_ERROR_INVALID_ARGUMENT = hsa_amd_memory_async_copy"), std::string::npos);

    // Typed: the successful copy carries its transfer times, the failed one none.
    expectTypedReadClean(run);
    const auto copies = run.typed.callsNamed("hsa_amd_memory_async_copy");
    ASSERT_EQ(copies.size(), 2u);
    EXPECT_EQ(copies[0].apiType, 128);
    EXPECT_EQ(copies[0].returnValue, "HSA_STATUS_SUCCESS");
    EXPECT_EQ(paramValue(copies[0], "size"), "4096");
    EXPECT_EQ(paramValue(copies[0], "dst_agent"), "{handle=2000,name=gfx900}");
    ASSERT_TRUE(copies[0].hasTransferTimes);
    EXPECT_EQ(copies[0].transferStart, static_cast<uint64_t>(toInt(copy[4])));
    EXPECT_EQ(copies[0].transferEnd, static_cast<uint64_t>(toInt(copy[5])));
    EXPECT_LE(copies[0].start, copies[0].end);
    EXPECT_LT(copies[0].transferStart, copies[0].transferEnd);
    EXPECT_EQ(copies[1].returnValue, "HSA_STATUS_ERROR_INVALID_ARGUMENT");
    EXPECT_FALSE(copies[1].hasTransferTimes);
    EXPECT_EQ(paramValue(copies[1], "size"), "0");
}

// The application's ActivityLogger: its stop / resume reach the agent (found by its SONAME) and
// its markers are merged into the same .atp.
TEST(HsaAgent, ActivityLoggerPausesTheAgentAndItsMarkersJoinTheTrace) {
    const TracedRun run = runTraced("markers", [](FakeRuntime& rt, const Agent& agent) {
        CHILD_CHECK(load(rt, agent));
        CHILD_CHECK(amdtInitializeActivityLogger() == AL_SUCCESS);
        CHILD_CHECK(amdtBeginMarker("Upload", "IO", nullptr) == AL_SUCCESS);
        hsa_signal_t s{};
        CHILD_CHECK(rt.core().hsa_signal_create_fn(0, 0, nullptr, &s) == HSA_STATUS_SUCCESS);
        CHILD_CHECK(amdtStopProfiling(AMDT_TRACE_PROFILING) == AL_SUCCESS);
        rt.core().hsa_signal_store_relaxed_fn(s, 21);
        CHILD_CHECK(amdtResumeProfiling(AMDT_TRACE_PROFILING) == AL_SUCCESS);
        rt.core().hsa_signal_store_relaxed_fn(s, 22);
        CHILD_CHECK(amdtEndMarker() == AL_SUCCESS);
        agent.onUnload();
        CHILD_CHECK(amdtFinalizeActivityLogger() == AL_SUCCESS);
    });
    ASSERT_EQ(run.exitStatus, 0) << run.childErrors;
    const auto api = run.lines(SectionKind::HsaApiTrace);
    EXPECT_FALSE(contains(api, "value=21"));
    EXPECT_TRUE(contains(api, "value=22"));
    ASSERT_EQ(run.doc.markers.threads.size(), 1u) << run.childErrors;
    EXPECT_EQ(run.doc.markers.threads[0].markers.size(), 2u);

    // Typed: the markers and the calls share the thread and the clock.
    expectTypedReadClean(run);
    const auto& markers = run.typed.markers;
    ASSERT_EQ(markers.size(), 2u);
    EXPECT_EQ(markers[0].name, "Upload");
    const auto stores = run.typed.callsNamed("hsa_signal_store_relaxed");
    ASSERT_EQ(stores.size(), 1u);
    EXPECT_EQ(paramValue(stores[0], "value"), "22");
    EXPECT_EQ(markers[0].tid, stores[0].tid);
    EXPECT_LE(markers[0].timestampNs, stores[0].start);
    EXPECT_GE(markers[1].timestampNs, stores[0].end);
}

}  // namespace
}  // namespace perfmarker::test
