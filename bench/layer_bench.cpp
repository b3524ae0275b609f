// Cost of the OpenCL trace layer per intercepted call, side by side in one process:
//
//   NoLayer        clGetPlatformInfo through the ICD loader's entry point into the runtime
//   LayerPaused    the same call through the layer's wrapper, agent paused (session present)
//   LayerTracing   the same call through the layer's wrapper, recording (timeout mode)
//   LayerTracingSym  the same with call sites recorded (PERFMARKER_SYM=1, docs/call-sites.md):
//                  a second copy of the layer (its own file, so its own state) in its own
//                  session directory, initialized with the variable set
//   TwoRdtsc       the floor: two timestamp reads
//   NoLayerSetKernelArg, LayerTracingSetKernelArg
//                  clSetKernelArg of a buffer (8 bytes, a captured value), without and through
//                  the layer: the call of the pinned layer's target (docs/performance.md)
//
// How the layer is put in front of the runtime here, and why that is a fair comparison: the
// loader only loads layers at its first call, once per process, so a process cannot have the
// loader's path with and without the layer. Instead the benchmark loads libCLTraceAgent.so
// itself and calls its clInitLayer with the runtime's own dispatch table (the first word of every
// ICD object, here the platform), exactly as the loader would with no other layer in between.
// Each measured path then makes one indirect call before the runtime: the loader's exported
// clGetPlatformInfo (NoLayer), or the layer's wrapper from the table clInitLayer returned (the
// loader's own hop in front of the layer, a few cycles, is not included in the layer rows).
//
// PERFMARKER_LAYER_BENCH_AGENT=/path/to/libCLTraceAgent.so loads that build instead of the one
// of this tree (to compare two builds of the layer, run the benchmark once with each, in turn).
//
// The runtime is the first platform the loader offers (PoCL in the project's setup); without
// one every benchmark reports an error. The sessions write fragments into a fresh directory on
// /dev/shm (or /tmp). The benchmarks run in a child process, so that its exit (the layer's exit
// merge included) is over before the parent removes that directory: the layer merges from an
// ELF destructor, which runs after the program's own. The query is CL_PLATFORM_NAME into a 64-byte
// buffer: a call with a captured string result (the param_value capture path). The layer rows
// count the process's switches of threads per 1,000 calls (`switches_per_1k`): pinned to one
// core, each wake of the writer is two (docs/architecture.md, the writer).
#include <CL/cl.h>
#include <CL/cl_icd.h>
#include <benchmark/benchmark.h>
#include <dlfcn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace {

struct Setup {
    cl_platform_id platform = nullptr;
    const cl_icd_dispatch* layer = nullptr;
    void (*stop)() = nullptr;
    void (*resume)() = nullptr;
    std::string dir;
    std::string error;
};

// The directory that holds every session's directory; made by main() before the benchmarks'
// process is forked.
std::string& baseDir() {
    static std::string dir;
    return dir;
}

std::string makeDir(const std::string& prefix) {
    std::string path = prefix + "XXXXXX";
    return mkdtemp(path.data()) != nullptr ? path : std::string();
}

