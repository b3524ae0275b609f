#include <gtest/gtest.h>

#include <set>

#include "report/timeline.h"
#include "report_records.h"

namespace perfmarker::report {
namespace {

using testing::sendApi;
using testing::sendEnqueue;
using testing::sendMarker;

const Item* findItem(const Timeline& timeline, const std::string& name) {
    for (const Item& item : timeline.items) {
        if (timeline.strings[item.name] == name) return &item;
    }
    return nullptr;
}

TEST(ReportTimeline, NestedMarkersGetDepthsAndDetails) {
    TimelineCollector collector;
    collector.onFileBegin("dir/a.atp");
    sendMarker(collector, 5, atp::MarkerKind::Begin, 100, "Outer", "", "Render");
    sendMarker(collector, 5, atp::MarkerKind::Begin, 150, "Inner", "frame=7");
    sendMarker(collector, 5, atp::MarkerKind::End, 180);
    sendMarker(collector, 5, atp::MarkerKind::End, 300);
    collector.onFileEnd("dir/a.atp");
    const Timeline timeline = collector.take();
    ASSERT_EQ(timeline.items.size(), 2u);
    const Item* outer = findItem(timeline, "Outer");
    const Item* inner = findItem(timeline, "Inner");
    ASSERT_NE(outer, nullptr);
    ASSERT_NE(inner, nullptr);
    EXPECT_EQ(outer->depth, 0);
    EXPECT_EQ(inner->depth, 1);
    EXPECT_EQ(outer->start, 100u);
    EXPECT_EQ(outer->end, 300u);
    EXPECT_EQ(inner->duration(), 30u);
    EXPECT_EQ(outer->kind, ItemKind::Marker);
    EXPECT_EQ(outer->details, "group=Render");
    EXPECT_EQ(inner->details, "group=Default\nuser=frame=7");
    ASSERT_EQ(timeline.processes.size(), 1u);
    EXPECT_EQ(timeline.processes[0].name, "a.atp");
    ASSERT_EQ(timeline.tracks.size(), 1u);
    EXPECT_EQ(timeline.tracks[0].label, "thread 5");
    EXPECT_TRUE(timeline.warnings.empty());
}

TEST(ReportTimeline, EndExRenamesTheMarker) {
    TimelineCollector collector;
    collector.onFileBegin("a.atp");
    sendMarker(collector, 1, atp::MarkerKind::Begin, 10, "Frame");
    sendMarker(collector, 1, atp::MarkerKind::EndEx, 20, "FrameDone", "", "Render");
    const Timeline timeline = collector.take();
    ASSERT_EQ(timeline.items.size(), 1u);
    EXPECT_EQ(timeline.strings[timeline.items[0].name], "FrameDone");
    EXPECT_EQ(timeline.items[0].details, "group=Render");
}

TEST(ReportTimeline, UnbalancedEndIsIgnoredAndOpenMarkersCloseAtTheTraceEnd) {
    TimelineCollector collector;
    collector.onFileBegin("a.atp");
    sendMarker(collector, 1, atp::MarkerKind::End, 5);
    sendMarker(collector, 1, atp::MarkerKind::Begin, 10, "Never ended");
    sendApi(collector, 1, "clFinish", 40, 90);
    collector.onFileEnd("a.atp");
    const Timeline timeline = collector.take();
    ASSERT_EQ(timeline.items.size(), 2u);
    const Item* open = findItem(timeline, "Never ended");
    ASSERT_NE(open, nullptr);
    EXPECT_EQ(open->end, 90u);
    ASSERT_EQ(timeline.warnings.size(), 1u);
    EXPECT_NE(timeline.warnings[0].find("a.atp: thread 1: 1 marker(s) never ended"),
              std::string::npos);
}

TEST(ReportTimeline, DeviceCommandsGoToTheirQueueByKind) {
    TimelineCollector collector;
    collector.onFileBegin("a.atp");
    sendEnqueue(collector, 4592, "CL_COMMAND_NDRANGE_KERNEL", "vecadd", 1000, 2000, 0);
    sendEnqueue(collector, 4596, "CL_COMMAND_WRITE_BUFFER", "", 500, 900, 0);
    sendEnqueue(collector, 4606, "CL_COMMAND_MARKER", "", 2100, 2200, 1);
    const Timeline timeline = collector.take();
    const Item* kernel = findItem(timeline, "vecadd");
    const Item* write = findItem(timeline, "CL_COMMAND_WRITE_BUFFER");
    const Item* marker = findItem(timeline, "CL_COMMAND_MARKER");
    ASSERT_TRUE(kernel && write && marker);
    EXPECT_EQ(kernel->kind, ItemKind::Kernel);
    EXPECT_EQ(write->kind, ItemKind::Memory);
    EXPECT_EQ(marker->kind, ItemKind::Other);
    EXPECT_EQ(kernel->track, write->track);
    EXPECT_NE(kernel->track, marker->track);
    EXPECT_EQ(timeline.tracks[kernel->track].label, "OpenCL queue 0 (pthread-cpu)");
    EXPECT_EQ(timeline.tracks[kernel->track].kind, TrackKind::Queue);
    EXPECT_NE(kernel->details.find("global={1024}\nlocal={64}"), std::string::npos);
    // Threads come before queues, and items are ordered by track, then start.
    EXPECT_EQ(timeline.tracks[0].kind, TrackKind::Thread);
    for (size_t i = 1; i < timeline.items.size(); ++i) {
        const Item& a = timeline.items[i - 1];
        const Item& b = timeline.items[i];
        EXPECT_TRUE(a.track < b.track || (a.track == b.track && a.start <= b.start));
    }
}

TEST(ReportTimeline, HsaDispatchesAndTransfers) {
    TimelineCollector collector;
    collector.onFileBegin("h.atp");
    atp::HsaKernelDispatch dispatch;
    dispatch.kernelName = "gemm";
    dispatch.agentName = "gfx900";
    dispatch.queueIndex = 2;
    dispatch.start = 10;
    dispatch.end = 50;
    collector.onHsaKernelDispatch(dispatch);
    atp::HsaApiCall copy;
    copy.tid = 3;
    copy.name = "hsa_amd_memory_async_copy";
    copy.start = 1;
    copy.end = 2;
    copy.hasTransferTimes = true;
    copy.transferStart = 5;
    copy.transferEnd = 9;
    collector.onHsaApiCall(copy);
    const Timeline timeline = collector.take();
    ASSERT_EQ(timeline.items.size(), 3u);
    const Item* gemm = findItem(timeline, "gemm");
    ASSERT_NE(gemm, nullptr);
    EXPECT_EQ(timeline.tracks[gemm->track].label, "HSA queue 2 (gfx900)");
    int memory = 0;
    for (const Item& item : timeline.items) {
        if (item.kind == ItemKind::Memory) {
            ++memory;
            EXPECT_EQ(timeline.tracks[item.track].label, "HSA async copies");
            EXPECT_EQ(item.start, 5u);
        }
    }
    EXPECT_EQ(memory, 1);
}

TEST(ReportTimeline, EveryTraceGetsADistinctPid) {
    TimelineCollector collector;
    for (const char* pid : {"77", "77", "", "1"}) {
        collector.onFileBegin("t.atp");
        if (*pid != '\0') collector.onHeader("ProcessId", pid, {});
        collector.onHeader("Application", "/bin/app", {});
        sendApi(collector, 1, "clFinish", 1, 2);
        collector.onFileEnd("t.atp");
    }
    const Timeline timeline = collector.take();
    ASSERT_EQ(timeline.processes.size(), 4u);
    EXPECT_EQ(timeline.processes[0].pid, 77u);
    EXPECT_EQ(timeline.processes[3].pid, 1u);
    EXPECT_EQ(timeline.processes[0].application, "/bin/app");
    std::set<uint64_t> pids;
    for (const Process& process : timeline.processes) pids.insert(process.pid);
    EXPECT_EQ(pids.size(), 4u);
    EXPECT_EQ(pids.count(0), 0u);
    ASSERT_EQ(timeline.tracks.size(), 4u);
    for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(timeline.tracks[i].process, i);
}

TEST(ReportTimeline, TheCapKeepsTheLongestItems) {
    TimelineCollector collector(10);
    collector.onFileBegin("a.atp");
    // Durations 1..100 in a scrambled order, so pruning cannot rely on arrival order.
    for (uint64_t i = 0; i < 100; ++i) {
        const uint64_t duration = (i * 37) % 100 + 1;
        sendApi(collector, 1, "call" + std::to_string(duration), 1 + i * 1000,
                1 + i * 1000 + duration);
    }
    const Timeline timeline = collector.take();
    EXPECT_EQ(timeline.totalItems, 100u);
    ASSERT_EQ(timeline.items.size(), 10u);
    for (const Item& item : timeline.items) EXPECT_GT(item.duration(), 90u);
    for (size_t i = 1; i < timeline.items.size(); ++i) {
        EXPECT_LT(timeline.items[i - 1].start, timeline.items[i].start);
    }
}

TEST(ReportTimeline, TheCapKeepsMarkersFirst) {
    TimelineCollector collector(3);
    collector.onFileBegin("a.atp");
    for (uint64_t i = 0; i < 10; ++i) {
        sendApi(collector, 1, "long", 1 + i * 1000, 1 + i * 1000 + 900);
    }
    sendMarker(collector, 1, atp::MarkerKind::Begin, 20000, "short marker");
    sendMarker(collector, 1, atp::MarkerKind::End, 20001);
    const Timeline timeline = collector.take();
    EXPECT_EQ(timeline.totalItems, 11u);
    ASSERT_EQ(timeline.items.size(), 3u);
    EXPECT_NE(findItem(timeline, "short marker"), nullptr);
}

TEST(ReportTimeline, ACapOfZeroKeepsOnlyTheCount) {
    TimelineCollector collector(0);
    collector.onFileBegin("a.atp");
    sendApi(collector, 1, "clFinish", 1, 2);
    const Timeline timeline = collector.take();
    EXPECT_EQ(timeline.totalItems, 1u);
    EXPECT_TRUE(timeline.items.empty());
}

TEST(ReportTimeline, RecordsBeforeAnyFileBeginStillHaveAProcess) {
    TimelineCollector collector;
    sendApi(collector, 1, "clFinish", 1, 2);
    const Timeline timeline = collector.take();
    ASSERT_EQ(timeline.processes.size(), 1u);
    ASSERT_EQ(timeline.items.size(), 1u);
}

TEST(ReportTimeline, FormatDuration) {
    EXPECT_EQ(formatDuration(0), "0 ns");
    EXPECT_EQ(formatDuration(999), "999 ns");
    EXPECT_EQ(formatDuration(1500), "1.500 us");
    EXPECT_EQ(formatDuration(2345678), "2.346 ms");
    EXPECT_EQ(formatDuration(3000000000ull), "3.000 s");
}

}  // namespace
}  // namespace perfmarker::report
