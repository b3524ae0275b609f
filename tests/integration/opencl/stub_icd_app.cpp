// Drives the ICD loader against the stub ICD with a fixed sequence of calls (successful and
// failing ones). Writes "app: <label>=<pointer>" anchor lines into the stub's log before the
// calls that pass those pointers, so a test can check that they arrive unchanged.
//
// usage: stub_icd_app [--expect-layer <path of libCLTraceAgent.so>]
// With --expect-layer it also checks that the loader loaded the layer, and pauses and resumes
// the agent around one call (directly, and through the ActivityLogger library when built). Exit
// status 0 when every call behaved as the stub defines.
#include <CL/cl.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#ifdef PERFMARKER_HAVE_ACTIVITY_LOGGER
#include "ActivityLogger.h"
#endif

namespace {

int g_failures = 0;

void expect(bool ok, const char* what) {
    if (!ok) {
        std::fprintf(stderr, "stub_icd_app: FAILED: %s\n", what);
        ++g_failures;
    }
}

void anchor(const char* label, const void* p) {
    if (const char* path = std::getenv("PERFMARKER_STUB_ICD_LOG")) {
        if (FILE* f = std::fopen(path, "a")) {
            std::fprintf(f, "app: %s=%p\n", label, p);
            std::fclose(f);
        }
    }
}

void CL_CALLBACK onContextError(const char*, const void*, size_t, void*) {}

// The layer must be mapped (the loader opened it; this program never does) and answer
// clGetLayerInfo. Pauses and resumes the agent around `whilePaused`.
template <typename F>
void checkLayer(const char* path, F whilePaused) {
    void* handle = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
    expect(handle != nullptr, "the loader loaded the layer");
    if (handle == nullptr) return;
    using GetLayerInfo = cl_int (*)(cl_uint, size_t, void*, size_t*);
    auto getLayerInfo = reinterpret_cast<GetLayerInfo>(dlsym(handle, "clGetLayerInfo"));
    cl_uint version = 0;
    expect(getLayerInfo != nullptr &&
               getLayerInfo(0x4240 /* CL_LAYER_API_VERSION */, sizeof version, &version, nullptr) ==
                   CL_SUCCESS &&
               version == 100,
           "clGetLayerInfo(CL_LAYER_API_VERSION) == 100");
    auto stop = reinterpret_cast<void (*)()>(dlsym(handle, "amdtCodeXLStopProfiling"));
    auto resume = reinterpret_cast<void (*)()>(dlsym(handle, "amdtCodeXLResumeProfiling"));
    auto isPaused = reinterpret_cast<int (*)()>(dlsym(handle, "perfmarkerAgentIsPaused"));
    expect(stop && resume && isPaused, "the agent exports its control entry points");
    if (stop && resume && isPaused) {
        stop();
        expect(isPaused() == 1, "paused after amdtCodeXLStopProfiling");
        whilePaused();
        resume();
        expect(isPaused() == 0, "resumed after amdtCodeXLResumeProfiling");
#ifdef PERFMARKER_HAVE_ACTIVITY_LOGGER
        // The marker library finds the agent the loader loaded by its SONAME.
        expect(amdtStopProfiling(AMDT_TRACE_PROFILING) == AL_SUCCESS && isPaused() == 1,
               "amdtStopProfiling pauses the agent");
        expect(amdtResumeProfiling(AMDT_TRACE_PROFILING) == AL_SUCCESS && isPaused() == 0,
               "amdtResumeProfiling resumes the agent");
#endif
    }
    dlclose(handle);
}

}  // namespace

