// The exporters on a synthetic OpenCL trace (4 threads of kernel and read enqueues, event
// queries and markers), through the real reader: input MB/s of .atp text. BM_ParseOnly is the
// reader alone, for the share the exporter adds. Rates are per wall time (the exporters write
// files). The OTF2 and SQLite exports (export/db) are measured beside the Perfetto export in the
// same run; BM_ExportSqliteMillionCalls reads the trace three times into one database (960,000
// API calls). Results: docs/performance.md.
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "atp/read/trace_parser.h"
#include "export/csv_exporter.h"
#include "export/db/otf2_exporter.h"
#include "export/db/sqlite_exporter.h"
#include "export/perfetto_exporter.h"
#include "export/vtune_exporter.h"

namespace {

using namespace perfmarker;

constexpr int kThreads = 4;
constexpr int kRounds = 20000;  // 4 API calls and 2 markers per round and thread

std::string apiLines(int) {
    std::string out;
    for (int i = 0; i < kRounds; ++i) {
        out += "CL_SUCCESS = clSetKernelArg ( 0x21ff890;0;8;[0x2101E80] )\n";
        out +=
            "CL_SUCCESS = clEnqueueNDRangeKernel ( 0x20f4a30;0x21ff890;1;NULL;[1048576];[256];"
            "0;NULL;[0x2233aa0] )\n";
        out +=
            "CL_SUCCESS = clEnqueueReadBuffer ( 0x20f4a30;0x2101f40;CL_TRUE;0;4096;"
            "0x7ffd5a3c3e10;1;[0x2233aa0];NULL )\n";
        out +=
            "CL_SUCCESS = clGetEventInfo ( 0x2233aa0;CL_EVENT_COMMAND_EXECUTION_STATUS;4;"
            "[CL_COMPLETE];NULL )\n";
    }
    return out;
}

std::string timestampLines(int thread) {
    std::string out;
    char line[600];
    uint64_t t = 4035211901000 + static_cast<uint64_t>(thread) * 1000;
    for (int i = 0; i < kRounds; ++i, t += 100000) {
        std::snprintf(line, sizeof line, "39   %-45s%-21llu%-21llu\n", "clSetKernelArg",
                      static_cast<unsigned long long>(t),
                      static_cast<unsigned long long>(t + 1000));
        out += line;
        std::snprintf(
            line, sizeof line,
            "66   %-45s%-21llu%-21llu4592    %-40s%-21llu%-21llu%-21llu%-21llu%-10d"
            "%-25s%-10d%-25s%-30s%-25sreduce      {1048576}     {256}        \n",
            "clEnqueueNDRangeKernel", static_cast<unsigned long long>(t + 2000),
            static_cast<unsigned long long>(t + 9000), "CL_COMMAND_NDRANGE_KERNEL",
            static_cast<unsigned long long>(t + 3000), static_cast<unsigned long long>(t + 4000),
            static_cast<unsigned long long>(t + 20000), static_cast<unsigned long long>(t + 50000),
            thread, "0x20f4a30", 0, "0x2071c40", "gfx900", "0x21ff890");
        out += line;
        std::snprintf(
            line, sizeof line,
            "52   %-45s%-21llu%-21llu4595    %-40s%-21llu%-21llu%-21llu%-21llu%-10d"
            "%-25s%-10d%-25s%-30s%-20d\n",
            "clEnqueueReadBuffer", static_cast<unsigned long long>(t + 10000),
            static_cast<unsigned long long>(t + 60000), "CL_COMMAND_READ_BUFFER",
            static_cast<unsigned long long>(t + 11000), static_cast<unsigned long long>(t + 12000),
            static_cast<unsigned long long>(t + 51000), static_cast<unsigned long long>(t + 55000),
            thread, "0x20f4a30", 0, "0x2071c40", "gfx900", 4096);
        out += line;
        std::snprintf(line, sizeof line, "43   %-45s%-21llu%-21llu\n", "clGetEventInfo",
                      static_cast<unsigned long long>(t + 61000),
                      static_cast<unsigned long long>(t + 62000));
        out += line;
    }
    return out;
}

std::string markerLines(int thread) {
    std::string out;
    char line[200];
    uint64_t t = 4035211900000 + static_cast<uint64_t>(thread) * 1000;
    for (int i = 0; i < kRounds; ++i, t += 100000) {
        std::snprintf(line, sizeof line, "clBeginPerfMarker   %-50s%-20llu   Render\n", "Frame",
                      static_cast<unsigned long long>(t));
        out += line;
        std::snprintf(line, sizeof line, "clEndPerfMarker     %-20llu\n",
                      static_cast<unsigned long long>(t + 99000));
        out += line;
    }
    return out;
}

const std::string& syntheticTrace() {
    static const std::string trace = [] {
        std::string out =
            "TraceFileVersion=3.2\nProfilerVersion=5.6.0\nApplication=/bench\n"
            "ClockDomain=CLOCK_MONOTONIC\nProcessId=4242\nCLExcludedAPIs=\n";
        const auto section = [&](const char* name, std::string (*body)(int), int linesPerRound) {
            out += std::string("=====") + name + "=====\n";
            for (int thread = 0; thread < kThreads; ++thread) {
                out += std::to_string(1000 + thread) + "\n" +
                       std::to_string(kRounds * linesPerRound) + "\n" + body(thread);
            }
        };
        section("ocl API Trace Output", apiLines, 4);
        section("ocl Timestamp Output", timestampLines, 4);
        section("Perfmarker Output", markerLines, 2);
        return out;
    }();
    return trace;
}

std::string scratchBase() { return "/tmp/perfmarker-export-bench-" + std::to_string(getpid()); }

// Returns the bytes written.
uint64_t runExport(benchmark::State& state, atp::TraceListener* listener, exporter::Exporter* out) {
    const std::string& trace = syntheticTrace();
    atp::TraceParser parser;
    if (listener != nullptr) parser.addListener(*listener);
    std::string error;
    if (!parser.parseBuffer(trace, "bench.atp", error)) state.SkipWithError(error.c_str());
    if (out != nullptr && !out->finish(error)) state.SkipWithError(error.c_str());
    uint64_t written = 0;
    if (out != nullptr) {
        for (const std::string& file : out->writtenFiles()) {
            std::error_code ignored;
            written += std::filesystem::file_size(file, ignored);
            std::remove(file.c_str());
        }
    }
    return written;
}

void setThroughput(benchmark::State& state, uint64_t outputBytes = 0) {
    state.counters["output_MB"] = static_cast<double>(outputBytes) / 1e6;
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                            static_cast<int64_t>(syntheticTrace().size()));
    state.counters["input_MB"] = static_cast<double>(syntheticTrace().size()) / 1e6;
}