// Loads the layer in front of the runtime's table (see the top of the file); with `sym`, a copy
// of the layer's file, so that the two sessions do not share the agent's state.
Setup makeSetup(bool sym) {
    Setup s;
    s.dir = baseDir().empty() ? std::string() : makeDir(baseDir() + "/session-");
    if (s.dir.empty()) {
        s.error = "cannot make a session directory in /dev/shm or /tmp";
        return s;
    }
    setenv("PERFMARKER_OUTPUT", (s.dir + "/bench").c_str(), 1);
    setenv("PERFMARKER_TMPDIR", s.dir.c_str(), 1);
    setenv("PERFMARKER_SYM", sym ? "1" : "0", 1);
    if (clGetPlatformIDs(1, &s.platform, nullptr) != CL_SUCCESS || s.platform == nullptr) {
        s.error = "no OpenCL platform";
        return s;
    }
    const auto* runtime = *reinterpret_cast<const cl_icd_dispatch* const*>(s.platform);
    // PERFMARKER_LAYER_BENCH_AGENT: another build of the agent, to compare two in turn.
    const char* given = std::getenv("PERFMARKER_LAYER_BENCH_AGENT");
    std::string path = given != nullptr && *given != '\0' ? given : PERFMARKER_CLTRACEAGENT_PATH;
    if (sym) {
        const std::string copy = s.dir + "/libCLTraceAgent.so";
        std::error_code error;
        std::filesystem::copy_file(path, copy, error);
        path = copy;
    }
    void* agent = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    using InitLayer =
        cl_int (*)(cl_uint, const cl_icd_dispatch*, cl_uint*, const cl_icd_dispatch**);
    auto init = agent ? reinterpret_cast<InitLayer>(dlsym(agent, "clInitLayer")) : nullptr;
    s.stop =
        agent ? reinterpret_cast<void (*)()>(dlsym(agent, "amdtCodeXLStopProfiling")) : nullptr;
    s.resume =
        agent ? reinterpret_cast<void (*)()>(dlsym(agent, "amdtCodeXLResumeProfiling")) : nullptr;
    cl_uint entries = 0;
    // Only the first slots (through clFinish): every runtime's table has at least those.
    if (init == nullptr || s.stop == nullptr || s.resume == nullptr ||
        init(48, runtime, &entries, &s.layer) != CL_SUCCESS) {
        s.error = std::string("cannot load the layer: ") + (agent ? "clInitLayer" : dlerror());
    }
    return s;
}

Setup& setup() {
    static Setup s = makeSetup(false);
    return s;
}

Setup& symSetup() {
    setup();  // the plain layer first, so that its session is the one without call sites
    static Setup s = makeSetup(true);
    return s;
}

// A kernel with one buffer argument, made through the loader (not the layer: its calls are not
// what is measured). Made at its first use, after setup(), so the other rows do not pay PoCL's
// compiler.
struct KernelSetup {
    cl_kernel kernel = nullptr;
    cl_mem buffer = nullptr;
    std::string error;
};

KernelSetup makeKernelSetup(cl_platform_id platform) {
    KernelSetup k;
    cl_device_id device = nullptr;
    cl_int err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, nullptr);
    cl_context context =
        err == CL_SUCCESS ? clCreateContext(nullptr, 1, &device, nullptr, nullptr, &err) : nullptr;
    if (context != nullptr)
        k.buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 64, nullptr, &err);
    const char* source = "__kernel void fill(__global int* out) { out[get_global_id(0)] = 1; }";
    cl_program program = k.buffer != nullptr
                             ? clCreateProgramWithSource(context, 1, &source, nullptr, &err)
                             : nullptr;
    if (program != nullptr) err = clBuildProgram(program, 1, &device, "", nullptr, nullptr);
    if (program != nullptr && err == CL_SUCCESS) k.kernel = clCreateKernel(program, "fill", &err);
    if (k.kernel == nullptr)
        k.error = "cannot make a kernel (OpenCL error " + std::to_string(err) + ")";
    return k;
}

KernelSetup& kernelSetup() {
    static KernelSetup k = makeKernelSetup(setup().platform);
    return k;
}

bool ready(benchmark::State& state) {
    if (!setup().error.empty()) state.SkipWithError(setup().error.c_str());
    return setup().error.empty();
}

void BM_NoLayer(benchmark::State& state) {
    if (!ready(state)) return;
    char name[64];
    size_t size = 0;
    for (auto _ : state) {
        benchmark::DoNotOptimize(
            clGetPlatformInfo(setup().platform, CL_PLATFORM_NAME, sizeof name, name, &size));
    }
}

// Voluntary and involuntary switches of every thread of the process so far.
double processSwitches() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return static_cast<double>(u.ru_nvcsw + u.ru_nivcsw);
}

