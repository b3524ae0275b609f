/*
 * cl_vecadd: an OpenCL vector addition with each phase labelled by a CLPerfMarker marker:
 * setup, upload, kernel, download and verify. Runs on any OpenCL platform (PoCL on a CPU is
 * enough). Trace it with the launcher to get the OpenCL calls and the markers in one file:
 *
 *   perfmarker trace -o /tmp/vecadd.atp -- ./cl_vecadd
 *
 * Prints one line that depends only on the results; exits with 0 only when every element of the
 * result is right (and, under a session, every marker call succeeded).
 *
 * usage: cl_vecadd [element count]   (default 1048576)
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <CLPerfMarker.h>
#include <stdio.h>
#include <stdlib.h>

static const char* const kSource =
    "__kernel void vadd(__global const float* a, __global const float* b,\n"
    "                   __global float* c, const unsigned n) {\n"
    "    size_t i = get_global_id(0);\n"
    "    if (i < n) c[i] = a[i] + b[i];\n"
    "}\n";

struct VecAdd {
    cl_uint n;
    float* a;
    float* b;
    float* c;
    cl_context context;
    cl_command_queue queue;
    cl_program program;
    cl_kernel kernel;
    cl_mem buffers[3];
};

static int g_sessionActive; /* clInitializePerfMarkerAMD() returned AP_SUCCESS */
static int g_markerFailures;

static int ok(cl_int err, const char* what) {
    if (err != CL_SUCCESS) fprintf(stderr, "cl_vecadd: %s failed: %d\n", what, (int)err);
    return err == CL_SUCCESS;
}

/* Under a session every marker call succeeds; without one each reports the uninitialized
 * library, and the program runs the same. */
static void checkMarker(const char* call, int code) {
    const int expected = g_sessionActive ? AP_SUCCESS : AP_UNINITIALIZED_PERF_MARKER;
    if (code != expected) {
        ++g_markerFailures;
        fprintf(stderr, "cl_vecadd: %s returned %d, expected %d\n", call, code, expected);
    }
}

static void beginPhase(const char* name) {
    checkMarker("clBeginPerfMarkerAMD", clBeginPerfMarkerAMD(name, "VecAdd"));
}

static void endPhase(void) { checkMarker("clEndPerfMarkerAMD", clEndPerfMarkerAMD()); }

static int buildProgram(struct VecAdd* v, cl_device_id device) {
    cl_int err;
    const char* source = kSource;
    v->program = clCreateProgramWithSource(v->context, 1, &source, NULL, &err);
    if (!ok(err, "clCreateProgramWithSource")) return 0;
    err = clBuildProgram(v->program, 1, &device, "", NULL, NULL);
    if (!ok(err, "clBuildProgram")) return 0;
    v->kernel = clCreateKernel(v->program, "vadd", &err);
    return ok(err, "clCreateKernel");
}

static int setUp(struct VecAdd* v) {
    cl_platform_id platform;
    cl_device_id device;
    cl_int err;
    size_t bytes = sizeof(float) * v->n;
    int i;
    if (!ok(clGetPlatformIDs(1, &platform, NULL), "clGetPlatformIDs") ||
        !ok(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, NULL), "clGetDeviceIDs")) {
        return 0;
    }
    v->context = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (!ok(err, "clCreateContext")) return 0;
    v->queue = clCreateCommandQueue(v->context, device, CL_QUEUE_PROFILING_ENABLE, &err);
    if (!ok(err, "clCreateCommandQueue") || !buildProgram(v, device)) return 0;
    for (i = 0; i < 3; ++i) {
        cl_mem_flags flags = i < 2 ? CL_MEM_READ_ONLY : CL_MEM_WRITE_ONLY;
        v->buffers[i] = clCreateBuffer(v->context, flags, bytes, NULL, &err);
        if (!ok(err, "clCreateBuffer")) return 0;
    }
    return 1;
}

