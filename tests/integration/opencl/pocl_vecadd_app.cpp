// A real OpenCL program for the layer tests: builds and runs a vector-add kernel on the first
// platform the loader offers (PoCL in the tests), with profiled events, and prints a line that
// depends only on the results.
//
// usage: pocl_vecadd_app [--expect-layer <path of libCLTraceAgent.so>]
// With PERFMARKER_TEST_CRASH_AFTER_MS=N in the environment it aborts N ms after its OpenCL work,
// before any exit handler runs (a crashed application, for the tracer's crash tests).
// With --expect-layer it also checks that the loader loaded the layer (this program never
// opens it) and that the layer answers clGetLayerInfo(CL_LAYER_NAME). Exit status 0 on success.
#include <CL/cl.h>
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr char kSource[] = R"(
__kernel void vadd(__global const float* a, __global const float* b, __global float* c,
                   const unsigned n) {
    size_t i = get_global_id(0);
    if (i < n) c[i] = a[i] + b[i];
}
)";

bool ok(cl_int err, const char* what) {
    if (err != CL_SUCCESS) std::fprintf(stderr, "pocl_vecadd_app: %s failed: %d\n", what, err);
    return err == CL_SUCCESS;
}

bool checkLayer(const char* path) {
    void* handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    if (handle == nullptr) {
        std::fprintf(stderr, "pocl_vecadd_app: the loader did not load %s\n", path);
        return false;
    }
    using GetLayerInfo = cl_int (*)(cl_uint, size_t, void*, size_t*);
    auto getLayerInfo = reinterpret_cast<GetLayerInfo>(dlsym(handle, "clGetLayerInfo"));
    char name[128] = {};
    const bool named =
        getLayerInfo != nullptr &&
        getLayerInfo(0x4241 /* CL_LAYER_NAME */, sizeof name, name, nullptr) == CL_SUCCESS &&
        std::strcmp(name, "perfmarker OpenCL trace layer") == 0;
    if (!named) std::fprintf(stderr, "pocl_vecadd_app: the layer did not give its name\n");
    dlclose(handle);
    return named;
}

struct Cl {
    cl_context context = nullptr;
    cl_command_queue queue = nullptr;
    cl_program program = nullptr;
    cl_kernel kernel = nullptr;
    cl_mem buffers[3] = {};
    ~Cl() {
        for (cl_mem m : buffers) {
            if (m != nullptr) clReleaseMemObject(m);
        }
        if (kernel != nullptr) clReleaseKernel(kernel);
        if (program != nullptr) clReleaseProgram(program);
        if (queue != nullptr) clReleaseCommandQueue(queue);
        if (context != nullptr) clReleaseContext(context);
    }
};

bool setUp(Cl& cl, cl_device_id* device) {
    cl_platform_id platform = nullptr;
    cl_int err = clGetPlatformIDs(1, &platform, nullptr);
    if (!ok(err, "clGetPlatformIDs") ||
        !ok(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, device, nullptr), "clGetDeviceIDs")) {
        return false;
    }
    const cl_context_properties props[] = {CL_CONTEXT_PLATFORM,
                                           reinterpret_cast<cl_context_properties>(platform), 0};
    cl.context = clCreateContext(props, 1, device, nullptr, nullptr, &err);
    if (!ok(err, "clCreateContext")) return false;
    cl.queue = clCreateCommandQueue(cl.context, *device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (!ok(err, "clCreateCommandQueue")) return false;
    const char* source = kSource;
    cl.program = clCreateProgramWithSource(cl.context, 1, &source, nullptr, &err);
    if (!ok(err, "clCreateProgramWithSource")) return false;
    if (!ok(clBuildProgram(cl.program, 1, device, "", nullptr, nullptr), "clBuildProgram")) {
        return false;
    }
    cl.kernel = clCreateKernel(cl.program, "vadd", &err);
    return ok(err, "clCreateKernel");
}

