// Reading speed of the streaming .atp reader (src/atp/read/trace_parser.h).
//
//   read_bench <trace.atp> [--one-thread]
//                            parses the file once with a counting listener and prints its size,
//                            the time, MB/s, the records and the peak memory (bench/read_rate.sh
//                            runs it on a large synthetic trace next to `wc -l`); --one-thread:
//                            without the second thread that reads API sections ahead;
//   read_bench [gbench flags] Google Benchmark cases on an in-memory trace built from the
//                            fixture tests/fixtures/atp/ocl_vecadd.atp.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include "atp/read/trace_parser.h"

namespace {

using perfmarker::atp::TraceParser;

class Counter final : public perfmarker::atp::TraceListener {
public:
    uint64_t calls = 0, dispatches = 0, markers = 0, warnings = 0, paramBytes = 0;
    void onOclApiCall(const perfmarker::atp::OclApiCall& c) override {
        ++calls;
        paramBytes += c.params.size();
    }
    void onHsaApiCall(const perfmarker::atp::HsaApiCall&) override { ++calls; }
    void onHsaKernelDispatch(const perfmarker::atp::HsaKernelDispatch&) override { ++dispatches; }
    void onMarker(const perfmarker::atp::MarkerEvent&) override { ++markers; }
    void onWarning(const std::string&) override { ++warnings; }
};

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

// The fixture's two API and two timestamp blocks repeated `copies` times (header and markers
// once): a trace of realistic lines in memory.
std::string syntheticTrace(int copies) {
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

void BM_ParseBuffer(benchmark::State& state) {
    const std::string trace = syntheticTrace(static_cast<int>(state.range(0)));
    Counter counter;
    for (auto _ : state) {
        TraceParser parser;
        parser.addListener(counter);
        std::string error;
        if (!parser.parseBuffer(trace, "bench", error)) state.SkipWithError(error.c_str());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * trace.size()));
    state.counters["calls"] = benchmark::Counter(static_cast<double>(counter.calls),
                                                 benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ParseBuffer)->Arg(1)->Arg(1000);

void BM_ParseStream(benchmark::State& state) {
    const std::string trace = syntheticTrace(static_cast<int>(state.range(0)));
    Counter counter;
    for (auto _ : state) {
        std::istringstream in(trace);
        TraceParser parser;
        parser.addListener(counter);
        std::string error;
        if (!parser.parseStream(in, "bench", error)) state.SkipWithError(error.c_str());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * trace.size()));
}
BENCHMARK(BM_ParseStream)->Arg(1000);

int timeFile(const char* path, bool oneThread) {
    Counter counter;
    TraceParser parser;
    if (oneThread) parser.setReadAhead(UINT64_MAX);
    parser.addListener(counter);
    std::string error;
    const auto begin = std::chrono::steady_clock::now();
    const bool ok = parser.parseFile(path, error);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    if (!ok) {
        std::fprintf(stderr, "read_bench: %s\n", error.c_str());
        return 1;
    }
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    const double megabytes = static_cast<double>(in.tellg()) / 1e6;
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    std::printf("read_bench: %.1f MB in %.3f s = %.1f MB/s; %llu calls, %llu dispatches, "
                "%llu markers, %llu warnings; max RSS %ld MiB\n",
                megabytes, seconds, megabytes / seconds,
                static_cast<unsigned long long>(counter.calls),
                static_cast<unsigned long long>(counter.dispatches),
                static_cast<unsigned long long>(counter.markers),
                static_cast<unsigned long long>(counter.warnings), usage.ru_maxrss / 1024);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 2 && argv[1][0] != '-') {
        const bool oneThread = argc == 3 && std::string(argv[2]) == "--one-thread";
        if (argc > 3 || (argc == 3 && !oneThread)) {
            std::fprintf(stderr, "usage: read_bench <trace.atp> [--one-thread]\n");
            return 2;
        }
        return timeFile(argv[1], oneThread);
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
