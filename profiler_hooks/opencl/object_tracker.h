// What the agent knows about the application's OpenCL objects, and the device times of its
// commands (docs/opencl-trace.md: "Enqueue events", "Per enqueue").
//
// * Queues: the profiling the application asked for (the agent forces
//   CL_QUEUE_PROFILING_ENABLE on every queue and hides it again), its reference count as the
//   application sees it (so the last release can finish the queue first), and the live set
//   finished at exit.
// * ObjectInfo records: contexts and queues (creation counters), devices (name and type, once
//   per device), kernels (function name).
// * DeviceTimes records: for each recorded enqueue the agent holds a reference to the command's
//   event and reads its four profiling times in a CL_COMPLETE callback.
//
// All OpenCL calls made here go to the next layer directly and are never traced. A mutex guards
// the object maps; it is taken on object creation and release and on the two queries that
// need a queue's asked properties, never on the enqueue path.
#pragma once

#include <chrono>
#include <cstdint>

#include "cl_api.h"

namespace perfmarker::cltrace {

// The next layer's table (the wrappers' target): where the agent's own calls go.
const cl_icd_dispatch& nextLayer();

void onContextCreated(cl_context context);
void onQueueCreated(cl_command_queue queue, cl_context context, cl_device_id device,
                    cl_command_queue_properties asked);
void onKernelCreated(cl_kernel kernel, cl_program program, const char* name);

// The properties the application asked for (false when the queue is unknown).
bool askedQueueProperties(cl_command_queue queue, cl_command_queue_properties& asked);
void setAskedQueueProperties(cl_command_queue queue, cl_command_queue_properties asked);

// The application retains / releases a queue. beforeQueueRelease finishes the queue when this
// is the application's last reference, so the device times of its commands are recorded.
void onQueueRetained(cl_command_queue queue);
void beforeQueueRelease(cl_command_queue queue);
void afterQueueRelease(cl_command_queue queue, cl_int result);

// clGetEventProfilingInfo as without the agent: CL_PROFILING_INFO_NOT_AVAILABLE for an event of
// a queue the application did not ask profiling for.
bool profilingHiddenFor(cl_event event);

// Takes over device timing of a successful enqueue's event: `appOwned` when the event is the
// application's (the agent retains it), else the agent's own (released when done).
void trackCommand(cl_event event, bool appOwned, uint64_t enqueueId);

// A new nonzero id for ApiCallHead::enqueueId.
uint64_t nextEnqueueId();

// Exit: clFinish on every live queue; then wait (bounded) until the callbacks of the tracked
// commands have run.
void finishLiveQueues();
void waitForDeviceTimes(std::chrono::milliseconds limit);

}  // namespace perfmarker::cltrace