// Runs c = a + b on the device; returns false on any error.
bool run(Cl& cl, const std::vector<float>& a, const std::vector<float>& b, std::vector<float>& c) {
    const size_t bytes = a.size() * sizeof(float);
    cl_int err = CL_SUCCESS;
    for (cl_mem& m : cl.buffers) {
        m = clCreateBuffer(cl.context, CL_MEM_READ_WRITE, bytes, nullptr, &err);
        if (!ok(err, "clCreateBuffer")) return false;
    }
    cl_event written[2] = {};
    if (!ok(clEnqueueWriteBuffer(cl.queue, cl.buffers[0], CL_FALSE, 0, bytes, a.data(), 0, nullptr,
                                 &written[0]),
            "clEnqueueWriteBuffer") ||
        !ok(clEnqueueWriteBuffer(cl.queue, cl.buffers[1], CL_FALSE, 0, bytes, b.data(), 0, nullptr,
                                 &written[1]),
            "clEnqueueWriteBuffer")) {
        return false;
    }
    const cl_uint n = static_cast<cl_uint>(a.size());
    for (cl_uint i = 0; i < 3; ++i) {
        if (!ok(clSetKernelArg(cl.kernel, i, sizeof(cl_mem), &cl.buffers[i]), "clSetKernelArg")) {
            return false;
        }
    }
    if (!ok(clSetKernelArg(cl.kernel, 3, sizeof n, &n), "clSetKernelArg")) return false;
    const size_t global = a.size();
    cl_event done = nullptr;
    bool good = ok(clEnqueueNDRangeKernel(cl.queue, cl.kernel, 1, nullptr, &global, nullptr, 2,
                                          written, &done),
                   "clEnqueueNDRangeKernel") &&
                ok(clWaitForEvents(1, &done), "clWaitForEvents");
    cl_ulong start = 0, end = 0;
    good =
        good &&
        ok(clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_START, sizeof start, &start, nullptr),
           "clGetEventProfilingInfo") &&
        ok(clGetEventProfilingInfo(done, CL_PROFILING_COMMAND_END, sizeof end, &end, nullptr),
           "clGetEventProfilingInfo") &&
        ok(end >= start ? CL_SUCCESS : CL_INVALID_VALUE, "kernel end >= start") &&
        ok(clEnqueueReadBuffer(cl.queue, cl.buffers[2], CL_TRUE, 0, bytes, c.data(), 0, nullptr,
                               nullptr),
           "clEnqueueReadBuffer") &&
        ok(clFinish(cl.queue), "clFinish");
    for (cl_event e : {written[0], written[1], done}) {
        if (e != nullptr) clReleaseEvent(e);
    }
    return good;
}

// What a tracing layer must not change: a queue created without profiling reports exactly the
// properties asked for, and its events have no profiling information; the profiling queue
// reports CL_QUEUE_PROFILING_ENABLE.
bool checkProfilingAsAsked(Cl& cl, cl_device_id device, const std::vector<float>& a) {
    cl_int err = CL_SUCCESS;
    cl_command_queue plain = clCreateCommandQueue(cl.context, device, 0, &err);
    if (!ok(err, "clCreateCommandQueue(0)")) return false;
    cl_command_queue_properties plainProps = ~cl_command_queue_properties{0};
    cl_command_queue_properties timedProps = 0;
    bool good =
        ok(clGetCommandQueueInfo(plain, CL_QUEUE_PROPERTIES, sizeof plainProps, &plainProps,
                                 nullptr),
           "clGetCommandQueueInfo") &&
        ok(plainProps == 0 ? CL_SUCCESS : CL_INVALID_VALUE, "plain queue properties == 0") &&
        ok(clGetCommandQueueInfo(cl.queue, CL_QUEUE_PROPERTIES, sizeof timedProps, &timedProps,
                                 nullptr),
           "clGetCommandQueueInfo") &&
        ok(timedProps == CL_QUEUE_PROFILING_ENABLE ? CL_SUCCESS : CL_INVALID_VALUE,
           "profiling queue properties == CL_QUEUE_PROFILING_ENABLE");
    cl_event written = nullptr;
    good = good && ok(clEnqueueWriteBuffer(plain, cl.buffers[0], CL_TRUE, 0, sizeof(float),
                                           a.data(), 0, nullptr, &written),
                      "clEnqueueWriteBuffer(plain)");
    cl_ulong start = 0;
    good = good && ok(clGetEventProfilingInfo(written, CL_PROFILING_COMMAND_START, sizeof start,
                                              &start, nullptr) == CL_PROFILING_INFO_NOT_AVAILABLE
                          ? CL_SUCCESS
                          : CL_INVALID_VALUE,
                      "no profiling info on a queue without profiling");
    if (written != nullptr) clReleaseEvent(written);
    clReleaseCommandQueue(plain);
    return good;
}

}  // namespace

int main(int argc, char** argv) {
    const size_t n = 1 << 16;
    std::vector<float> a(n), b(n), c(n, -1.0f);
    for (size_t i = 0; i < n; ++i) {
        a[i] = static_cast<float>(i % 1000);
        b[i] = static_cast<float>((i * 3) % 517) * 0.5f;
    }
    Cl cl;
    cl_device_id device = nullptr;
    if (!setUp(cl, &device) || !run(cl, a, b, c) || !checkProfilingAsAsked(cl, device, a)) {
        return 1;
    }
    if (const char* crash = std::getenv("PERFMARKER_TEST_CRASH_AFTER_MS")) {
        std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(crash)));
        std::abort();
    }
    // The loader loads its layers at its first use, so only now can the layer be there.
    if (argc == 3 && std::strcmp(argv[1], "--expect-layer") == 0 && !checkLayer(argv[2])) {
        return 2;
    }
    double sum = 0;
    size_t wrong = 0;
    for (size_t i = 0; i < n; ++i) {
        sum += c[i];
        if (c[i] != a[i] + b[i]) ++wrong;
    }
    std::printf("vadd n=%zu wrong=%zu sum=%.1f\n", n, wrong, sum);
    return wrong == 0 ? 0 : 1;
}
