// The OpenCL trace builder (src/atp/write/ocl_sections.h): thread blocks and pairing, exact timestamp
// lines, clGetEventInfo collapsing, the API-call cap, device times (missing, converted,
// clamped) and object resolution. Uses the fake formatter of atp_trace_support.h.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>
#include <sstream>

#include "api_line_reference.h"
#include "atp_document.h"
#include "atp/format/timestamp_fields.h"
#include "atp/write/ocl_sections.h"
#include "atp_trace_support.h"

namespace perfmarker::atp {
namespace {

using namespace perfmarker::atp::testing;
using record::ObjectType;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr uint64_t kQueue = 0x5000;
constexpr uint64_t kContext = 0x6000;
constexpr uint64_t kDevice = 0x7000;
constexpr uint64_t kKernel = 0x8000;
constexpr uint32_t kNdrangeType = 0x11F0;
constexpr uint32_t kReadType = 0x11F3;

struct Thread {
    uint64_t tid;
    std::vector<Rec> records;
};

struct Built {
    bool ok = false;
    std::string error;
    std::string text;
    OclTraceStats stats;
    std::vector<std::string> warnings;
    AtpDocument doc;

    const std::vector<AtpThreadBlock>& api() { return doc.blocks[SectionKind::OclApiTrace]; }
    const std::vector<AtpThreadBlock>& ts() { return doc.blocks[SectionKind::OclTimestamp]; }
};

// Builds both sections, then reads them back with the .atp reader (which checks pairing).
Built build(const std::vector<Thread>& threads, OclTraceOptions options = {},
            const OclFormatter* given = nullptr) {
    FakeFormatter fake;
    const OclFormatter& formatter = given != nullptr ? *given : fake;
    OclTraceBuilder builder(formatter, options);
    for (const Thread& t : threads) builder.addThread(t.tid, memoryReplay(t.records));
    Built out;
    const TextSink sink = [&out](std::string_view text) {
        out.text.append(text);
        return true;
    };
    out.ok = builder.prepare(out.error);
    if (out.ok && builder.hasLines()) {
        out.ok = builder.writeApiSection(sink, out.error) &&
                 builder.writeTimestampSection(sink, out.error);
    }
    out.stats = builder.stats();
    out.warnings = builder.warnings();
    if (out.ok) {
        out.ok = loadAtpText(out.text, "built", out.doc, out.error);
    }
    return out;
}

// The objects of one GPU queue.
std::vector<Rec> gpuObjects(std::string deviceName = "gfx900", uint64_t deviceType = 4) {
    return {
        objectInfo(1, ObjectType::Context, 0, kContext),
        objectInfo(2, ObjectType::Device, 0, kDevice, 0, kDevice, deviceType, deviceName),
        objectInfo(3, ObjectType::Queue, 0, kQueue, kContext, kDevice),
        objectInfo(4, ObjectType::Kernel, 0, kKernel, 0x9000, 0, 0, "reduce"),
    };
}

OclTimestampLine timestampOf(const std::string& line) {
    std::vector<std::string_view> fields;
    splitFields(line, fields);
    OclTimestampLine out;
    std::string error;
    EXPECT_TRUE(parseOclTimestampFields(fields, out, error)) << error << ": " << line;
    return out;
}

std::string pad(std::string s, size_t width) {
    if (s.size() < width) s.append(width - s.size(), ' ');
    return s;
}

// Every enqueue line with device times: API start <= queued <= API end, and
// queued <= submit <= start <= end.
void expectOrdered(const OclTimestampLine& t, const std::string& context) {
    ASSERT_TRUE(t.hasDevice) << context;
    EXPECT_LE(t.start, t.queued) << context;
    EXPECT_LE(t.queued, t.end) << context;
    EXPECT_LE(t.queued, t.submit) << context;
    EXPECT_LE(t.submit, t.deviceStart) << context;
    EXPECT_LE(t.deviceStart, t.deviceEnd) << context;
}

TEST(OclTraceBuilder, ThreadBlocksArePairedAndCountedPerThread) {
    std::vector<Rec> t1 = gpuObjects();
    t1.push_back(apiCall(100, 200, kBuildProgram, {0x9000}));
    t1.push_back(apiCall(300, 400, kNdrange, {kQueue, kKernel, 1024, 64}, 0, 1));
    t1.push_back(apiCall(500, 600, kReadBuffer, {kQueue, 0xb0, 4096}, 0, 2));
    t1.push_back(apiCall(700, 800, kFinish, {kQueue}));
    const std::vector<Rec> t2 = {apiCall(150, 160, kFinish, {kQueue}),
                                 apiCall(170, 180, kMarker, {kQueue}, 0, 3)};
    // A runtime callback thread: device times only, so it gets no block.
    const std::vector<Rec> t3 = {deviceTimes(900, 1, 350, 360, 370, 380, kNdrangeType),
                                 deviceTimes(901, 2, 550, 560, 570, 580, kReadType),
                                 deviceTimes(902, 3, 175, 176, 177, 178, 0x11FE)};
    Built b = build({{11, t1}, {22, t2}, {33, t3}});
    ASSERT_TRUE(b.ok) << b.error;
    EXPECT_THAT(b.doc.sections, ElementsAre(SectionKind::OclApiTrace, SectionKind::OclTimestamp));
    ASSERT_EQ(b.api().size(), 2u);
    ASSERT_EQ(b.ts().size(), 2u);
    EXPECT_EQ(b.api()[0].tid, 11u);
    EXPECT_EQ(b.api()[1].tid, 22u);
    EXPECT_EQ(b.api()[0].lines.size(), 4u);
    EXPECT_EQ(b.api()[1].lines.size(), 2u);
    EXPECT_EQ(b.ts()[0].lines.size(), 4u);
    EXPECT_EQ(b.ts()[1].lines.size(), 2u);
    EXPECT_EQ(b.api()[0].lines[1],
              "CL_SUCCESS = clEnqueueNDRangeKernel ( 0x5000;0x8000;0x400;0x40 )");
    EXPECT_EQ(b.stats.lines, 6u);
    EXPECT_EQ(b.stats.threads, 2u);
    EXPECT_EQ(b.stats.enqueueLines, 3u);
    EXPECT_EQ(b.stats.missingDeviceTimes, 0u);
    EXPECT_TRUE(b.warnings.empty()) << b.warnings[0];
}

TEST(OclTraceBuilder, TimestampLinesHaveTheSpecWidths) {
    std::vector<Rec> t = gpuObjects();
    t.push_back(apiCall(4035211982331, 4035395871120, kBuildProgram, {0x9000}));
    t.push_back(
        apiCall(4035402110954, 4035402131877, kNdrange, {kQueue, kKernel, 1048576, 256}, 0, 1));
    t.push_back(apiCall(4035402132001, 4035402402666, kReadBuffer, {kQueue, 0xb0, 4096}, 0, 2));
    t.push_back(apiCall(4035402402700, 4035402402800, kMarker, {kQueue}, 0, 3));
    // Device times already in the host clock (consistent with every call: offset 0).
    t.push_back(deviceTimes(1, 1, 4035402125101, 4035402140233, 4035402341000, 4035402377512,
                            kNdrangeType));
    t.push_back(
        deviceTimes(2, 2, 4035402133004, 4035402133521, 4035402378800, 4035402399901, kReadType));
    t.push_back(
        deviceTimes(3, 3, 4035402402750, 4035402402760, 4035402402770, 4035402402780, 0x11FE));
    Built b = build({{7, t}});
    ASSERT_TRUE(b.ok) << b.error;
    const auto& lines = b.ts()[0].lines;
    ASSERT_EQ(lines.size(), 4u);
    const std::string common =
        pad("0", 10) + pad("0x5000", 25) + pad("0", 10) + pad("0x6000", 25) + pad("gfx900", 30);
    // The reader keeps lines trimmed; the padding inside them is what is checked.
    EXPECT_EQ(lines[0], pad("31", 5) + pad("clBuildProgram", 45) + pad("4035211982331", 21) +
                            "4035395871120");
    EXPECT_EQ(lines[1], pad("66", 5) + pad("clEnqueueNDRangeKernel", 45) +
                            pad("4035402110954", 21) + pad("4035402131877", 21) + pad("4592", 8) +
                            pad("CL_COMMAND_NDRANGE_KERNEL", 40) + pad("4035402125101", 21) +
                            pad("4035402140233", 21) + pad("4035402341000", 21) +
                            pad("4035402377512", 21) + common + pad("0x8000", 25) + "reduce" +
                            "      {1048576}     {256}");
    EXPECT_EQ(lines[2], pad("52", 5) + pad("clEnqueueReadBuffer", 45) + pad("4035402132001", 21) +
                            pad("4035402402666", 21) + pad("4595", 8) +
                            pad("CL_COMMAND_READ_BUFFER", 40) + pad("4035402133004", 21) +
                            pad("4035402133521", 21) + pad("4035402378800", 21) +
                            pad("4035402399901", 21) + common + "4096");
    EXPECT_EQ(lines[3], pad("73", 5) + pad("clEnqueueMarker", 45) + pad("4035402402700", 21) +
                            pad("4035402402800", 21) + pad("4606", 8) +
                            pad("CL_COMMAND_MARKER", 40) + pad("4035402402750", 21) +
                            pad("4035402402760", 21) + pad("4035402402770", 21) +
                            pad("4035402402780", 21) + pad("0", 10) + pad("0x5000", 25) +
                            pad("0", 10) + pad("0x6000", 25) + "gfx900");
    // The untrimmed text: the agent-written kernel variant ends with 8 spaces, the others with
    // the padding of their last field.
    EXPECT_THAT(b.text, HasSubstr("{256}        \n"));
    EXPECT_THAT(b.text, HasSubstr(pad("4096", 20) + "\n"));
    EXPECT_THAT(b.text, HasSubstr(pad("gfx900", 30) + "\n"));
}

// clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, 4, [value], [4]).
Rec eventInfo(uint64_t start, uint64_t end, uint64_t event, uint32_t value) {
    std::string v(reinterpret_cast<const char*>(&value), 4);
    const uint64_t size = 4;
    std::string s(reinterpret_cast<const char*>(&size), 8);
    return apiCall(
        start, end, kGetEventInfo, {event, 0x11D3, 4, 0xa0, 0xa8}, 0, 0,
        {{3, record::CaptureEncoding::Bytes, v}, {4, record::CaptureEncoding::Scalar, s}});
}

std::vector<Rec> pollingThread() {
    std::vector<Rec> t;
    for (uint64_t i = 0; i < 5; ++i) t.push_back(eventInfo(100 + 10 * i, 105 + 10 * i, 0xe1, 1));
    t.push_back(apiCall(200, 210, kFinish, {kQueue}));
    t.push_back(eventInfo(300, 305, 0xe1, 1));
    t.push_back(eventInfo(310, 315, 0xe1, 1));
    t.push_back(eventInfo(320, 325, 0xe1, 0));  // the value changed: a new line
    t.push_back(eventInfo(330, 335, 0xe2, 0));  // another event: a new line
    return t;
}

TEST(OclTraceBuilder, CollapsesConsecutiveIdenticalEventQueries) {
    Built b = build({{5, pollingThread()}});
    ASSERT_TRUE(b.ok) << b.error;
    const auto& api = b.api()[0].lines;
    ASSERT_EQ(api.size(), 5u);
    EXPECT_EQ(api[0],
              "CL_SUCCESS = clGetEventInfo ( 0xe1;0x11d3;0x4;0xa0;0xa8 /*5 consecutive calls*/ )");
    EXPECT_THAT(api[1], HasSubstr("clFinish"));
    EXPECT_THAT(api[2], HasSubstr("/*2 consecutive calls*/"));
    EXPECT_THAT(api[3], ::testing::Not(HasSubstr("/*")));
    EXPECT_THAT(api[4], ::testing::Not(HasSubstr("/*")));
    const OclTimestampLine first = timestampOf(b.ts()[0].lines[0]);
    EXPECT_EQ(first.start, 100u);  // first call's start
    EXPECT_EQ(first.end, 145u);    // last call's end
    EXPECT_EQ(b.stats.collapsedCalls, 5u);
    EXPECT_EQ(b.stats.apiCalls, 10u);

    reference::ApiLine parsed;
    std::string error;
    ASSERT_TRUE(reference::parseApiLine(api[0], parsed, error)) << error;
    EXPECT_EQ(parsed.comment, "5 consecutive calls");
    EXPECT_EQ(parsed.params.size(), 5u);
}

// The fake formatter's lines, counted, from a formatter that says its line is a function of
// the payload (all but the end time and the enqueue id) and the count.
class CountingFormatter final : public OclFormatter {
public:
    std::string_view apiName(const record::ApiCallView& call) const override {
        return m_fake.apiName(call);
    }
    int apiType(const record::ApiCallView& call) const override { return m_fake.apiType(call); }
    bool isSuccessfulEnqueue(const record::ApiCallView& call) const override {
        return m_fake.isSuccessfulEnqueue(call);
    }
    bool apiLine(const record::ApiCallView& call, uint32_t count, std::string& line,
                 std::string& error) const override {
        ++lines;
        return m_fake.apiLine(call, count, line, error);
    }
    bool linesAreOfPayload() const override { return true; }
    bool enqueueInfo(const record::ApiCallView& call, OclEnqueueInfo& info,
                     std::string& error) const override {
        return m_fake.enqueueInfo(call, info, error);
    }
    std::string commandTypeName(uint32_t commandType) const override {
        return m_fake.commandTypeName(commandType);
    }
    std::string handleString(uint64_t handle) const override { return m_fake.handleString(handle); }
    mutable int lines = 0;

private:
    FakeFormatter m_fake;
};

// A repeated call's API line is formatted once (src/atp/write/api_line_memo.h): the same text
// as each line formatted, a call that differs in any argument, result, capture or count of
// collapsed calls formatted anew, and a line that fails to format failing each time.
TEST(OclTraceBuilder, RepeatedCallsAreFormattedOnce) {
    std::vector<Rec> loop = gpuObjects();
    uint64_t t = 1000;
    const auto call = [&](uint32_t api, std::vector<uint64_t> args, uint64_t ret = 0,
                          uint64_t enqueueId = 0, std::vector<Capture> captures = {}) {
        loop.push_back(
            apiCall(t, t + 5 + t % 7, api, std::move(args), ret, enqueueId, std::move(captures)));
        t += 20;
    };
    for (uint64_t i = 0; i < 40; ++i) {
        call(kNdrange, {kQueue, kKernel, 16, 0}, 0, 100 + i);  // one line: the ids differ
        if (i % 10 == 9) call(kFinish, {kQueue});
    }
    call(kNdrange, {kQueue, kKernel, 32, 0}, 0, 200);  // an argument
    call(kNdrange, {kQueue, kKernel, 16, 0}, -5, 0);   // the result
    call(kNdrange, {kQueue, kKernel, 16, 0}, 0, 201);  // as the loop's
    call(999, {kQueue});                               // fails to format,
    call(999, {kQueue});                               // each time
    const auto bytes = [](std::string b) {
        return std::vector<Capture>{Capture{0, record::CaptureEncoding::Bytes, std::move(b)}};
    };
    call(kFinish, {kQueue}, 0, 0, bytes("abc"));  // a capture
    call(kFinish, {kQueue}, 0, 0, bytes("abd"));  // its last byte
    call(kFinish, {kQueue}, 0, 0, bytes("abc"));
    const std::vector<Thread> threads = {{5, loop}, {6, pollingThread()}};

    CountingFormatter counting;
    Built memo = build(threads, {}, &counting);
    Built each = build(threads);
    ASSERT_TRUE(memo.ok) << memo.error;
    ASSERT_TRUE(each.ok) << each.error;
    EXPECT_EQ(memo.text, each.text);
    ASSERT_EQ(memo.api()[0].lines.size(), 52u);
    EXPECT_EQ(memo.stats.unformattedLines, 2u);
    // Thread 5: the launch, clFinish, the other size, the failed launch, the two failures and
    // the two captures. Thread 6 (collapsed event queries): its clFinish is thread 5's line;
    // its queries (5 calls, 2 calls, and two others of one call each) are four.
    EXPECT_EQ(counting.lines, 8 + 4);
}

TEST(OclTraceBuilder, CollapsingCanBeTurnedOff) {
    OclTraceOptions options;
    options.collapseEventInfo = false;
    Built b = build({{5, pollingThread()}}, options);
    ASSERT_TRUE(b.ok) << b.error;
    ASSERT_EQ(b.api()[0].lines.size(), 10u);
    for (const std::string& line : b.api()[0].lines)
        EXPECT_THAT(line, ::testing::Not(HasSubstr("/*")));
    EXPECT_EQ(b.stats.collapsedCalls, 0u);
}

TEST(OclTraceBuilder, MaxApiCallsKeepsTheEarliestCallsOfTheProcess) {
    std::vector<Rec> a, c;
    for (uint64_t i = 0; i < 10; ++i) a.push_back(apiCall(10 + 10 * i, 12 + 10 * i, kFinish, {1}));
    for (uint64_t i = 0; i < 10; ++i) c.push_back(apiCall(15 + 10 * i, 17 + 10 * i, kFinish, {2}));
    OclTraceOptions options;
    options.maxApiCalls = 5;  // times 10 15 20 25 30
    Built b = build({{1, a}, {2, c}}, options);
    ASSERT_TRUE(b.ok) << b.error;
    ASSERT_EQ(b.api().size(), 2u);
    EXPECT_EQ(b.api()[0].lines.size(), 3u);
    EXPECT_EQ(b.api()[1].lines.size(), 2u);
    EXPECT_EQ(timestampOf(b.ts()[0].lines[2]).start, 30u);
    EXPECT_EQ(timestampOf(b.ts()[1].lines[1]).start, 25u);
    EXPECT_EQ(b.stats.droppedLines, 15u);
    EXPECT_EQ(b.stats.lines, 5u);
    ASSERT_FALSE(b.warnings.empty());
    EXPECT_THAT(b.warnings[0], HasSubstr("15 API calls beyond the limit of 5"));

    options.maxApiCalls = 20;  // exactly all: nothing dropped
    Built all = build({{1, a}, {2, c}}, options);
    EXPECT_EQ(all.stats.droppedLines, 0u);
    EXPECT_EQ(all.stats.lines, 20u);

    options.maxApiCalls = 0;
    Built none = build({{1, a}, {2, c}}, options);
    ASSERT_TRUE(none.ok) << none.error;
    EXPECT_TRUE(none.text.empty());
    EXPECT_EQ(none.stats.droppedLines, 20u);
}

// A thread alone keeps its first lines; a thread whose starts go back (API records are not
// clamped into order) keeps its earliest lines wherever they are, in their order, next to a
// thread in time order whose reading stops at its first refused line.
TEST(OclTraceBuilder, MaxApiCallsKeepsTheEarliestLinesOfThreadsOutOfTimeOrder) {
    std::vector<Rec> alone;
    for (uint64_t i = 0; i < 10; ++i) alone.push_back(apiCall(100 + i, 100 + i, kFinish, {i}));
    OclTraceOptions options;
    options.maxApiCalls = 4;
    Built first = build({{1, alone}}, options);
    ASSERT_TRUE(first.ok) << first.error;
    ASSERT_EQ(first.ts().size(), 1u);
    ASSERT_EQ(first.ts()[0].lines.size(), 4u);
    for (uint64_t i = 0; i < 4; ++i) EXPECT_EQ(timestampOf(first.ts()[0].lines[i]).start, 100 + i);
    EXPECT_EQ(first.stats.droppedLines, 6u);

    std::vector<Rec> back, ordered;
    for (const uint64_t start : {10, 70, 20, 90, 30, 80, 40}) {
        back.push_back(apiCall(start, start + 1, kFinish, {start}));
    }
    for (const uint64_t start : {25, 35, 45, 55, 65}) {
        ordered.push_back(apiCall(start, start + 1, kFinish, {start}));
    }
    options.maxApiCalls = 6;  // 10 20 25 30 35 40
    Built b = build({{1, back}, {2, ordered}}, options);
    ASSERT_TRUE(b.ok) << b.error;
    ASSERT_EQ(b.ts().size(), 2u);
    std::vector<uint64_t> starts;
    for (const std::string& line : b.ts()[0].lines) starts.push_back(timestampOf(line).start);
    EXPECT_EQ(starts, (std::vector<uint64_t>{10, 20, 30, 40}));
    ASSERT_EQ(b.api()[0].lines.size(), 4u);
    EXPECT_THAT(b.api()[0].lines[1], HasSubstr("0x14"));  // the call that started at 20
    starts.clear();
    for (const std::string& line : b.ts()[1].lines) starts.push_back(timestampOf(line).start);
    EXPECT_EQ(starts, (std::vector<uint64_t>{25, 35}));
    EXPECT_EQ(b.stats.droppedLines, 6u);
    EXPECT_EQ(b.stats.lines, 6u);
}

TEST(OclTraceBuilder, ACollapsedRunCountsAsOneLineForTheCap) {
    OclTraceOptions options;
    options.maxApiCalls = 2;
    Built b = build({{5, pollingThread()}}, options);
    ASSERT_TRUE(b.ok) << b.error;
    ASSERT_EQ(b.api()[0].lines.size(), 2u);
    EXPECT_THAT(b.api()[0].lines[0], HasSubstr("/*5 consecutive calls*/"));
    EXPECT_EQ(b.stats.droppedLines, 3u);
}

TEST(OclTraceBuilder, MissingDeviceTimesAreZerosAndCounted) {
    std::vector<Rec> t = gpuObjects();
    t.push_back(apiCall(100, 200, kNdrange, {kQueue, kKernel, 64, 0}, 0, 1));  // never completed
    t.push_back(apiCall(300, 400, kReadBuffer, {kQueue, 0xb0, 16}, 0, 0));     // no id at all
    t.push_back(apiCall(500, 600, kReadBuffer, {kQueue, 0xb0, 16}, 0, 2));
    t.push_back(deviceTimes(700, 2, 550, 560, 570, 580, kReadType));
    t.push_back(deviceTimes(700, 9, 1, 2, 3, 4, kReadType));  // an id nobody enqueued
    Built b = build({{3, t}});
    ASSERT_TRUE(b.ok) << b.error;
    const OclTimestampLine k = timestampOf(b.ts()[0].lines[0]);
    EXPECT_EQ(k.commandType, kNdrangeType);  // from the API when the runtime said nothing
    EXPECT_EQ(k.commandName, "CL_COMMAND_NDRANGE_KERNEL");
    EXPECT_EQ(k.queued + k.submit + k.deviceStart + k.deviceEnd, 0u);
    EXPECT_EQ(k.localSize, "{NULL}");
    const OclTimestampLine r = timestampOf(b.ts()[0].lines[1]);
    EXPECT_EQ(r.queued + r.submit + r.deviceStart + r.deviceEnd, 0u);
    expectOrdered(timestampOf(b.ts()[0].lines[2]), "line 3");
    EXPECT_EQ(b.stats.missingDeviceTimes, 2u);
    EXPECT_EQ(b.stats.enqueueLines, 3u);
    ASSERT_EQ(b.warnings.size(), 1u);
    EXPECT_THAT(b.warnings[0], HasSubstr("2 of 3 enqueued commands have no device times"));
}

TEST(OclTraceBuilder, FailedEnqueuesHaveNoDeviceFields) {
    std::vector<Rec> t = gpuObjects();
    t.push_back(apiCall(100, 200, kNdrange, {kQueue, kKernel, 64, 0}, static_cast<uint64_t>(-52)));
    Built b = build({{3, t}});
    ASSERT_TRUE(b.ok) << b.error;
    EXPECT_EQ(b.api()[0].lines[0].rfind("-52 = clEnqueueNDRangeKernel", 0), 0u);
    const OclTimestampLine line = timestampOf(b.ts()[0].lines[0]);
    EXPECT_FALSE(line.hasDevice);
    EXPECT_EQ(b.stats.enqueueLines, 0u);
}

TEST(OclTraceBuilder, DeviceTimesInTheHostClockAreKept) {
    std::vector<Rec> t = gpuObjects();
    t.push_back(apiCall(1000, 2000, kNdrange, {kQueue, kKernel, 64, 8}, 0, 1));
    t.push_back(apiCall(3000, 4000, kNdrange, {kQueue, kKernel, 64, 8}, 0, 2));
    t.push_back(deviceTimes(5000, 1, 1500, 1600, 2500, 2600, kNdrangeType));
    t.push_back(deviceTimes(5000, 2, 3900, 4100, 4200, 4300, kNdrangeType));
    Built b = build({{3, t}});
    ASSERT_TRUE(b.ok) << b.error;
    const OclTimestampLine a = timestampOf(b.ts()[0].lines[0]);
    EXPECT_EQ(std::vector<uint64_t>({a.queued, a.submit, a.deviceStart, a.deviceEnd}),
              std::vector<uint64_t>({1500, 1600, 2500, 2600}));
    const OclTimestampLine c = timestampOf(b.ts()[0].lines[1]);
    EXPECT_EQ(c.queued, 3900u);
    EXPECT_EQ(b.stats.clampedDeviceTimes, 0u);
}

TEST(OclTraceBuilder, DeviceClockIsShiftedIntoTheApiCalls) {
    // The device clock runs 1 s behind the host; each command is queued inside its call.
    constexpr uint64_t kBehind = 1000000000;
    std::vector<Rec> t = gpuObjects();
    for (uint64_t i = 0; i < 20; ++i) {
        const uint64_t start = kBehind * 5 + i * 10000;
        t.push_back(apiCall(start, start + 1000, kNdrange, {kQueue, kKernel, 64, 8}, 0, i + 1));
        const uint64_t q = start - kBehind + 100 + (i * 37) % 800;
        t.push_back(deviceTimes(start + 5000, i + 1, q, q + 50, q + 2000, q + 3000, kNdrangeType));
    }
    Built b = build({{3, t}});
    ASSERT_TRUE(b.ok) << b.error;
    for (size_t i = 0; i < b.ts()[0].lines.size(); ++i) {
        const OclTimestampLine line = timestampOf(b.ts()[0].lines[i]);
        expectOrdered(line, "line " + std::to_string(i));
        EXPECT_EQ(line.submit - line.queued, 50u);  // durations survive the shift
        EXPECT_EQ(line.deviceEnd - line.deviceStart, 1000u);
    }
    EXPECT_EQ(b.stats.clampedDeviceTimes, 0u);
}

TEST(OclTraceBuilder, EveryEnqueueLineIsOrderedWhateverTheDeviceSays) {
    std::mt19937_64 rng(12345);
    std::vector<Rec> t = gpuObjects();
    for (uint64_t i = 0; i < 400; ++i) {
        const uint64_t start = 1000000 + i * 5000 + rng() % 3000;
        const uint64_t end = start + rng() % 2000;  // zero-length calls too
        t.push_back(apiCall(start, end, kNdrange, {kQueue, kKernel, 64, 8}, 0, i + 1));
        // A drifting device clock with noise, out-of-order fields and unknown (zero) fields.
        const uint64_t base = start / 2 + i * 7 + rng() % 4000;
        uint64_t v[4] = {base, base + rng() % 500 - 250, base + rng() % 3000 - 1000,
                         base + rng() % 5000 - 2500};
        for (uint64_t& x : v) {
            if (rng() % 10 == 0) x = 0;
        }
        t.push_back(deviceTimes(end + 1, i + 1, v[0], v[1], v[2], v[3], kNdrangeType));
    }
    Built b = build({{3, t}});
    ASSERT_TRUE(b.ok) << b.error;
    size_t withTimes = 0;
    for (size_t i = 0; i < b.ts()[0].lines.size(); ++i) {
        const OclTimestampLine line = timestampOf(b.ts()[0].lines[i]);
        ASSERT_TRUE(line.hasDevice);
        if (line.queued == 0 && line.deviceEnd == 0) continue;  // all four unknown: zeros
        ++withTimes;
        expectOrdered(line, "line " + std::to_string(i));
    }
    EXPECT_GT(withTimes, 390u);
    EXPECT_GT(b.stats.clampedDeviceTimes, 0u);
    bool warned = false;
    for (const std::string& w : b.warnings) warned = warned || w.find("moved into order") != w.npos;
    EXPECT_TRUE(warned);
}

TEST(OclTraceBuilder, ResolvesObjectsAcrossThreadsAndHandleReuse) {
    const uint64_t cpu = 0x7100;
    // Objects recorded by another thread; the queue handle is reused for a second queue.
    const std::vector<Rec> objects = {
        objectInfo(1, ObjectType::Context, 0, kContext),
        objectInfo(2, ObjectType::Context, 1, kContext + 1),
        objectInfo(3, ObjectType::Device, 0, kDevice, 0, kDevice, 4, "Tesla V100\tSXM2 16GB"),
        objectInfo(3, ObjectType::Device, 1, cpu, 0, cpu, 2, "AMD Ryzen 7"),
        objectInfo(10, ObjectType::Queue, 0, kQueue, kContext, kDevice),
        objectInfo(1000, ObjectType::Queue, 1, kQueue, kContext + 1, cpu),
        objectInfo(4, ObjectType::Kernel, 0, kKernel, 0, 0, 0, "scan pass"),
    };
    const std::vector<Rec> calls = {
        apiCall(500, 600, kNdrange, {kQueue, kKernel, 64, 8}, 0, 1),
        apiCall(1500, 1600, kNdrange, {kQueue, kKernel + 1, 64, 8}, 0, 2),
        apiCall(1700, 1800, kNativeKernel, {kQueue, 0xf00}, 0, 3),
        deviceTimes(2000, 1, 550, 560, 570, 580, kNdrangeType),
        deviceTimes(2000, 2, 1550, 1560, 1570, 1580, kNdrangeType),
        deviceTimes(2000, 3, 1750, 1760, 1770, 1780, 0x11F2),
    };
    Built b = build({{1, objects}, {2, calls}});
    ASSERT_TRUE(b.ok) << b.error;
    ASSERT_EQ(b.ts().size(), 1u);
    const OclTimestampLine first = timestampOf(b.ts()[0].lines[0]);
    EXPECT_EQ(first.queueId, 0u);
    EXPECT_EQ(first.contextId, 0u);
    EXPECT_EQ(first.contextHandle, "0x6000");
    EXPECT_EQ(first.deviceName, "Tesla_V100_SXM2_16GB");
    EXPECT_EQ(first.kernelName, "scan_pass");
    const OclTimestampLine second = timestampOf(b.ts()[0].lines[1]);
    EXPECT_EQ(second.queueId, 1u);
    EXPECT_EQ(second.contextId, 1u);
    EXPECT_EQ(second.contextHandle, "0x6001");
    EXPECT_EQ(second.deviceName, "CPU_Device");
    EXPECT_EQ(second.kernelName, "Unknown_Kernel");
    const OclTimestampLine native = timestampOf(b.ts()[0].lines[2]);
    EXPECT_EQ(native.tail, OclTimestampLine::Tail::NativeKernel);
    EXPECT_EQ(native.kernelHandle, "0xf00");
    EXPECT_EQ(b.stats.unknownObjects, 0u);
}

TEST(OclTraceBuilder, UnknownQueueIsReported) {
    const std::vector<Rec> calls = {apiCall(500, 600, kReadBuffer, {0x1234, 0xb0, 8}, 0, 1),
                                    deviceTimes(700, 1, 550, 560, 570, 580, kReadType)};
    Built b = build({{2, calls}});
    ASSERT_TRUE(b.ok) << b.error;
    const OclTimestampLine line = timestampOf(b.ts()[0].lines[0]);
    EXPECT_EQ(line.queueHandle, "0x1234");
    EXPECT_EQ(line.contextHandle, "NULL");
    EXPECT_EQ(line.deviceName, "Unknown_Device");
    EXPECT_EQ(line.dataSize, 8u);
    EXPECT_EQ(b.stats.unknownObjects, 1u);
}

TEST(OclTraceBuilder, BadRecordsKeepTheSectionsPaired) {
    Rec truncated = apiCall(10, 20, kFinish, {1, 2, 3});
    truncated.s0.resize(40);  // announces 3 arguments, holds 1
    const std::vector<Rec> calls = {apiCall(1, 2, kFinish, {1}), truncated,
                                    apiCall(30, 40, 999, {7}, 5), apiCall(50, 60, kFinish, {1})};
    Built b = build({{2, calls}});
    ASSERT_TRUE(b.ok) << b.error;
    ASSERT_EQ(b.api()[0].lines.size(), 3u);
    EXPECT_EQ(b.api()[0].lines[1], "5 = Unknown_function_type ( /*cannot format: no such API*/ )");
    EXPECT_EQ(b.stats.malformedRecords, 1u);
    EXPECT_EQ(b.stats.unformattedLines, 1u);
    EXPECT_EQ(b.warnings.size(), 2u);
}

TEST(OclTraceBuilder, ReplayFailureIsAnError) {
    FakeFormatter formatter;
    OclTraceBuilder builder(formatter);
    builder.addThread(1, [](const RecordVisit&, std::string& error) {
        error = "gone";
        return false;
    });
    std::string error;
    EXPECT_FALSE(builder.prepare(error));
    EXPECT_EQ(error, "gone");
}

TEST(DeviceClock, NormalizeFillsUnknownFields) {
    uint64_t a[4] = {0, 0, 30, 0};
    ASSERT_TRUE(normalizeDeviceTimes(a));
    EXPECT_EQ(std::vector<uint64_t>(a, a + 4), std::vector<uint64_t>({30, 30, 30, 30}));
    uint64_t b[4] = {10, 0, 30, 0};
    ASSERT_TRUE(normalizeDeviceTimes(b));
    EXPECT_EQ(std::vector<uint64_t>(b, b + 4), std::vector<uint64_t>({10, 10, 30, 30}));
    uint64_t none[4] = {0, 0, 0, 0};
    EXPECT_FALSE(normalizeDeviceTimes(none));
}

TEST(DeviceClock, OffsetChoice) {
    DeviceClockFit empty;
    EXPECT_EQ(empty.offset(), 0);

    DeviceClockFit same;  // host clock fits every sample: no shift
    same.add(100, 200, 150);
    same.add(300, 400, 310);
    EXPECT_EQ(same.offset(), 0);

    DeviceClockFit behind;         // feasible offsets [1000 - 0 .. ] -> middle of [960, 990]
    behind.add(1000, 1100, 40);    // offset in [960, 1060]
    behind.add(2000, 2050, 1060);  // offset in [940, 990]
    EXPECT_EQ(behind.offset(), 975);

    DeviceClockFit drift;         // no single offset fits: the smallest upper bound
    drift.add(1000, 1010, 0);     // [1000, 1010]
    drift.add(2000, 2010, 1500);  // [500, 510]
    EXPECT_EQ(drift.offset(), 510);
}

TEST(DeviceClock, ConvertClampsIntoOrder) {
    const uint64_t device[4] = {100, 90, 200, 150};
    uint64_t host[4];
    EXPECT_TRUE(convertDeviceTimes(device, 1000, 1050, 1080, host));
    EXPECT_EQ(std::vector<uint64_t>(host, host + 4),
              std::vector<uint64_t>({1080, 1090, 1200, 1200}));
    const uint64_t fine[4] = {10, 20, 30, 40};
    EXPECT_FALSE(convertDeviceTimes(fine, 1000, 1000, 1020, host));
    EXPECT_EQ(std::vector<uint64_t>(host, host + 4),
              std::vector<uint64_t>({1010, 1020, 1030, 1040}));
    const uint64_t huge[4] = {UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX};
    EXPECT_TRUE(convertDeviceTimes(huge, INT64_MAX, 5, 6, host));
    EXPECT_EQ(host[0], 6u);
    EXPECT_EQ(host[3], UINT64_MAX);
}

}  // namespace
}  // namespace perfmarker::atp
