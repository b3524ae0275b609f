/* The call-site test application (docs/call-sites.md), built with -g -O0: its
 * clEnqueueNDRangeKernel calls come from two functions at known lines, enqueue_three (3 calls)
 * and enqueue_four (4 calls). With the argument "libs" it enqueues once more from a shared
 * library of the application (callsite_lib_enqueue) and once from a module it dlopen()s
 * (callsite_module_enqueue), path given as the second argument. Keep the CALL lines where the
 * test expects them: the test reads the line numbers from the markers in this file. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "callsite_lib.h"

static const char* kSource = "__kernel void inc(__global int* a) { a[get_global_id(0)] += 1; }\n";

static void check(cl_int err, const char* what) {
    if (err != CL_SUCCESS) {
        fprintf(stderr, "%s failed: %d\n", what, err);
        exit(1);
    }
}

static void enqueue_three(cl_command_queue queue, cl_kernel kernel) {
    const size_t global = 64;
    for (int i = 0; i < 3; ++i) {
        check(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL), "three"); /* CALL three */
    }
}

static void enqueue_four(cl_command_queue queue, cl_kernel kernel) {
    const size_t global = 64;
    for (int i = 0; i < 4; ++i) {
        check(clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL), "four"); /* CALL four */
    }
}

int main(int argc, char** argv) {
    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    check(clGetPlatformIDs(1, &platform, NULL), "clGetPlatformIDs");
    check(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL), "clGetDeviceIDs");
    cl_context context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    check(err, "clCreateContext");
    cl_command_queue queue = clCreateCommandQueue(context, device, 0, &err);
    check(err, "clCreateCommandQueue");
    cl_program program = clCreateProgramWithSource(context, 1, &kSource, NULL, &err);
    check(err, "clCreateProgramWithSource");
    check(clBuildProgram(program, 1, &device, "", NULL, NULL), "clBuildProgram");
    cl_kernel kernel = clCreateKernel(program, "inc", &err);
    check(err, "clCreateKernel");
    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 64 * sizeof(int), NULL, &err);
    check(err, "clCreateBuffer");
    check(clSetKernelArg(kernel, 0, sizeof buffer, &buffer), "clSetKernelArg");

    enqueue_three(queue, kernel);
    enqueue_four(queue, kernel);
    if (argc > 2 && strcmp(argv[1], "libs") == 0) {
        callsite_lib_enqueue(queue, kernel);
        void* module = dlopen(argv[2], RTLD_NOW);
        if (module == NULL) {
            fprintf(stderr, "dlopen %s: %s\n", argv[2], dlerror());
            return 1;
        }
        void (*enqueue)(cl_command_queue, cl_kernel) =
            (void (*)(cl_command_queue, cl_kernel))dlsym(module, "callsite_module_enqueue");
        if (enqueue == NULL) return 1;
        enqueue(queue, kernel);
        /* the module stays loaded: the agent lists it at exit */
    }
    check(clFinish(queue), "clFinish");
    clReleaseMemObject(buffer);
    clReleaseKernel(kernel);
    clReleaseProgram(program);
    clReleaseCommandQueue(queue);
    clReleaseContext(context);
    printf("callsite app done\n");
    return 0;
}
