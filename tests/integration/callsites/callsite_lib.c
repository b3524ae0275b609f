/* Built twice: as the application's shared library (callsite_lib_enqueue) and, with
 * CALLSITE_MODULE defined, as the module it dlopen()s (callsite_module_enqueue). */
#include "callsite_lib.h"

#include <stddef.h>

#ifndef CALLSITE_MODULE
void callsite_lib_enqueue(cl_command_queue queue, cl_kernel kernel) {
    const size_t global = 64;
    clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL); /* CALL lib */
}
#else
void callsite_module_enqueue(cl_command_queue queue, cl_kernel kernel) {
    const size_t global = 64;
    clEnqueueNDRangeKernel(queue, kernel, 1, NULL, &global, NULL, 0, NULL, NULL); /* CALL module */
}
#endif