static int upload(struct VecAdd* v) {
    size_t bytes = sizeof(float) * v->n;
    cl_uint i;
    for (i = 0; i < v->n; ++i) {
        v->a[i] = (float)i;
        v->b[i] = (float)(2 * (i % 1000));
    }
    return ok(clEnqueueWriteBuffer(v->queue, v->buffers[0], CL_FALSE, 0, bytes, v->a, 0, NULL,
                                   NULL),
              "clEnqueueWriteBuffer(a)") &&
           ok(clEnqueueWriteBuffer(v->queue, v->buffers[1], CL_FALSE, 0, bytes, v->b, 0, NULL,
                                   NULL),
              "clEnqueueWriteBuffer(b)");
}

static int runKernel(struct VecAdd* v) {
    size_t global = v->n;
    cl_event done;
    int i;
    for (i = 0; i < 3; ++i) {
        if (!ok(clSetKernelArg(v->kernel, (cl_uint)i, sizeof(cl_mem), &v->buffers[i]),
                "clSetKernelArg")) {
            return 0;
        }
    }
    if (!ok(clSetKernelArg(v->kernel, 3, sizeof(cl_uint), &v->n), "clSetKernelArg(n)") ||
        !ok(clEnqueueNDRangeKernel(v->queue, v->kernel, 1, NULL, &global, NULL, 0, NULL, &done),
            "clEnqueueNDRangeKernel")) {
        return 0;
    }
    i = ok(clWaitForEvents(1, &done), "clWaitForEvents");
    clReleaseEvent(done);
    return i;
}

static int download(struct VecAdd* v) {
    return ok(clEnqueueReadBuffer(v->queue, v->buffers[2], CL_TRUE, 0, sizeof(float) * v->n, v->c,
                                  0, NULL, NULL),
              "clEnqueueReadBuffer");
}

/* Counts the wrong elements; prints the line that the tests compare. */
static cl_uint verify(const struct VecAdd* v) {
    cl_uint wrong = 0;
    double sum = 0.0;
    cl_uint i;
    for (i = 0; i < v->n; ++i) {
        if (v->c[i] != v->a[i] + v->b[i]) ++wrong;
        sum += v->c[i];
    }
    printf("vecadd n=%u wrong=%u sum=%.0f\n", (unsigned)v->n, (unsigned)wrong, sum);
    return wrong;
}

static void tearDown(struct VecAdd* v) {
    int i;
    for (i = 0; i < 3; ++i) {
        if (v->buffers[i] != NULL) clReleaseMemObject(v->buffers[i]);
    }
    if (v->kernel != NULL) clReleaseKernel(v->kernel);
    if (v->program != NULL) clReleaseProgram(v->program);
    if (v->queue != NULL) clReleaseCommandQueue(v->queue);
    if (v->context != NULL) clReleaseContext(v->context);
    free(v->a);
    free(v->b);
    free(v->c);
}

/* Runs one phase inside its marker; returns the phase's success. */
static int phase(const char* name, int (*body)(struct VecAdd*), struct VecAdd* v) {
    int result;
    beginPhase(name);
    result = body(v);
    endPhase();
    return result;
}

static int verifyPhase(struct VecAdd* v) { return verify(v) == 0; }

int main(int argc, char** argv) {
    struct VecAdd v = {0};
    int good;
    v.n = argc > 1 ? (cl_uint)strtoul(argv[1], NULL, 10) : 1048576u;
    if (v.n == 0) {
        fprintf(stderr, "usage: cl_vecadd [element count > 0]\n");
        return 2;
    }
    v.a = malloc(sizeof(float) * v.n);
    v.b = malloc(sizeof(float) * v.n);
    v.c = malloc(sizeof(float) * v.n);
    g_sessionActive = clInitializePerfMarkerAMD() == AP_SUCCESS;

    good = v.a != NULL && v.b != NULL && v.c != NULL && phase("Setup", setUp, &v) &&
           phase("Upload", upload, &v) && phase("Kernel", runKernel, &v) &&
           phase("Download", download, &v) && phase("Verify", verifyPhase, &v);
    tearDown(&v);

    if (g_sessionActive) checkMarker("clFinalizePerfMarkerAMD", clFinalizePerfMarkerAMD());
    return good && g_markerFailures == 0 ? 0 : 1;
}
