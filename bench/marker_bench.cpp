// Hot-path benchmarks of the marker libraries, side by side with the timestamp floor and with
// the design of the original library. See docs/performance.md.
//
// The CLPerfMarker library runs under a session (timeout mode, files in a temporary
// directory); the ActivityLogger library is never initialized, which is the "no session" case.
#include <benchmark/benchmark.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iomanip>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "ActivityLogger.h"
#include "CLPerfMarker.h"
#include "atp/format/perfmarker_section.h"
#include "markers/marker_core.h"
#include "record/clock.h"
#include "record/fragments/packed_block.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

namespace {

std::string g_dir;

const char* benchEnv(const char* name) {
    static std::map<std::string, std::string> env;
    if (env.empty()) {
        env["PERFMARKER_OUTPUT"] = g_dir + "/core";
        env["PERFMARKER_MODE"] = "timeout";
    }
    auto it = env.find(name);
    return it == env.end() ? nullptr : it->second.c_str();
}

long rssKb() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}

long currentRssKb() {
    long pages = 0, resident = 0;
    FILE* f = std::fopen("/proc/self/statm", "r");
    if (f != nullptr) {
        if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
        std::fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

// ---- the floor ---------------------------------------------------------------------------

void BM_TwoClockGettime(benchmark::State& state) {
    for (auto _ : state) {
        timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        clock_gettime(CLOCK_MONOTONIC, &b);
        benchmark::DoNotOptimize(a);
        benchmark::DoNotOptimize(b);
    }
}
BENCHMARK(BM_TwoClockGettime);

void BM_TwoRdtsc(benchmark::State& state) {
    for (auto _ : state) {
#if defined(__x86_64__) || defined(__i386__)
        benchmark::DoNotOptimize(__rdtsc());
        benchmark::DoNotOptimize(__rdtsc());
#else
        benchmark::DoNotOptimize(perfmarker::record::monotonicNs());
        benchmark::DoNotOptimize(perfmarker::record::monotonicNs());
#endif
    }
}
BENCHMARK(BM_TwoRdtsc)->Threads(1)->Threads(2);

// ---- perfmarker --------------------------------------------------------------------------

void BM_PairWithSession(benchmark::State& state) {
    for (auto _ : state) {
        clBeginPerfMarkerAMD("DrawCall", "Render");
        clEndPerfMarkerAMD();
    }
}
// A fixed number of pairs per run: the session's fragments go to tmpfs where there is one (see
// main), so the writer keeps up and the run measures the recording thread, not the disk.
BENCHMARK(BM_PairWithSession)->Iterations(4000000)->Threads(1)->Threads(2);

void BM_PairWithoutSession(benchmark::State& state) {
    for (auto _ : state) {
        benchmark::DoNotOptimize(amdtBeginMarker("DrawCall", "Render", nullptr));
        benchmark::DoNotOptimize(amdtEndMarker());
    }
}
BENCHMARK(BM_PairWithoutSession);

// The same through the exported functions (what an application built without the headers'
// inline fast path, or against the original headers, pays: a call through the PLT).
void BM_PairWithoutSessionCalled(benchmark::State& state) {
    for (auto _ : state) {
        benchmark::DoNotOptimize((amdtBeginMarker)("DrawCall", "Render", nullptr));
        benchmark::DoNotOptimize((amdtEndMarker)());
    }
}
BENCHMARK(BM_PairWithoutSessionCalled);

// ---- the original design: one global mutex, a map of per-thread streams, iostreams ------

struct OriginalDesign {
    std::mutex mutex;
    std::map<long, std::ostringstream> streams;
    std::map<long, int> depth;
};
OriginalDesign g_original;

void originalBegin(const char* name, const char* group) {
    std::lock_guard<std::mutex> lock(g_original.mutex);
    long tid = syscall(SYS_gettid);
    std::ostringstream& out = g_original.streams[tid];
    out << std::left << std::setw(20) << "clBeginPerfMarker" << std::setw(50) << name
        << std::setw(20) << perfmarker::record::monotonicNs() << "   " << group << '\n';
    ++g_original.depth[tid];
}

void originalEnd() {
    std::lock_guard<std::mutex> lock(g_original.mutex);
    long tid = syscall(SYS_gettid);
    std::ostringstream& out = g_original.streams[tid];
    out << std::left << std::setw(20) << "clEndPerfMarker" << std::setw(20)
        << perfmarker::record::monotonicNs() << '\n';
    --g_original.depth[tid];
}

void BM_OriginalDesignPair(benchmark::State& state) {
    for (auto _ : state) {
        originalBegin("DrawCall", "Render");
        originalEnd();
    }
    if (state.thread_index() == 0) {
        std::lock_guard<std::mutex> lock(g_original.mutex);
        g_original.streams.clear();  // keep memory in check between runs
    }
}
BENCHMARK(BM_OriginalDesignPair)->Threads(1)->Threads(2);

// ---- memory in timeout mode, finalize ----------------------------------------------------

// Records `events` markers into a fresh core in timeout mode and reports memory as counters.
void BM_TimeoutModeMemory(benchmark::State& state) {
    const int64_t pairs = state.range(0) / 2;
    for (auto _ : state) {
        perfmarker::markers::MarkerCore core(perfmarker::markers::kActivityLogger, &benchEnv);
        core.initialize();
        const long rssBefore = currentRssKb();
        size_t peakAllocated = 0;
        for (int64_t i = 0; i < pairs; ++i) {
            core.begin("DrawCall", "Render", nullptr);
            core.end();
            if ((i & 0xfffff) == 0) {
                peakAllocated = std::max(peakAllocated, core.recorder()->allocatedBytes());
            }
        }
        state.counters["rss_growth_MB"] = (currentRssKb() - rssBefore) / 1024.0;
        state.counters["chunk_memory_MB"] = peakAllocated / 1048576.0;
        state.counters["events"] = static_cast<double>(pairs * 2);
        state.PauseTiming();
        core.finalize();
        std::remove(core.outputPath().c_str());
        state.ResumeTiming();
    }
}
BENCHMARK(BM_TimeoutModeMemory)->Arg(100000000)->Iterations(1)->Unit(benchmark::kMillisecond);

// Time of finalize alone for `events` recorded markers (timeout mode: read back fragments).
void BM_FinalizeEvents(benchmark::State& state) {
    const int64_t pairs = state.range(0) / 2;
    for (auto _ : state) {
        state.PauseTiming();
        perfmarker::markers::MarkerCore core(perfmarker::markers::kActivityLogger, &benchEnv);
        core.initialize();
        for (int64_t i = 0; i < pairs; ++i) {
            core.begin("DrawCall", "Render", nullptr);
            core.end();
        }
        state.ResumeTiming();
        if (core.finalize() != 0) state.SkipWithError("finalize failed");
        state.PauseTiming();
        std::remove(core.outputPath().c_str());
        state.ResumeTiming();
    }
    state.counters["events"] = static_cast<double>(pairs * 2);
}
BENCHMARK(BM_FinalizeEvents)->Arg(10000000)->Iterations(1)->Unit(benchmark::kMillisecond);

// Finalize's text alone: one begin and one end line per iteration, timestamps of today's
// CLOCK_MONOTONIC size, into a buffer that is emptied every 1 MiB (no I/O).
void BM_FormatPairAppend(benchmark::State& state) {
    std::string out;
    out.reserve(size_t{1} << 21);
    uint64_t ts = 4035402100000;
    for (auto _ : state) {
        perfmarker::atp::appendMarkerLine(out, perfmarker::atp::MarkerKind::Begin, ts, "DrawCall",
                                          "Render");
        perfmarker::atp::appendMarkerLine(out, perfmarker::atp::MarkerKind::End, ts + 517);
        ts += 1031;
        if (out.size() >= (size_t{1} << 20)) out.clear();
    }
    benchmark::DoNotOptimize(out.data());
}
BENCHMARK(BM_FormatPairAppend);

// The same lines written in place, as finalize writes them (atp::CommonLineWriter).
void BM_FormatPairInPlace(benchmark::State& state) {
    constexpr size_t kBatch = size_t{1} << 20;
    std::string out(kBatch + perfmarker::atp::kMarkerLineRoom, ' ');
    char* cursor = out.data();
    perfmarker::atp::CommonLineWriter lines;
    uint64_t ts = 4035402100000;
    for (auto _ : state) {
        cursor = lines.put(cursor, perfmarker::atp::MarkerKind::Begin, ts, "DrawCall", "Render");
        cursor = lines.put(cursor, perfmarker::atp::MarkerKind::End, ts + 517);
        ts += 1031;
        if (cursor >= out.data() + kBatch - perfmarker::atp::kMarkerLineRoom) cursor = out.data();
    }
    benchmark::DoNotOptimize(out.data());
}
BENCHMARK(BM_FormatPairInPlace);

// The writer's packing of a chunk's worth of marker pairs (1,024 pairs: names and groups copied
// into the records as the recording threads do), per pair; and finalize's unpacking of them.
std::vector<perfmarker::record::RecordView> chunkOfPairs(std::string& bytes) {
    constexpr int kPairs = 1024;
    bytes.clear();
    for (int i = 0; i < kPairs; ++i)
        bytes.append(i % 8 == 0 ? "Upload" : "DrawCall").append("Render");
    std::vector<perfmarker::record::RecordView> records;
    size_t at = 0;
    for (int i = 0; i < kPairs; ++i) {
        const size_t nameSize = i % 8 == 0 ? 6 : 8;
        perfmarker::record::RecordView begin;
        begin.time = 4035402100000 + 1031 * static_cast<uint64_t>(i);
        begin.kind = perfmarker::record::RecordKind::MarkerBegin;
        begin.str0 = std::string_view(bytes).substr(at, nameSize);
        begin.str1 = std::string_view(bytes).substr(at + nameSize, 6);
        at += nameSize + 6;
        perfmarker::record::RecordView end;
        end.time = begin.time + 517;
        end.kind = perfmarker::record::RecordKind::MarkerEnd;
        records.push_back(begin);
        records.push_back(end);
    }
    return records;
}

void BM_PackPairs(benchmark::State& state) {
    std::string bytes;
    const auto records = chunkOfPairs(bytes);
    perfmarker::record::BlockPacker packer;
    for (auto _ : state) {
        packer.begin(32);
        for (const auto& r : records) packer.add(r);
        benchmark::DoNotOptimize(packer.data());
    }
    state.counters["ns_per_pair"] = benchmark::Counter(
        static_cast<double>(state.iterations()) * static_cast<double>(records.size() / 2),
        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["bytes_per_pair"] =
        static_cast<double>(packer.size() - 32) / static_cast<double>(records.size() / 2);
}
BENCHMARK(BM_PackPairs);

void BM_UnpackPairs(benchmark::State& state) {
    std::string bytes;
    const auto records = chunkOfPairs(bytes);
    perfmarker::record::BlockPacker packer;
    packer.begin(0);
    for (const auto& r : records) packer.add(r);
    perfmarker::record::BlockUnpacker unpacker;
    uint64_t sum = 0;
    for (auto _ : state) {
        unpacker.unpack(packer.data(), packer.size(),
                        [&sum](const perfmarker::record::RecordView& r) { sum += r.time; });
    }
    benchmark::DoNotOptimize(sum);
    state.counters["ns_per_pair"] = benchmark::Counter(
        static_cast<double>(state.iterations()) * static_cast<double>(records.size() / 2),
        benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_UnpackPairs);

// The same pairs recorded as compact records (a loop's markers, record_format.h): the writer
// packs them as marker words in one loop (RecordWriter::packWords, here its stores), finalize
// reads the words back.
void packWordPairs(perfmarker::record::BlockPacker& packer, size_t pairs) {
    namespace packed = perfmarker::record::packed;
    packer.begin(32);
    packer.addBeginWord(4035402100000, 1, "DrawCall", "Render");
    unsigned char* out = packer.openWords(2 * pairs);
    uint64_t time = 4035402100000;
    for (size_t i = 0; i < pairs; ++i) {
        const uint64_t words[2] = {
            packed::kWordEnd | (time + 517),
            packed::kWordBegin | uint64_t{1} << packed::kWordSlotShift | (time + 1031)};
        std::memcpy(out, words, sizeof words);
        out += sizeof words;
        time += 1031;
    }
    packer.closeWords(out, time);
}

void BM_PackWordPairs(benchmark::State& state) {
    constexpr size_t kPairs = 1024;
    perfmarker::record::BlockPacker packer;
    for (auto _ : state) {
        packWordPairs(packer, kPairs);
        benchmark::DoNotOptimize(packer.data());
    }
    state.counters["ns_per_pair"] =
        benchmark::Counter(static_cast<double>(state.iterations()) * kPairs,
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["bytes_per_pair"] = static_cast<double>(packer.size() - 32) / kPairs;
}
BENCHMARK(BM_PackWordPairs);

void BM_UnpackWordPairs(benchmark::State& state) {
    constexpr size_t kPairs = 1024;
    perfmarker::record::BlockPacker packer;
    packWordPairs(packer, kPairs);
    perfmarker::record::BlockUnpacker unpacker;
    uint64_t sum = 0;
    for (auto _ : state) {
        unpacker.unpack(
            packer.data() + 32, packer.size() - 32,
            [&sum](const perfmarker::record::RecordView& r) { sum += r.time + r.str0.size(); });
    }
    benchmark::DoNotOptimize(sum);
    state.counters["ns_per_pair"] =
        benchmark::Counter(static_cast<double>(state.iterations()) * kPairs,
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_UnpackWordPairs);

}  // namespace

int main(int argc, char** argv) {
    // Fragments on tmpfs where the machine has one: the pair benchmarks write about 64 bytes
    // per pair, faster than most disks take them.
    std::string templ = access("/dev/shm", W_OK) == 0 ? "/dev/shm/perfmarker-bench-XXXXXX"
                                                      : "/tmp/perfmarker-bench-XXXXXX";
    const char* dir = mkdtemp(templ.data());
    if (dir == nullptr) {
        std::perror("mkdtemp");
        return 1;
    }
    g_dir = dir;
    setenv("PERFMARKER_OUTPUT", (g_dir + "/bench").c_str(), 1);
    setenv("PERFMARKER_MODE", "timeout", 1);
    setenv("PERFMARKER_TMPDIR", dir, 1);
    if (clInitializePerfMarkerAMD() != AP_SUCCESS) {
        std::fprintf(stderr, "marker_bench: cannot start a session in %s\n", dir);
        return 1;
    }
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    // The session's own markers are not the point: finalize, then clean up.
    clFinalizePerfMarkerAMD();
    std::remove((g_dir + "/bench.clperfmarker").c_str());
    std::remove(dir);
    (void)rssKb;
    return 0;
}
