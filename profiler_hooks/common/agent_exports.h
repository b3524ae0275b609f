// The C entry points both tracing agents export besides their loader interface (the OpenCL
// layer's clGetLayerInfo / clInitLayer, the HSA tools library's OnLoad / OnUnload). Each agent's
// version script (cl_trace_agent.map, hsa_trace_agent.map) lists its exports; nothing else is
// exported.
#pragma once

#define PERFMARKER_AGENT_EXPORT __attribute__((visibility("default")))

extern "C" {

// Runtime control (docs/session.md): the marker libraries find a loaded agent by its SONAME
// and call these. Stop discards the API calls that follow until Resume; calls still pass
// through. Defined once for both agents (agent_lifecycle.cpp), on the paused flag.
PERFMARKER_AGENT_EXPORT void amdtCodeXLStopProfiling(void);
PERFMARKER_AGENT_EXPORT void amdtCodeXLResumeProfiling(void);

// 1 while stopped, else 0 (lets the marker libraries report "already paused/resumed").
PERFMARKER_AGENT_EXPORT int perfmarkerAgentIsPaused(void);

}  // extern "C"
