// Synthetic typed records for the report tests: what the .atp reader would announce.
#pragma once

#include <string>

#include "report/timeline.h"

namespace perfmarker::report::testing {

inline void sendMarker(TimelineCollector& collector, uint64_t tid, atp::MarkerKind kind,
                       uint64_t time, const std::string& name = {}, const std::string& user = {},
                       const std::string& group = "Default") {
    atp::Marker marker;
    marker.kind = kind;
    marker.timestampNs = time;
    marker.name = name;
    marker.group = group;
    marker.userString = user;
    atp::MarkerEvent event;
    event.tid = tid;
    event.marker = &marker;
    collector.onMarker(event);
}

inline void sendApi(TimelineCollector& collector, uint64_t tid, const std::string& name,
                    uint64_t start, uint64_t end) {
    atp::OclApiCall call;
    call.tid = tid;
    call.name = name;
    call.returnValue = "CL_SUCCESS";
    call.start = start;
    call.end = end;
    collector.onOclApiCall(call);
}

// An enqueue with its device command on OpenCL queue `queue`.
inline void sendEnqueue(TimelineCollector& collector, uint32_t commandType,
                        const std::string& commandName, const std::string& kernel, uint64_t start,
                        uint64_t end, uint64_t queue = 0) {
    atp::OclApiCall call;
    call.tid = 1;
    call.name = kernel.empty() ? "clEnqueueWriteBuffer" : "clEnqueueNDRangeKernel";
    call.start = start - 100;
    call.end = start - 50;
    call.hasCommand = true;
    call.command.commandType = commandType;
    call.command.commandName = commandName;
    call.command.start = start;
    call.command.end = end;
    call.command.queued = start - 100;
    call.command.queueId = queue;
    call.command.deviceName = "pthread-cpu";
    call.command.isKernel = !kernel.empty();
    call.command.kernelName = kernel;
    call.command.globalSize = kernel.empty() ? "" : "{1024}";
    call.command.localSize = kernel.empty() ? "" : "{64}";
    collector.onOclApiCall(call);
}

}  // namespace perfmarker::report::testing
