// Cost of `perfmarker summary` (src/analysis): the reader alone and the reader feeding a
// TraceSummary side by side on the same in-memory trace (the fixture ocl_vecadd.atp with its
// API and timestamp blocks repeated), the summary alone per typed record, and rendering.
#include <benchmark/benchmark.h>

#include <fstream>
#include <sstream>
#include <string>

#include "analysis/render.h"
#include "analysis/summary.h"
#include "atp/read/trace_parser.h"

namespace {

using perfmarker::analysis::TraceSummary;
using perfmarker::atp::TraceParser;

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

// The header once, each API and timestamp section body `copies` times, the markers once.
std::string repeatedTrace(int copies) {
    const std::string text = readAll(PERFMARKER_FIXTURES_DIR "/atp/ocl_vecadd.atp");
    const size_t api = text.find("=====ocl API Trace Output=====\n");
    const size_t ts = text.find("=====ocl Timestamp Output=====\n");
    const size_t pm = text.find("=====Perfmarker Output=====\n");
    const size_t apiBody = text.find('\n', api) + 1;
    const size_t tsBody = text.find('\n', ts) + 1;
    std::string out = text.substr(0, apiBody);
    for (int i = 0; i < copies; ++i) out.append(text, apiBody, ts - apiBody);
    out.append(text, ts, tsBody - ts);
    for (int i = 0; i < copies; ++i) out.append(text, tsBody, pm - tsBody);
    out.append(text, pm, std::string::npos);
    return out;
}

class NoOp final : public perfmarker::atp::TraceListener {};

void parse(benchmark::State& state, const std::string& trace,
           perfmarker::atp::TraceListener& listener) {
    TraceParser parser;
    parser.addListener(listener);
    std::string error;
    if (!parser.parseBuffer(trace, "bench", error)) state.SkipWithError(error.c_str());
}

void BM_ReadOnly(benchmark::State& state) {
    const std::string trace = repeatedTrace(static_cast<int>(state.range(0)));
    NoOp listener;
    for (auto _ : state) parse(state, trace, listener);
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * trace.size()));
}
BENCHMARK(BM_ReadOnly)->Arg(1000)->Unit(benchmark::kMillisecond);

void BM_ReadAndSummarize(benchmark::State& state) {
    const std::string trace = repeatedTrace(static_cast<int>(state.range(0)));
    for (auto _ : state) {
        TraceSummary summary;
        parse(state, trace, summary);
        benchmark::DoNotOptimize(summary.tables());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * trace.size()));
}
BENCHMARK(BM_ReadAndSummarize)->Arg(1000)->Unit(benchmark::kMillisecond);

// One kernel enqueue record per iteration, as the reader hands it over.
void BM_SummaryPerKernelCall(benchmark::State& state) {
    TraceSummary summary;
    perfmarker::atp::OclApiCall call;
    call.tid = 1;
    call.name = "clEnqueueNDRangeKernel";
    call.returnValue = "CL_SUCCESS";
    call.params = {"0x20f4a30", "0x21ff890", "1",    "NULL",       "[1048576]",
                   "[256]",     "0",         "NULL", "[0x2233aa0]"};
    call.hasCommand = true;
    call.command.commandName = "CL_COMMAND_NDRANGE_KERNEL";
    call.command.isKernel = true;
    call.command.kernelName = "reduce";
    call.command.deviceName = "gfx900";
    call.command.queueHandle = "0x20f4a30";
    call.command.contextHandle = "0x2071c40";
    call.command.globalSize = "{1048576}";
    call.command.localSize = "{256}";
    uint64_t t = 0;
    for (auto _ : state) {
        call.start = t;
        call.end = t + 100;
        call.command.start = t + 200;
        call.command.end = t + 300 + (t % 7);
        t += 1000;
        summary.onOclApiCall(call);
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()));
}
BENCHMARK(BM_SummaryPerKernelCall);

void BM_RenderText(benchmark::State& state) {
    TraceSummary summary;
    TraceParser parser;
    parser.addListener(summary);
    std::string error;
    parser.parseBuffer(repeatedTrace(1), "bench", error);
    const auto tables = summary.tables();
    for (auto _ : state) benchmark::DoNotOptimize(perfmarker::analysis::renderText(tables));
}
BENCHMARK(BM_RenderText);

}  // namespace

BENCHMARK_MAIN();
