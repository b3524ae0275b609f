/*
 * launch_loop: what most OpenCL programs do, for the whole-process figures of the trace layer
 * (docs/performance.md, "Kept payloads"): a kernel's three arguments set (two buffers and an
 * int that changes every time) and the kernel enqueued, N times, with a clFinish every 1,024.
 * Trace it with the layer and keep the fragments to see what the writer wrote:
 *
 *   OPENCL_LAYERS=<libCLTraceAgent.so> PERFMARKER_OUTPUT=<dir>/t PERFMARKER_KEEP_FRAGMENTS=1 \
 *       build/bench/launch_loop 50000
 *
 * Exits with 0 when every call returned CL_SUCCESS, else names the first that did not.
 *
 * usage: launch_loop [launches]   (default 50000)
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static const char* const kSource =
    "__kernel void add(__global float* a, __global const float* b, const int n) {\n"
    "    size_t i = get_global_id(0);\n"
    "    if (i < (size_t)n) a[i] += b[i];\n"
    "}\n";

static int check(cl_int err, const char* what) {
    if (err != CL_SUCCESS) fprintf(stderr, "launch_loop: %s failed (%d)\n", what, (int)err);
    return err == CL_SUCCESS;
}

int main(int argc, char** argv) {
    const long launches = argc > 1 ? atol(argv[1]) : 50000;
    cl_platform_id platform;
    cl_device_id device;
    cl_int err = clGetPlatformIDs(1, &platform, NULL);
    if (!check(err, "clGetPlatformIDs")) return 1;
    err = clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL);
    if (!check(err, "clGetDeviceIDs")) return 1;
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (!check(err, "clCreateContext")) return 1;
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    if (!check(err, "clCreateCommandQueue")) return 1;
    const char* source = kSource;
    cl_program program = clCreateProgramWithSource(context, 1, &source, NULL, &err);
    if (!check(err, "clCreateProgramWithSource")) return 1;
    if (!check(clBuildProgram(program, 1, &device, NULL, NULL, NULL), "clBuildProgram")) return 1;
    cl_kernel kernel = clCreateKernel(program, "add", &err);
    if (!check(err, "clCreateKernel")) return 1;
    cl_mem a = clCreateBuffer(context, CL_MEM_READ_WRITE, 64 * sizeof(float), NULL, &err);
    if (!check(err, "clCreateBuffer")) return 1;
    cl_mem b = clCreateBuffer(context, CL_MEM_READ_WRITE, 64 * sizeof(float), NULL, &err);
    if (!check(err, "clCreateBuffer")) return 1;
    const size_t global = 64;
    for (long i = 0; i < launches; ++i) {
        const cl_int n = (cl_int)(i & 63);
        if (!check(clSetKernelArg(kernel, 0, sizeof a, &a), "clSetKernelArg") ||
            !check(clSetKernelArg(kernel, 1, sizeof b, &b), "clSetKernelArg") ||
            !check(clSetKernelArg(kernel, 2, sizeof n, &n), "clSetKernelArg") ||
            !check(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL),
                   "clEnqueueNDRangeKernel")) {
            return 1;
        }
        if ((i & 1023) == 1023 && !check(clFinish(queue), "clFinish")) return 1;
    }
    if (!check(clFinish(queue), "clFinish")) return 1;
    clReleaseMemObject(b);
    clReleaseMemObject(a);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    printf("launch_loop: %ld launches\n", launches);
    return 0;
}
