// The call-site test application through the C++ wrapper header (docs/call-sites.md#which-
// frame), built with -g -O0 so that the wrapper's methods are real functions: the call sites
// must be this file's lines, not the header's.
#define CL_HPP_TARGET_OPENCL_VERSION 120
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#include <CL/opencl.hpp>
#include <cstdio>

static void enqueueTwice(cl::CommandQueue& queue, cl::Kernel& kernel) {
    const cl::NDRange global(64);
    for (int i = 0; i < 2; ++i) {
        queue.enqueueNDRangeKernel(kernel, cl::NullRange, global);  // CALL twice
    }
}

int main() {
    cl::Context context(CL_DEVICE_TYPE_ALL);
    cl::Device device = context.getInfo<CL_CONTEXT_DEVICES>().front();
    cl::CommandQueue queue(context, device);
    cl::Program program(context,
                        "__kernel void inc(__global int* a) { a[get_global_id(0)] += 1; }");
    program.build({device});
    cl::Kernel kernel(program, "inc");
    cl::Buffer buffer(context, CL_MEM_READ_WRITE, 64 * sizeof(int));
    kernel.setArg(0, buffer);
    enqueueTwice(queue, kernel);
    queue.finish();
    std::printf("callsite cpp app done\n");
    return 0;
}