void BM_ParseOnly(benchmark::State& state) {
    for (auto _ : state) runExport(state, nullptr, nullptr);
    setThroughput(state);
}

void BM_ExportPerfetto(benchmark::State& state) {
    uint64_t written = 0;
    for (auto _ : state) {
        exporter::PerfettoExporter out(
            exporter::PerfettoOptions{scratchBase() + ".json", uint64_t{256} << 20});
        written = runExport(state, &out, &out);
    }
    setThroughput(state, written);
}

void BM_ExportVtune(benchmark::State& state) {
    uint64_t written = 0;
    for (auto _ : state) {
        exporter::VtuneExporter out(exporter::VtuneOptions{scratchBase(), "bench", 0});
        written = runExport(state, &out, &out);
    }
    setThroughput(state, written);
}

void BM_ExportCsv(benchmark::State& state) {
    uint64_t written = 0;
    for (auto _ : state) {
        exporter::CsvExporter out(scratchBase());
        written = runExport(state, &out, &out);
    }
    setThroughput(state, written);
}

// The bytes under `path` (a file or a directory), which is then removed.
uint64_t takeOutput(const std::string& path) {
    namespace fs = std::filesystem;
    std::error_code ignored;
    uint64_t bytes = 0;
    if (fs::is_directory(path, ignored)) {
        for (const auto& entry : fs::recursive_directory_iterator(path, ignored)) {
            if (entry.is_regular_file(ignored)) bytes += entry.file_size(ignored);
        }
    } else {
        bytes = fs::file_size(path, ignored);
    }
    fs::remove_all(path, ignored);
    return bytes;
}

// The export of the synthetic trace read `passes` times (as that many processes).
void runDbExport(benchmark::State& state, exporter::Exporter& out, int passes = 1) {
    atp::TraceParser parser;
    parser.addListener(out);
    std::string error;
    for (int pass = 0; pass < passes; ++pass) {
        if (!parser.parseBuffer(syntheticTrace(), "bench.atp", error)) {
            state.SkipWithError(error.c_str());
        }
    }
    if (!out.finish(error)) state.SkipWithError(error.c_str());
}

void BM_ExportOtf2(benchmark::State& state) {
    uint64_t written = 0;
    for (auto _ : state) {
        exporter::db::Otf2Exporter out(
            exporter::db::Otf2Options{scratchBase() + "-otf2", false, nullptr});
        runDbExport(state, out);
        written = takeOutput(scratchBase() + "-otf2");
    }
    setThroughput(state, written);
}

void BM_ExportSqlite(benchmark::State& state) {
    uint64_t written = 0;
    for (auto _ : state) {
        exporter::db::SqliteExporter out(
            exporter::db::SqliteOptions{scratchBase() + ".db", false, nullptr});
        runDbExport(state, out);
        written = takeOutput(scratchBase() + ".db");
    }
    setThroughput(state, written);
}

void BM_ExportSqliteMillionCalls(benchmark::State& state) {
    constexpr int kPasses = 3;  // 3 x 320,000 API calls
    uint64_t written = 0;
    for (auto _ : state) {
        exporter::db::SqliteExporter out(
            exporter::db::SqliteOptions{scratchBase() + ".db", false, nullptr});
        runDbExport(state, out, kPasses);
        written = takeOutput(scratchBase() + ".db");
        state.counters["api_calls"] = static_cast<double>(out.counts().apiCalls);
    }
    state.counters["output_MB"] = static_cast<double>(written) / 1e6;
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) * kPasses *
                            static_cast<int64_t>(syntheticTrace().size()));
}

BENCHMARK(BM_ParseOnly)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ExportPerfetto)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ExportVtune)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ExportCsv)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ExportOtf2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ExportSqlite)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_ExportSqliteMillionCalls)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(1);

}  // namespace

BENCHMARK_MAIN();
