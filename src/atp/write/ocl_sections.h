// The OpenCL part of an .atp file (docs/format.md) built from the agent's binary records:
// the API-trace and timestamp sections with the same threads, in the same order, with the
// same line counts. Device times are converted into the host clock here (docs/opencl-trace.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "atp/write/call_sites.h"
#include "atp/write/text_batcher.h"
#include "record/api_record.h"
#include "record/record_format.h"

namespace perfmarker::atp {

// The per-enqueue values a timestamp line needs from the call's arguments.
struct OclEnqueueInfo {
    uint64_t queue = 0;
    uint64_t kernel = 0;     // NDRange, Task: the kernel; Native: the user function
    std::string globalSize;  // "{a,b}" (NDRange), "{1}" (Task)
    std::string localSize;   // "{a,b}", "{NULL}", "{1}"
    bool hasDataSize = false;
    uint64_t dataSize = 0;
};

// What the builder needs to know about OpenCL APIs. The real one (defaultOclFormatter) reads
// the API catalogue of ocl_api.h; tests pass a small fake.
class OclFormatter {
public:
    virtual ~OclFormatter() = default;
    // A name that outlives the formatter (a catalogue entry).
    virtual std::string_view apiName(const record::ApiCallView& call) const = 0;
    // CL_FUNC_TYPE id written in field 1 of the timestamp line.
    virtual int apiType(const record::ApiCallView& call) const = 0;
    // An enqueue API whose call succeeded: its timestamp line carries device times.
    virtual bool isSuccessfulEnqueue(const record::ApiCallView& call) const = 0;
    // Appends the API-trace line without its line end; a count > 1 adds " /*N consecutive
    // calls*/". On failure the caller cuts `line` back to its size before the call.
    virtual bool apiLine(const record::ApiCallView& call, uint32_t consecutiveCalls,
                         std::string& line, std::string& error) const = 0;
    // True when apiLine() and enqueueInfo() depend on nothing but the call's payload, its end
    // time and enqueue id aside (and apiLine() on the count): the builder then makes them once
    // for a repeated call (api_line_memo.h). handleString() and commandTypeName() are always
    // taken as functions of their argument.
    virtual bool linesAreOfPayload() const { return false; }
    virtual bool enqueueInfo(const record::ApiCallView& call, OclEnqueueInfo& info,
                             std::string& error) const = 0;
    virtual std::string commandTypeName(uint32_t commandType) const = 0;
    virtual std::string handleString(uint64_t handle) const = 0;
};

// The formatter of ocl_format.h.
const OclFormatter& defaultOclFormatter();

struct OclTraceOptions {
    bool collapseEventInfo = true;   // docs/format.md#collapsed-calls
    uint64_t maxApiCalls = 1000000;  // lines per process; the earliest ones are kept
};

struct OclTraceStats {
    uint64_t apiCalls = 0;            // ApiCall records read
    uint64_t lines = 0;               // lines per section
    uint64_t threads = 0;             // thread blocks per section
    uint64_t collapsedCalls = 0;      // clGetEventInfo calls folded into the line before
    uint64_t droppedLines = 0;        // lines beyond maxApiCalls
    uint64_t enqueueLines = 0;        // lines with device times (or zeros for them)
    uint64_t missingDeviceTimes = 0;  // enqueue lines written with zeros
    uint64_t clampedDeviceTimes = 0;  // enqueue lines with a device time moved into order
    uint64_t unknownObjects = 0;      // enqueue lines with a queue/context/device/kernel unseen
    uint64_t malformedRecords = 0;    // records that could not be decoded (skipped)
    uint64_t unformattedLines = 0;    // API lines written as a placeholder
};

// Replays one thread's records in order. Must deliver the same records on every call (the
// builder reads them several times instead of holding them in memory). A visit that returns
// false wants no more records of the thread: the replay may stop there (and succeed).
using RecordVisit = std::function<bool(const record::RecordView&)>;
using RecordReplay = std::function<bool(const RecordVisit& visit, std::string& error)>;

// Use: addThread() for every thread in output order, prepare(), then the two write calls.
//
// prepare() reads every thread once: object records (contexts, queues, devices, kernels) and
// device times from all threads, the line count of every thread (after collapsing), the
// cut-off for maxApiCalls, and a clock offset per device. The write calls read the threads
// again and produce the sections; threads without lines get no block.
class OclTraceBuilder {
public:
    explicit OclTraceBuilder(const OclFormatter& formatter, OclTraceOptions options = {});
    ~OclTraceBuilder();
    OclTraceBuilder(const OclTraceBuilder&) = delete;
    OclTraceBuilder& operator=(const OclTraceBuilder&) = delete;

    void addThread(uint64_t tid, RecordReplay replay);
    bool prepare(std::string& error);
    bool hasLines() const;  // after prepare(): false means both sections are left out
    // "=====ocl API Trace Output=====" and its thread blocks.
    bool writeApiSection(const TextSink& sink, std::string& error);
    // "=====ocl Timestamp Output=====" and its thread blocks.
    bool writeTimestampSection(const TextSink& sink, std::string& error);
    // "=====ocl Stack Trace Output=====": the same blocks, one call-site line per API line.
    bool writeStackSection(const TextSink& sink, CallSiteWriter& sites, std::string& error);

    const OclTraceStats& stats() const;
    // One sentence per noteworthy count of stats() (missing device times, dropped lines, ...).
    std::vector<std::string> warnings() const;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

// ---- device clock (exposed for tests and docs/opencl-trace.md) -----------------------------

// Device times of one command, device clock, with unknown (zero) fields filled from their
// neighbours: submit <- queued, start <- submit, end <- start, and a zero queued <- the first
// known later time. False when all four are zero.
bool normalizeDeviceTimes(uint64_t times[4]);

// Estimates the offset (host = device + offset) of one device from its commands' queued
// times and the host times of the API calls that enqueued them.
class DeviceClockFit {
public:
    void add(uint64_t apiStart, uint64_t apiEnd, uint64_t deviceQueued);
    int64_t offset() const;

private:
    bool m_any = false;
    __int128 m_low = 0;   // max(apiStart - queued): the offset is at least this
    __int128 m_high = 0;  // min(apiEnd - queued): and at most this
};

// Converts normalized device times with `offset` and clamps them so that
// apiStart <= queued <= apiEnd and queued <= submit <= start <= end. Returns true when a
// value had to be moved.
bool convertDeviceTimes(const uint64_t device[4], int64_t offset, uint64_t apiStart,
                        uint64_t apiEnd, uint64_t host[4]);

}  // namespace perfmarker::atp
