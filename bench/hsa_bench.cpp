// The HSA trace agent per intercepted call, through a constructed runtime table: the same call
// raw (the runtime's function directly), through the agent's wrapper while recording, and while
// paused; side by side with two rdtsc reads, the budget's unit (agent cost <= 3x two reads).
//
// The agent's code is linked in; the session goes to a private directory (/dev/shm when there)
// that is removed at the end, before the agent's exit-time merge could find anything.
#include <benchmark/benchmark.h>
#include <hsa/hsa_api_trace.h>
#include <stdlib.h>
#include <unistd.h>
#include <x86intrin.h>

#include <filesystem>
#include <string>

extern "C" bool OnLoad(void* table, uint64_t, uint64_t, const char* const*);
extern "C" void OnUnload();
extern "C" void amdtCodeXLStopProfiling();
extern "C" void amdtCodeXLResumeProfiling();

namespace {

__attribute__((noinline)) hsa_signal_value_t runtimeLoad(hsa_signal_t s) {
    benchmark::ClobberMemory();
    return static_cast<hsa_signal_value_t>(s.handle);
}

hsa_status_t runtimeSystemInfo(hsa_system_info_t attribute, void* value) {
    *static_cast<uint64_t*>(value) = attribute == HSA_SYSTEM_INFO_TIMESTAMP ? 1 : 1000000000;
    return HSA_STATUS_SUCCESS;
}

HsaApiTable g_root{};
CoreApiTable g_core{};
AmdExtTable g_amd{};

void buildTable() {
    g_root.version = {HSA_API_TABLE_MAJOR_VERSION, sizeof(HsaApiTable), 0, 0};
    g_core.version = {HSA_CORE_API_TABLE_MAJOR_VERSION, sizeof(CoreApiTable), 0, 0};
    g_amd.version = {HSA_AMD_EXT_API_TABLE_MAJOR_VERSION, sizeof(AmdExtTable), 0, 0};
    g_root.core_ = &g_core;
    g_root.amd_ext_ = &g_amd;
    g_core.hsa_signal_load_relaxed_fn = &runtimeLoad;
    g_core.hsa_system_get_info_fn = &runtimeSystemInfo;
}

void BM_TwoRdtsc(benchmark::State& state) {
    for (auto _ : state) {
        benchmark::DoNotOptimize(__rdtsc());
        benchmark::DoNotOptimize(__rdtsc());
    }
}
BENCHMARK(BM_TwoRdtsc);

void BM_RawCall(benchmark::State& state) {
    for (auto _ : state) benchmark::DoNotOptimize(runtimeLoad(hsa_signal_t{42}));
}
BENCHMARK(BM_RawCall);

// 4 M iterations: about 256 MB of records, written by the agent's writer thread.
void BM_WrappedCallRecording(benchmark::State& state) {
    const auto load = g_core.hsa_signal_load_relaxed_fn;
    for (auto _ : state) benchmark::DoNotOptimize(load(hsa_signal_t{42}));
}
BENCHMARK(BM_WrappedCallRecording)->Iterations(4000000);

void BM_WrappedCallPaused(benchmark::State& state) {
    const auto load = g_core.hsa_signal_load_relaxed_fn;
    amdtCodeXLStopProfiling();
    for (auto _ : state) benchmark::DoNotOptimize(load(hsa_signal_t{42}));
    amdtCodeXLResumeProfiling();
}
BENCHMARK(BM_WrappedCallPaused);

}  // namespace

int main(int argc, char** argv) {
    namespace fs = std::filesystem;
    const fs::path base = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    const fs::path dir = base / ("perfmarker_hsa_bench_" + std::to_string(getpid()));
    fs::create_directories(dir);
    setenv("PERFMARKER_OUTPUT", (dir / "bench").c_str(), 1);
    setenv("PERFMARKER_TMPDIR", dir.c_str(), 1);
    buildTable();
    if (!OnLoad(&g_root, 0, 0, nullptr)) return 1;
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    OnUnload();
    fs::remove_all(dir);
    return 0;
}
