// The merge side of the HSA trace on its own: API-line text, kernel names, the clock.
#include <gtest/gtest.h>

#include <cstring>

#include "api/hsa_api.h"
#include "atp/write/hsa_api_line.h"
#include "atp/write/hsa_sections.h"
#include "typed_trace.h"

namespace perfmarker::atp {
namespace {

// An ApiCall payload for `name` with raw arguments and no captures.
std::string payload(const std::string& name, uint64_t ret, std::vector<uint64_t> args) {
    const HsaApiSpec* api = hsaApiByName(name);
    record::ApiCallHead head{0, static_cast<uint32_t>(api->apiTypeId),
                             static_cast<uint16_t>(api->slot),
                             static_cast<uint16_t>(args.size()), ret, 0};
    std::string out(reinterpret_cast<const char*>(&head), sizeof head);
    out.append(reinterpret_cast<const char*>(args.data()), args.size() * 8);
    return out;
}

std::string line(const std::string& bytes, const HsaAgentNames& agents = {}) {
    record::ApiCallView view;
    EXPECT_TRUE(record::decodeApiCall(bytes, view));
    std::string text, error;
    EXPECT_TRUE(formatHsaApiLine(view, agents, text, error)) << error;
    return text;
}

TEST(HsaFormat, CatalogueHasTheDocumentedApiIdsAndBothTables) {
    EXPECT_EQ(hsaApiByName("hsa_queue_create")->apiTypeId, 46);
    EXPECT_EQ(hsaApiByName("hsa_amd_memory_async_copy")->apiTypeId, 128);
    EXPECT_EQ(hsaApiByName("hsa_amd_memory_async_copy_rect")->apiTypeId, 197);
    EXPECT_EQ(hsaApiByName("hsa_amd_queue_intercept_create")->apiTypeId, -1);
    EXPECT_EQ(hsaApiTypeName(191), "Init");
    EXPECT_EQ(hsaApiTypeName(-1), "UNKNOWN");
    EXPECT_EQ(hsaApiBySlot(0)->name, "hsa_init");
    EXPECT_EQ(hsaApiBySlot(hsaCoreSlotCount())->name, "hsa_amd_coherency_get_type");
    EXPECT_EQ(hsaApiBySlot(hsaCoreSlotCount())->table, HsaTable::AmdExt);
    EXPECT_EQ(hsaApiBySlot(hsaCoreSlotCount())->index, 0u);
    EXPECT_EQ(hsaEnumName("hsa_status_t", 0x1001), "HSA_STATUS_ERROR_INVALID_ARGUMENT");
    EXPECT_EQ(hsaEnumName("hsa_status_t", 40), "HSA_STATUS_ERROR_INVALID_MEMORY_POOL");
    EXPECT_EQ(hsaEnumName("hsa_status_t", 0x7777), "");
}

TEST(HsaFormat, ApiLinesFollowSpec41) {
    EXPECT_EQ(line(payload("hsa_init", 0, {})), "HSA_STATUS_SUCCESS = hsa_init (  )");
    EXPECT_EQ(line(payload("hsa_signal_store_relaxed", 0, {140246450118912ull, 1})),
              "hsa_signal_store_relaxed ( signal={140246450118912};value=1 )");
    EXPECT_EQ(line(payload("hsa_signal_wait_scacquire", 0, {5, 2, 1, ~0ull, 0})),
              "0 = hsa_signal_wait_scacquire ( signal={5};condition=HSA_SIGNAL_CONDITION_LT;"
              "compare_value=1;timeout_hint=18446744073709551615;wait_state_hint=HSA_WAIT_STATE_BLOCKED )");
    // Negative signal values, unknown enum values, unknown statuses print as numbers.
    EXPECT_EQ(line(payload("hsa_signal_add_relaxed", 0, {5, static_cast<uint64_t>(-3)})),
              "hsa_signal_add_relaxed ( signal={5};value=-3 )");
    EXPECT_EQ(line(payload("hsa_signal_wait_relaxed", 0x7777, {5, 99, 0, 0, 0})).substr(0, 50),
              "30583 = hsa_signal_wait_relaxed ( signal={5};condi");
    EXPECT_NE(line(payload("hsa_memory_copy", 0x1001, {0x7f00, 0, 8})).find(
                  "HSA_STATUS_ERROR_INVALID_ARGUMENT = hsa_memory_copy ( dst=0x7f00;src=NULL;size=8 )"),
              std::string::npos);
    const HsaAgentNames agents = {{30811232, "AMD Ryzen 7, 8-Core"}};
    EXPECT_NE(line(payload("hsa_agent_get_info", 0, {30811232, 0, 0x10}), agents).find(
                  "agent={handle=30811232,name=AMD&nbsp;Ryzen&nbsp;7&comma;&nbsp;8-Core};"
                  "attribute=HSA_AGENT_INFO_NAME;value=0x10"),
              std::string::npos);
}

TEST(HsaFormat, UnknownSlotIsAnError) {
    record::ApiCallHead head{0, 0, 9999, 0, 0, 0};
    record::ApiCallView view;
    ASSERT_TRUE(record::decodeApiCall({reinterpret_cast<const char*>(&head), sizeof head}, view));
    std::string text, error;
    EXPECT_FALSE(formatHsaApiLine(view, {}, text, error));
    EXPECT_EQ(error, "unknown HSA table slot 9999");
    // Appending in place (the merge's way) leaves the text as it was.
    text = "kept\n";
    EXPECT_FALSE(appendHsaApiLine(view, {}, text, error));
    EXPECT_EQ(text, "kept\n");
}

// The merge appends each line after the ones before; formatHsaApiLine starts a line afresh.
TEST(HsaFormat, LinesAppendAfterTheTextBefore) {
    record::ApiCallView view;
    const std::string bytes = payload("hsa_signal_add_relaxed", 0, {5, static_cast<uint64_t>(-3)});
    ASSERT_TRUE(record::decodeApiCall(bytes, view));
    std::string text = "line one\n", error;
    ASSERT_TRUE(appendHsaApiLine(view, {}, text, error)) << error;
    EXPECT_EQ(text, "line one\nhsa_signal_add_relaxed ( signal={5};value=-3 )");
    ASSERT_TRUE(formatHsaApiLine(view, {}, text, error)) << error;
    EXPECT_EQ(text, "hsa_signal_add_relaxed ( signal={5};value=-3 )");
}

TEST(HsaFormat, KernelNames) {
    EXPECT_EQ(hsaKernelDisplayName("_Z6reducePfS_i", true), "reduce(float*&comma;&nbsp;float*&comma;&nbsp;int)");
    EXPECT_EQ(hsaKernelDisplayName("Z6reducePfS_i.kd", true), "reduce(float*&comma;&nbsp;float*&comma;&nbsp;int)");
    EXPECT_EQ(hsaKernelDisplayName("_Z6reducePfS_i", false), "_Z6reducePfS_i");
    EXPECT_EQ(hsaKernelDisplayName("plain_kernel", true), "plain_kernel");
    EXPECT_EQ(hsaKernelDisplayName("", true), "<UnknownKernelName>");
}

TEST(HsaFormat, ClockConvertsWithOneAndTwoCalibrations) {
    HsaClock none;
    EXPECT_EQ(none.toHost(12345), 12345u);
    HsaClock one;
    one.add(1000, 500000000, 10000, 10002);  // system 1000 <-> host 10001, 2 ns per tick
    EXPECT_TRUE(one.calibrated());
    EXPECT_EQ(one.toHost(1500), 11001u);
    EXPECT_EQ(one.toHost(0), 8001u);
    HsaClock two;
    two.add(1000, 500000000, 10000, 10000);
    two.add(2000, 500000000, 12010, 12010);  // drift: 2.01 ns per tick
    EXPECT_EQ(two.toHost(1500), 11005u);
    HsaClock bad;
    bad.add(1000, 0, 10, 20);  // no frequency: ignored
    bad.add(1000, 1, 20, 10);  // window backwards: ignored
    EXPECT_FALSE(bad.calibrated());
}

// In the original tools a name longer than its 45 columns ran into the start time (setw never
// truncates; our writer puts a space after it); the reader splits it off with the name of the
// API line, and still rejects what does not fit.
TEST(HsaFormat, OverlongNamesInTimestampLinesAreSplitByTheReader) {
    const std::string name = "hsa_amd_profiling_convert_tick_to_system_domain";
    const std::string head = "=====hsa API Trace Output=====\n1\n1\nHSA_STATUS_SUCCESS = " + name +
                             " ( agent={handle=1,name=gfx900};host_tick=1;agent_tick=NULL )\n"
                             "=====hsa Timestamp Output=====\n1\n1\n";
    const auto ok = test::readTypedText(head + "118  " + name + "4203777687106 4203777687126\n");
    ASSERT_TRUE(ok.parsed) << ok.error;
    ASSERT_EQ(ok.calls.size(), 1u);
    EXPECT_EQ(ok.calls[0].name, name);
    EXPECT_EQ(ok.calls[0].start, 4203777687106u);
    EXPECT_EQ(ok.calls[0].end, 4203777687126u);
    EXPECT_FALSE(ok.calls[0].hasTransferTimes);

    const auto other = test::readTypedText(head + "118 hsa_init4203777687106 4203777687126\n");
    EXPECT_FALSE(other.parsed);
    EXPECT_EQ(other.error, "t.atp:8: expected a timestamp line 'type name start end' (6 fields "
                           "for an async copy), not 3 fields, got '118 hsa_init4203777687106 "
                           "4203777687126'");
    const auto notNumber = test::readTypedText(head + "118 " + name + "12x 4203777687126\n");
    EXPECT_FALSE(notNumber.parsed);
    EXPECT_NE(notNumber.error.find("t.atp:8: expected a timestamp line"), std::string::npos)
        << notNumber.error;
}

TEST(HsaFormat, OverlongCopyNameKeepsItsTransferTimes) {
    // Not an async copy by name, but the 6-field form is read the same way.
    const std::string name = "hsa_amd_profiling_convert_tick_to_system_domain";
    const std::string text = "=====hsa API Trace Output=====\n1\n1\nHSA_STATUS_SUCCESS = " + name +
                             " (  )\n=====hsa Timestamp Output=====\n1\n1\n118 " + name +
                             "10 20 30 40\n";
    const auto t = test::readTypedText(text);
    ASSERT_TRUE(t.parsed) << t.error;
    ASSERT_EQ(t.calls.size(), 1u);
    EXPECT_EQ(t.calls[0].start, 10u);
    EXPECT_EQ(t.calls[0].end, 20u);
    EXPECT_TRUE(t.calls[0].hasTransferTimes);
    EXPECT_EQ(t.calls[0].transferStart, 30u);
    EXPECT_EQ(t.calls[0].transferEnd, 40u);
}

}  // namespace
}  // namespace perfmarker::atp