// The process's switches since `before`, per 1,000 iterations of `state`.
void countSwitches(benchmark::State& state, double before) {
    state.counters["switches_per_1k"] =
        (processSwitches() - before) * 1000.0 /
        static_cast<double>(std::max<int64_t>(state.iterations(), 1));
}

void layerCalls(benchmark::State& state, const Setup& s = setup()) {
    char name[64];
    size_t size = 0;
    const cl_icd_dispatch* layer = s.layer;
    const double switches = processSwitches();
    for (auto _ : state) {
        benchmark::DoNotOptimize(
            layer->clGetPlatformInfo(setup().platform, CL_PLATFORM_NAME, sizeof name, name, &size));
    }
    countSwitches(state, switches);
}

void BM_LayerPaused(benchmark::State& state) {
    if (!ready(state)) return;
    setup().stop();
    layerCalls(state);
    setup().resume();
}

void BM_LayerTracing(benchmark::State& state) {
    if (!ready(state)) return;
    setup().resume();
    layerCalls(state);
}

void BM_LayerTracingSym(benchmark::State& state) {
    if (!ready(state)) return;
    if (!symSetup().error.empty()) {
        state.SkipWithError(symSetup().error.c_str());
        return;
    }
    symSetup().resume();
    layerCalls(state, symSetup());
}

bool kernelReady(benchmark::State& state) {
    if (!ready(state)) return false;
    if (!kernelSetup().error.empty()) state.SkipWithError(kernelSetup().error.c_str());
    return kernelSetup().error.empty();
}

void BM_NoLayerSetKernelArg(benchmark::State& state) {
    if (!kernelReady(state)) return;
    const cl_kernel kernel = kernelSetup().kernel;
    const cl_mem buffer = kernelSetup().buffer;
    for (auto _ : state) {
        benchmark::DoNotOptimize(clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
    }
}

void BM_LayerTracingSetKernelArg(benchmark::State& state) {
    if (!kernelReady(state)) return;
    setup().resume();
    const cl_icd_dispatch* layer = setup().layer;
    const cl_kernel kernel = kernelSetup().kernel;
    const cl_mem buffer = kernelSetup().buffer;
    const double switches = processSwitches();
    for (auto _ : state) {
        benchmark::DoNotOptimize(layer->clSetKernelArg(kernel, 0, sizeof buffer, &buffer));
    }
    countSwitches(state, switches);
}

void BM_TwoRdtsc(benchmark::State& state) {
#if defined(__x86_64__) || defined(__i386__)
    for (auto _ : state) {
        benchmark::DoNotOptimize(__rdtsc());
        benchmark::DoNotOptimize(__rdtsc());
    }
#else
    state.SkipWithError("no rdtsc on this architecture");
#endif
}

BENCHMARK(BM_NoLayer);
BENCHMARK(BM_LayerPaused);
// A fixed count: every traced call writes a record (about 130 bytes) to the fragments.
BENCHMARK(BM_LayerTracing)->Iterations(2000000);
BENCHMARK(BM_LayerTracingSym)->Iterations(2000000);
BENCHMARK(BM_TwoRdtsc);
BENCHMARK(BM_NoLayerSetKernelArg);
BENCHMARK(BM_LayerTracingSetKernelArg)->Iterations(2000000);

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    for (const char* base : {"/dev/shm", "/tmp"}) {
        baseDir() = makeDir(std::string(base) + "/perfmarker-layer-bench-");
        if (!baseDir().empty()) break;
    }
    std::fflush(nullptr);
    const pid_t child = fork();
    if (child == 0) {
        benchmark::RunSpecifiedBenchmarks();
        benchmark::Shutdown();
        return 0;  // exit() runs the layer's exit flush and merge
    }
    int status = 0;
    const bool waited = child > 0 && waitpid(child, &status, 0) == child;
    if (!waited) std::perror(child < 0 ? "layer_bench: fork" : "layer_bench: waitpid");
    if (!baseDir().empty()) {
        std::error_code ignored;
        std::filesystem::remove_all(baseDir(), ignored);
    }
    if (!waited) return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
