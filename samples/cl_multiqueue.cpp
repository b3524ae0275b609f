// cl_multiqueue: several host threads, each with its own OpenCL command queue on one shared
// context, labelled with ActivityLogger markers (amdtScopedMarker). Each thread runs a few
// rounds of upload / kernel / download on its own buffers. Trace it with the launcher:
//
//   perfmarker trace -o /tmp/multiqueue.atp -- ./cl_multiqueue
//
// Prints one line per thread that depends only on the results (in thread order, after all
// threads finished); exits with 0 only when every result is right.
//
// usage: cl_multiqueue [thread count]   (default 4, at least 2)
#define CL_TARGET_OPENCL_VERSION 120
#include <ActivityLogger.h>
#include <CL/cl.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr char kSource[] = R"(
__kernel void axpb(__global const float* x, __global float* y, const float a, const float b) {
    size_t i = get_global_id(0);
    y[i] = a * x[i] + b;
}
)";

constexpr size_t kElements = 1 << 16;
constexpr int kRounds = 3;

std::atomic<int> g_markerFailures{0};
bool g_sessionActive = false;

bool ok(cl_int err, const char* what) {
    if (err != CL_SUCCESS) std::fprintf(stderr, "cl_multiqueue: %s failed: %d\n", what, err);
    return err == CL_SUCCESS;
}

void checkMarker(const amdtScopedMarker& marker) {
    const int expected = g_sessionActive ? AL_SUCCESS : AL_UNINITIALIZED_ACTIVITY_LOGGER;
    if (marker.result() != expected) {
        ++g_markerFailures;
        std::fprintf(stderr, "cl_multiqueue: amdtBeginMarker returned %d, expected %d\n",
                     marker.result(), expected);
    }
}

struct Shared {
    cl_device_id device = nullptr;
    cl_context context = nullptr;
    cl_program program = nullptr;
    ~Shared() {
        if (program != nullptr) clReleaseProgram(program);
        if (context != nullptr) clReleaseContext(context);
    }
};

// What one thread owns: its queue, its kernel object (clSetKernelArg is not thread-safe on a
// shared kernel) and its buffers.
struct Lane {
    cl_command_queue queue = nullptr;
    cl_kernel kernel = nullptr;
    cl_mem x = nullptr;
    cl_mem y = nullptr;
    std::vector<float> host = std::vector<float>(kElements);
    std::vector<float> result = std::vector<float>(kElements);
    ~Lane() {
        if (y != nullptr) clReleaseMemObject(y);
        if (x != nullptr) clReleaseMemObject(x);
        if (kernel != nullptr) clReleaseKernel(kernel);
        if (queue != nullptr) clReleaseCommandQueue(queue);
    }
};

bool setUpShared(Shared& shared) {
    cl_platform_id platform = nullptr;
    cl_int err = CL_SUCCESS;
    if (!ok(clGetPlatformIDs(1, &platform, nullptr), "clGetPlatformIDs") ||
        !ok(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &shared.device, nullptr),
            "clGetDeviceIDs")) {
        return false;
    }
    shared.context = clCreateContext(nullptr, 1, &shared.device, nullptr, nullptr, &err);
    if (!ok(err, "clCreateContext")) return false;
    const char* source = kSource;
    shared.program = clCreateProgramWithSource(shared.context, 1, &source, nullptr, &err);
    return ok(err, "clCreateProgramWithSource") &&
           ok(clBuildProgram(shared.program, 1, &shared.device, "", nullptr, nullptr),
              "clBuildProgram");
}

