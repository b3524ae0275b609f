// The HTML report's two costs: collecting the timeline from typed records (per record, with and
// without the cap pruning) and writing the page (per slice). Results: docs/performance.md.
#include <benchmark/benchmark.h>

#include <sstream>
#include <string>

#include "report/html_report.h"
#include "report/timeline.h"

namespace {

using namespace perfmarker;

// An enqueue as the reader announces it: the API call and its device command.
atp::OclApiCall sampleCall() {
    atp::OclApiCall call;
    call.tid = 4711;
    call.name = "clEnqueueNDRangeKernel";
    call.returnValue = "CL_SUCCESS";
    call.hasCommand = true;
    call.command.commandType = 4592;
    call.command.commandName = "CL_COMMAND_NDRANGE_KERNEL";
    call.command.deviceName = "gfx900";
    call.command.isKernel = true;
    call.command.kernelName = "vecadd";
    call.command.globalSize = "{1048576}";
    call.command.localSize = "{256}";
    return call;
}

void feed(report::TimelineCollector& collector, atp::OclApiCall& call, uint64_t i) {
    call.start = i * 1000;
    call.end = call.start + 100 + i % 97;
    call.command.start = call.end + 50;
    call.command.end = call.command.start + 500 + i % 89;
    collector.onOclApiCall(call);
}

// Records per second into the collector; state.range(0) is the cap (2 slices per record).
void BM_CollectTimeline(benchmark::State& state) {
    const auto cap = static_cast<size_t>(state.range(0));
    constexpr uint64_t kRecords = 200000;
    atp::OclApiCall call = sampleCall();
    for (auto _ : state) {
        report::TimelineCollector collector(cap);
        collector.onFileBegin("bench.atp");
        for (uint64_t i = 0; i < kRecords; ++i) feed(collector, call, i);
        benchmark::DoNotOptimize(collector.take());
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * kRecords));
}
BENCHMARK(BM_CollectTimeline)->Arg(1000000)->Arg(20000)->Unit(benchmark::kMillisecond);

// Slices per second (and bytes per second of page) for a page at the default cap.
void BM_WriteHtml(benchmark::State& state) {
    report::TimelineCollector collector;
    collector.onFileBegin("bench.atp");
    atp::OclApiCall call = sampleCall();
    for (uint64_t i = 0; i < report::kDefaultMaxItems / 2; ++i) feed(collector, call, i);
    report::ReportData data;
    data.timeline = collector.take();
    size_t bytes = 0;
    for (auto _ : state) {
        std::ostringstream out;
        report::writeHtmlReport(out, data);
        bytes = out.str().size();
        benchmark::DoNotOptimize(bytes);
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * data.timeline.items.size()));
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_WriteHtml)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
