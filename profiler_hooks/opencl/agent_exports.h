// The C entry points libCLTraceAgent.so exports besides the layer interface of CL/cl_layer.h
// (clGetLayerInfo, clInitLayer). cl_trace_agent.map lists all of them; nothing else is exported.
#pragma once

#define PERFMARKER_CLTRACE_EXPORT __attribute__((visibility("default")))

extern "C" {

// Runtime control (spec §7.4): the marker libraries find the loaded agent by its SONAME and call
// these. Stop discards the API calls that follow until Resume; calls still pass through.
PERFMARKER_CLTRACE_EXPORT void amdtCodeXLStopProfiling(void);
PERFMARKER_CLTRACE_EXPORT void amdtCodeXLResumeProfiling(void);

// 1 while stopped, else 0 (lets the marker libraries report "already paused/resumed").
PERFMARKER_CLTRACE_EXPORT int perfmarkerAgentIsPaused(void);

}  // extern "C"
