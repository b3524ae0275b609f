// What the merge step costs (src/atp/merge/merger.h): one process's OpenCL fragments (2 threads,
// each call a clFinish or a clEnqueueReadBuffer with its device times) and its marker fragments
// merged into one .atp with the real API catalogue, as an agent does at exit and the launcher
// after the application. Reports nanoseconds per API call and the bytes read and written.
//
//   MergeProcess     the merge without call sites
//   MergeProcessSym  the same calls, each with a call site (docs/call-sites.md) from one of four
//                    places of this program, symbolized with its debug information as the
//                    launcher does after `perfmarker trace --sym`
//   MergeHsa         the HSA agent's fragments: calls of four APIs (a signal load, a store, a
//                    wait with enums, a pool allocation with a status), one thread
//
//   merge_bench [gbench flags]
#include <benchmark/benchmark.h>
#include <unistd.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "api/hsa_api.h"
#include "atp/format/module_lines.h"
#include "atp/merge/merger.h"
#include "atp/symbols/call_site_lines.h"
#include "atp_trace_support.h"
#include "record/fragments/fragment.h"

namespace {

using namespace perfmarker::atp;
using namespace perfmarker::atp::testing;
namespace fs = std::filesystem;

constexpr uint64_t kPid = 4242;
constexpr uint64_t kQueue = 0x5000;
constexpr uint64_t kContext = 0x6000;
constexpr uint64_t kDevice = 0x7000;
constexpr uint16_t kFinishSlot = 47;
constexpr uint16_t kReadBufferSlot = 48;

// `calls` API calls of thread `tid`, half of them reads with device times, in fragments of
// about 1 MB as the recorder writes them.
uint64_t bytesIn(const std::string& dir, const std::string& suffix);

// Four call sites of this program: addresses inside its functions.
std::vector<Capture> callSite(uint64_t i) {
    static const uint64_t kSites[] = {reinterpret_cast<uint64_t>(&bytesIn) + 8,
                                      reinterpret_cast<uint64_t>(&writeFile) + 8,
                                      reinterpret_cast<uint64_t>(&fragmentBytes) + 8,
                                      reinterpret_cast<uint64_t>(&deviceTimes) + 8};
    std::string bytes(16, '\0');
    const uint64_t site = kSites[i % 4];
    std::memcpy(bytes.data(), &site, 8);
    return {Capture{perfmarker::record::kCallSiteArg, perfmarker::record::CaptureEncoding::Bytes,
                    bytes}};
}

void writeThread(const std::string& dir, uint64_t tid, uint64_t calls, bool sym) {
    std::vector<Rec> records;
    if (tid == 1) {
        records = {
            objectInfo(1, perfmarker::record::ObjectType::Context, 0, kContext),
            objectInfo(2, perfmarker::record::ObjectType::Device, 0, kDevice, 0, kDevice, 4,
                       "gfx900"),
            objectInfo(3, perfmarker::record::ObjectType::Queue, 0, kQueue, kContext, kDevice)};
    }
    uint64_t serial = 0;
    uint64_t t = 1000;
    const auto flush = [&] {
        writeFile(dir + "/" + perfmarker::record::fragmentFileName(kPid, tid * 1000 + serial++,
                                                                   "ocl"),
                  fragmentBytes(kPid, tid, records));
        records.clear();
    };
    for (uint64_t i = 0; i < calls; ++i, t += 100) {
        if (i % 2 == 0) {
            records.push_back(apiCall(t, t + 10, kFinish, {kQueue}, 0, 0,
                                      sym ? callSite(i) : std::vector<Capture>{}, kFinishSlot));
        } else {
            const uint64_t id = tid << 32 | i;
            records.push_back(apiCall(t, t + 20, kReadBuffer,
                                      {kQueue, 0xb0, 1, 0, 4096, 0x7fff0, 0, 0, 0}, 0, id,
                                      sym ? callSite(i) : std::vector<Capture>{}, kReadBufferSlot));
            records.push_back(deviceTimes(t + 50, id, t + 2, t + 4, t + 6, t + 8, 0x11F3));
        }
        if (records.size() >= 8192) flush();
    }
    flush();
}

uint64_t bytesIn(const std::string& dir, const std::string& suffix) {
    uint64_t total = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        const std::string name = entry.path().filename().string();
        if (name.size() >= suffix.size() &&
            name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) {
            total += entry.file_size();
        }
    }
    return total;
}