bool setUpLane(const Shared& shared, Lane& lane) {
    amdtScopedMarker marker("Setup", "Lanes");
    checkMarker(marker);
    cl_int err = CL_SUCCESS;
    lane.queue =
        clCreateCommandQueue(shared.context, shared.device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (!ok(err, "clCreateCommandQueue")) return false;
    lane.kernel = clCreateKernel(shared.program, "axpb", &err);
    if (!ok(err, "clCreateKernel")) return false;
    const size_t bytes = sizeof(float) * kElements;
    lane.x = clCreateBuffer(shared.context, CL_MEM_READ_ONLY, bytes, nullptr, &err);
    if (!ok(err, "clCreateBuffer(x)")) return false;
    lane.y = clCreateBuffer(shared.context, CL_MEM_WRITE_ONLY, bytes, nullptr, &err);
    return ok(err, "clCreateBuffer(y)");
}

// One round: y = a*x + b on the lane's queue; returns the number of wrong elements.
size_t runRound(Lane& lane, int index, int round) {
    const std::string name = "Round " + std::to_string(round);
    amdtScopedMarker marker(name.c_str(), "Lanes");
    checkMarker(marker);
    const float a = static_cast<float>(index + 1);
    const float b = static_cast<float>(round);
    for (size_t i = 0; i < kElements; ++i) lane.host[i] = static_cast<float>(i % 512);
    const size_t bytes = sizeof(float) * kElements;
    const size_t global = kElements;
    const bool enqueued =
        ok(clEnqueueWriteBuffer(lane.queue, lane.x, CL_FALSE, 0, bytes, lane.host.data(), 0,
                                nullptr, nullptr),
           "clEnqueueWriteBuffer") &&
        ok(clSetKernelArg(lane.kernel, 0, sizeof(cl_mem), &lane.x), "clSetKernelArg(x)") &&
        ok(clSetKernelArg(lane.kernel, 1, sizeof(cl_mem), &lane.y), "clSetKernelArg(y)") &&
        ok(clSetKernelArg(lane.kernel, 2, sizeof a, &a), "clSetKernelArg(a)") &&
        ok(clSetKernelArg(lane.kernel, 3, sizeof b, &b), "clSetKernelArg(b)") &&
        ok(clEnqueueNDRangeKernel(lane.queue, lane.kernel, 1, nullptr, &global, nullptr, 0, nullptr,
                                  nullptr),
           "clEnqueueNDRangeKernel") &&
        ok(clEnqueueReadBuffer(lane.queue, lane.y, CL_TRUE, 0, bytes, lane.result.data(), 0,
                               nullptr, nullptr),
           "clEnqueueReadBuffer");
    if (!enqueued) return kElements;
    size_t wrong = 0;
    for (size_t i = 0; i < kElements; ++i) {
        if (lane.result[i] != a * lane.host[i] + b) ++wrong;
    }
    return wrong;
}

struct LaneOutcome {
    bool ok = false;
    size_t wrong = 0;
    double checksum = 0.0;
};

void runLane(const Shared& shared, int index, LaneOutcome& outcome) {
    const std::string name = "Lane " + std::to_string(index);
    amdtScopedMarker marker(name.c_str(), "Lanes");
    checkMarker(marker);
    Lane lane;
    if (!setUpLane(shared, lane)) return;
    for (int round = 0; round < kRounds; ++round) outcome.wrong += runRound(lane, index, round);
    for (float value : lane.result) outcome.checksum += value;
    outcome.ok = true;
}

}  // namespace

int main(int argc, char** argv) {
    const int threads = argc > 1 ? std::atoi(argv[1]) : 4;
    if (threads < 2) {
        std::fprintf(stderr, "usage: cl_multiqueue [thread count >= 2]\n");
        return 2;
    }
    g_sessionActive = amdtInitializeActivityLogger() == AL_SUCCESS;
    bool good = false;
    std::vector<LaneOutcome> outcomes(static_cast<size_t>(threads));
    {
        Shared shared;
        if (setUpShared(shared)) {
            std::vector<std::thread> workers;
            for (int i = 0; i < threads; ++i) {
                workers.emplace_back(runLane, std::cref(shared), i, std::ref(outcomes[i]));
            }
            for (std::thread& worker : workers) worker.join();
            good = true;
        }
    }
    for (size_t i = 0; i < outcomes.size(); ++i) {
        const LaneOutcome& outcome = outcomes[i];
        std::printf("lane %zu: rounds=%d wrong=%zu checksum=%.0f\n", i, kRounds, outcome.wrong,
                    outcome.checksum);
        good = good && outcome.ok && outcome.wrong == 0;
    }
    if (g_sessionActive && amdtFinalizeActivityLogger() != AL_SUCCESS) ++g_markerFailures;
    return good && g_markerFailures == 0 ? 0 : 1;
}
