/* A shared library of the call-site test application, and the module it dlopen()s. */
#ifndef CALLSITE_LIB_H
#define CALLSITE_LIB_H
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>

void callsite_lib_enqueue(cl_command_queue queue, cl_kernel kernel);
void callsite_module_enqueue(cl_command_queue queue, cl_kernel kernel);

#endif