// Merges the fragments of `dir` once per iteration, removes `dir`, and reports the counters.
void mergeTimed(benchmark::State& state, const std::string& dir, uint64_t calls,
                const MergeOptions& options) {
    const uint64_t input = bytesIn(dir, ".frag");
    AtpHeader header;
    header.application = "/usr/bin/app";
    for (auto _ : state) {
        MergeResult result;
        std::string error;
        if (!mergeProcess(dir, kPid, dir + "/out", header, options, result, error)) {
            state.SkipWithError(error.c_str());
            break;
        }
    }
    const uint64_t output = bytesIn(dir, ".atp");
    fs::remove_all(dir);
    state.counters["ns_per_call"] = benchmark::Counter(
        static_cast<double>(calls),
        benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
    state.counters["in_MB"] = static_cast<double>(input) / 1e6;
    state.counters["out_MB"] = static_cast<double>(output) / 1e6;
}

void mergeProcess(benchmark::State& state, bool sym) {
    const uint64_t calls = static_cast<uint64_t>(state.range(0));
    char pattern[] = "/tmp/merge_bench.XXXXXX";
    const std::string dir = mkdtemp(pattern);
    writeThread(dir, 1, calls / 2, sym);
    writeThread(dir, 2, calls / 2, sym);
    MergeOptions options;
    if (sym) {
        std::string modules;
        appendModulesFileHeader(modules);
        appendLoadedModules(modules);
        writeFile(dir + "/" + std::to_string(kPid) + std::string(kModulesSuffix), modules);
        options.callSites = [](const std::string& path) -> std::unique_ptr<CallSiteWriter> {
            return std::make_unique<perfmarker::symbols::SymbolizingCallSites>(path);
        };
    }
    options.formatter = &defaultOclFormatter();
    options.removeInputs = false;
    options.ocl.maxApiCalls = calls * 2;
    options.note = [](const std::string&) {};
    mergeTimed(state, dir, calls, options);
}
void writeHsaThread(const std::string& dir, uint64_t calls) {
    struct Call {
        const perfmarker::atp::HsaApiSpec* api;
        std::vector<uint64_t> args;
        uint64_t ret;
    };
    const auto spec = [](const char* name) { return perfmarker::atp::hsaApiByName(name); };
    const std::vector<Call> kinds = {
        {spec("hsa_signal_load_relaxed"), {0x7f0012340}, 1},
        {spec("hsa_signal_store_screlease"), {0x7f0012340, 0}, 0},
        {spec("hsa_signal_wait_scacquire"), {0x7f0012340, 2, 1, 0xffffffffffffffff, 0}, 0},
        {spec("hsa_amd_memory_pool_allocate"), {0x9000, 1 << 20, 0, 0x7ffd0000}, 0}};
    std::vector<Rec> records;
    uint64_t serial = 0;
    uint64_t t = 1000;
    for (uint64_t i = 0; i < calls; ++i, t += 100) {
        const Call& c = kinds[i % kinds.size()];
        records.push_back(apiCall(t, t + 10, static_cast<uint32_t>(c.api->apiTypeId), c.args, c.ret,
                                  0, {}, static_cast<uint16_t>(c.api->slot)));
        if (records.size() >= 8192 || i + 1 == calls) {
            writeFile(dir + "/" +
                          perfmarker::record::fragmentFileName(kPid, serial++,
                                                               std::string(kHsaFragmentTag)),
                      fragmentBytes(kPid, 1, records));
            records.clear();
        }
    }
}

void BM_MergeHsa(benchmark::State& state) {
    const uint64_t calls = static_cast<uint64_t>(state.range(0));
    char pattern[] = "/tmp/merge_bench.XXXXXX";
    const std::string dir = mkdtemp(pattern);
    writeHsaThread(dir, calls);
    MergeOptions options;
    options.formatter = &defaultOclFormatter();
    options.removeInputs = false;
    options.note = [](const std::string&) {};
    mergeTimed(state, dir, calls, options);
}
BENCHMARK(BM_MergeHsa)->Arg(1000000)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MergeProcess(benchmark::State& state) { mergeProcess(state, false); }
void BM_MergeProcessSym(benchmark::State& state) { mergeProcess(state, true); }
BENCHMARK(BM_MergeProcess)->Arg(200000)->Arg(1000000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_MergeProcessSym)
    ->Arg(200000)
    ->Arg(1000000)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
