// What both OpenCL layers (the trace layer and the profile layer) answer to the loader's
// clGetLayerInfo (docs/opencl-trace.md#how-it-is-loaded): the layer API version they speak and
// their name. Header-only: the layers include it with their OpenCL headers.
#pragma once

#include <CL/cl_layer.h>

#include <cstring>

#ifndef CL_LAYER_NAME  // cl_layer.h before 2021 lacks it
#define CL_LAYER_NAME 0x4241
#endif

namespace perfmarker::hooks {

// The clGet*Info convention: CL_INVALID_VALUE when the caller's buffer is too small; a null
// param_value or param_value_size_ret is simply not written.
inline cl_int returnInfo(const void* value, size_t size, size_t paramValueSize, void* paramValue,
                         size_t* paramValueSizeRet) {
    if (paramValue != nullptr) {
        if (paramValueSize < size) return CL_INVALID_VALUE;
        std::memcpy(paramValue, value, size);
    }
    if (paramValueSizeRet != nullptr) *paramValueSizeRet = size;
    return CL_SUCCESS;
}

// clGetLayerInfo of a layer named `name` (a string literal: its size includes the '\0').
template <size_t N>
cl_int layerInfo(const char (&name)[N], cl_layer_info param, size_t paramValueSize,
                 void* paramValue, size_t* paramValueSizeRet) {
    switch (param) {
        case CL_LAYER_API_VERSION: {
            const cl_layer_api_version version = CL_LAYER_API_VERSION_100;
            return returnInfo(&version, sizeof version, paramValueSize, paramValue,
                              paramValueSizeRet);
        }
        case CL_LAYER_NAME:
            return returnInfo(name, N, paramValueSize, paramValue, paramValueSizeRet);
        default:
            return CL_INVALID_VALUE;
    }
}

}  // namespace perfmarker::hooks
