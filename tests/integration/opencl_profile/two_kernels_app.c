/* The profile mode's test application (docs/profile.md): two kernels with known sizes.
 *   scale:    1-D, global 1024, local 64, dispatched 3 times
 *   tile_sum: 2-D, global 256x4, local 16x2, 4 KiB of __local memory, dispatched 4 times
 * Prints a checksum of the results, so that a run under the profiler can be compared with a
 * plain one. Arguments: "none" creates a context and a queue but dispatches nothing; "crash"
 * aborts after the third dispatch; "threads" makes the seven dispatches from two threads
 * (scale on one, tile_sum on the other, one after the other). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char* kSource =
    "__kernel void scale(__global float* a, float f) {\n"
    "    size_t i = get_global_id(0);\n"
    "    a[i] = a[i] * f;\n"
    "}\n"
    "__kernel void tile_sum(__global const float* in, __global float* out) {\n"
    "    __local float tile[1024];\n"
    "    size_t w = get_global_size(0);\n"
    "    size_t gx = get_global_id(0), gy = get_global_id(1);\n"
    "    size_t n = get_local_size(0) * get_local_size(1);\n"
    "    size_t l = get_local_id(1) * get_local_size(0) + get_local_id(0);\n"
    "    tile[l] = in[gy * w + gx];\n"
    "    barrier(CLK_LOCAL_MEM_FENCE);\n"
    "    out[gy * w + gx] = tile[l] + tile[(l + 1) % n];\n"
    "}\n";

#define CHECK(call)                                                              \
    do {                                                                         \
        cl_int err_ = (call);                                                    \
        if (err_ != CL_SUCCESS) {                                                \
            fprintf(stderr, "%s failed: %d (line %d)\n", #call, err_, __LINE__); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

enum { kScaleN = 1024, kTileW = 256, kTileH = 4 };

static cl_command_queue g_queue;
static cl_kernel g_scale, g_tile;
static int g_crash;
static int g_dispatches;

static void dispatched(void) {
    if (++g_dispatches == 3 && g_crash) {
        CHECK(clFinish(g_queue));
        fflush(stdout);
        abort();
    }
}

static void* runScale(void* arg) {
    (void)arg;
    const size_t global = kScaleN, local = 64;
    for (int i = 0; i < 3; ++i) {
        CHECK(clEnqueueNDRangeKernel(g_queue, g_scale, 1, NULL, &global, &local, 0, NULL, NULL));
        dispatched();
    }
    return NULL;
}

static void* runTile(void* arg) {
    (void)arg;
    const size_t global[2] = {kTileW, kTileH}, local[2] = {16, 2};
    for (int i = 0; i < 4; ++i) {
        cl_event event;
        CHECK(clEnqueueNDRangeKernel(g_queue, g_tile, 2, NULL, global, local, 0, NULL, &event));
        CHECK(clReleaseEvent(event));
        dispatched();
    }
    return NULL;
}

int main(int argc, char** argv) {
    const char* mode = argc > 1 ? argv[1] : "";
    g_crash = strcmp(mode, "crash") == 0;
    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    CHECK(clGetPlatformIDs(1, &platform, NULL));
    CHECK(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL));
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    CHECK(err);
    g_queue = clCreateCommandQueue(context, device, 0, &err);
    CHECK(err);
    /* The profiler forces profiling on: the application must still see the queue it asked for. */
    cl_command_queue_properties properties = 0;
    CHECK(
        clGetCommandQueueInfo(g_queue, CL_QUEUE_PROPERTIES, sizeof properties, &properties, NULL));
    printf("queue properties: %lu\n", (unsigned long)properties);
    if (strcmp(mode, "none") == 0) {
        printf("no kernels\n");
        clReleaseCommandQueue(g_queue);
        clReleaseContext(context);
        return 0;
    }
    cl_program program = clCreateProgramWithSource(context, 1, &kSource, NULL, &err);
    CHECK(err);
    CHECK(clBuildProgram(program, 1, &device, "", NULL, NULL));
    g_scale = clCreateKernel(program, "scale", &err);
    CHECK(err);
    g_tile = clCreateKernel(program, "tile_sum", &err);
    CHECK(err);

    static float a[kScaleN], in[kTileW * kTileH], out[kTileW * kTileH];
    for (int i = 0; i < kScaleN; ++i) a[i] = (float)(i % 17);
    for (int i = 0; i < kTileW * kTileH; ++i) in[i] = (float)(i % 5);
    cl_mem bufA =
        clCreateBuffer(context, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof a, a, &err);
    CHECK(err);
    cl_mem bufIn =
        clCreateBuffer(context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, sizeof in, in, &err);
    CHECK(err);
    cl_mem bufOut = clCreateBuffer(context, CL_MEM_WRITE_ONLY, sizeof out, NULL, &err);
    CHECK(err);
    const float factor = 2.0f;
    CHECK(clSetKernelArg(g_scale, 0, sizeof bufA, &bufA));
    CHECK(clSetKernelArg(g_scale, 1, sizeof factor, &factor));
    CHECK(clSetKernelArg(g_tile, 0, sizeof bufIn, &bufIn));
    CHECK(clSetKernelArg(g_tile, 1, sizeof bufOut, &bufOut));

    if (strcmp(mode, "threads") == 0) {
        pthread_t thread;
        pthread_create(&thread, NULL, runScale, NULL);
        pthread_join(thread, NULL);
        pthread_create(&thread, NULL, runTile, NULL);
        pthread_join(thread, NULL);
    } else {
        runScale(NULL);
        runTile(NULL);
    }
    CHECK(clEnqueueReadBuffer(g_queue, bufA, CL_TRUE, 0, sizeof a, a, 0, NULL, NULL));
    CHECK(clEnqueueReadBuffer(g_queue, bufOut, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL));
    double sum = 0;
    for (int i = 0; i < kScaleN; ++i) sum += a[i];
    for (int i = 0; i < kTileW * kTileH; ++i) sum += out[i];
    printf("two kernels: checksum %.1f\n", sum);

    clReleaseMemObject(bufA);
    clReleaseMemObject(bufIn);
    clReleaseMemObject(bufOut);
    clReleaseKernel(g_scale);
    clReleaseKernel(g_tile);
    clReleaseProgram(program);
    clReleaseCommandQueue(g_queue);
    clReleaseContext(context);
    return 0;
}