int main(int argc, char** argv) {
    const char* layer =
        argc == 3 && std::strcmp(argv[1], "--expect-layer") == 0 ? argv[2] : nullptr;
    cl_uint count = 0;
    expect(clGetPlatformIDs(0, nullptr, &count) == CL_SUCCESS && count == 1, "one platform");
    cl_platform_id platform = nullptr;
    expect(clGetPlatformIDs(1, &platform, nullptr) == CL_SUCCESS, "clGetPlatformIDs");

    char name[64] = {};
    size_t size = 0;
    anchor("name", name);
    anchor("size", &size);
    expect(clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof name, name, &size) == CL_SUCCESS &&
               std::strcmp(name, "perfmarker stub platform") == 0 && size == 25,
           "clGetPlatformInfo(CL_PLATFORM_NAME)");
    expect(clGetPlatformInfo(platform, CL_PLATFORM_NAME, 4, name, nullptr) == CL_INVALID_VALUE,
           "clGetPlatformInfo with a short buffer fails");

    cl_device_id device = nullptr;
    cl_uint numDevices = 0;
    anchor("device", &device);
    anchor("num_devices", &numDevices);
    expect(clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 1, &device, &numDevices) == CL_SUCCESS &&
               numDevices == 1,
           "clGetDeviceIDs");
    expect(clGetDeviceIDs(platform, CL_DEVICE_TYPE_GPU, 1, &device, nullptr) == CL_DEVICE_NOT_FOUND,
           "no GPU device");
    expect(clGetDeviceInfo(device, CL_DEVICE_NAME, sizeof name, name, nullptr) == CL_SUCCESS &&
               std::strcmp(name, "perfmarker stub device") == 0,
           "clGetDeviceInfo(CL_DEVICE_NAME)");
    expect(clGetDeviceInfo(device, CL_DEVICE_VENDOR_ID, sizeof name, name, nullptr) ==
               CL_INVALID_VALUE,
           "clGetDeviceInfo(unsupported) fails");

    cl_int err = 1;
    const cl_context_properties properties[] = {
        CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(platform), 0};
    int userData = 0;
    anchor("properties", properties);
    anchor("notify", reinterpret_cast<const void*>(&onContextError));
    anchor("user_data", &userData);
    anchor("err", &err);
    cl_context context = clCreateContext(properties, 1, &device, onContextError, &userData, &err);
    expect(context != nullptr && err == CL_SUCCESS, "clCreateContext");
    cl_command_queue queue = clCreateCommandQueue(context, device, CL_QUEUE_PROFILING_ENABLE, &err);
    expect(queue != nullptr && err == CL_SUCCESS, "clCreateCommandQueue");

    cl_mem buffer = clCreateBuffer(context, CL_MEM_READ_WRITE, 64, nullptr, &err);
    expect(buffer != nullptr && err == CL_SUCCESS, "clCreateBuffer");
    expect(clCreateBuffer(context, CL_MEM_READ_WRITE, 0, nullptr, &err) == nullptr &&
               err == CL_INVALID_BUFFER_SIZE,
           "clCreateBuffer(size 0) fails");

    std::vector<unsigned char> src(64), dst(64);
    for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<unsigned char>(i * 7 + 1);
    cl_event written = nullptr;
    anchor("src", src.data());
    anchor("written", &written);
    expect(clEnqueueWriteBuffer(queue, buffer, CL_TRUE, 0, 64, src.data(), 0, nullptr, &written) ==
               CL_SUCCESS,
           "clEnqueueWriteBuffer");
    anchor("dst_16", dst.data() + 16);
    expect(clEnqueueReadBuffer(queue, buffer, CL_TRUE, 16, 48, dst.data() + 16, 1, &written,
                               nullptr) == CL_SUCCESS,
           "clEnqueueReadBuffer");
    expect(std::memcmp(src.data() + 16, dst.data() + 16, 48) == 0, "read back what was written");

    expect(clFinish(queue) == CL_SUCCESS, "clFinish");
    if (layer != nullptr) {
        checkLayer(layer, [&] { expect(clFinish(queue) == CL_SUCCESS, "clFinish (paused)"); });
    } else {
        expect(clFinish(queue) == CL_SUCCESS, "clFinish (again)");
#ifdef PERFMARKER_HAVE_ACTIVITY_LOGGER
        expect(amdtStopProfiling(AMDT_TRACE_PROFILING) == AL_FAILED_TO_ATTACH_TO_PROFILER,
               "no agent to pause without the layer");
#endif
    }

    expect(clReleaseEvent(written) == CL_SUCCESS, "clReleaseEvent");
    expect(clReleaseMemObject(buffer) == CL_SUCCESS, "clReleaseMemObject");
    expect(clReleaseCommandQueue(queue) == CL_SUCCESS, "clReleaseCommandQueue");
    expect(clReleaseContext(context) == CL_SUCCESS, "clReleaseContext");
    return g_failures == 0 ? 0 : 1;
}
