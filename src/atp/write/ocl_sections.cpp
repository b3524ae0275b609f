// OpenCL API-trace and timestamp sections from the agent's records (see ocl_trace.h).
#include "atp/write/ocl_sections.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <utility>

#include "atp/format/atp_header.h"
#include "atp/format/perfmarker_section.h"
#include "atp/format/timestamp_fields.h"
#include "atp/write/api_line_memo.h"
#include "atp/write/ocl_enqueue_fields.h"

namespace perfmarker::atp {
namespace {

using namespace ocl_fields;

using record::ApiCallView;
using record::DeviceTimesPayload;
using record::ObjectInfoPayload;
using record::ObjectType;
using record::RecordKind;
using record::RecordView;

template <typename T>
bool readPayload(std::string_view bytes, T& out) {
    if (bytes.size() < sizeof out) return false;
    std::memcpy(&out, bytes.data(), sizeof out);
    return true;
}

// One output line: a call, or a run of identical clGetEventInfo calls folded into its first.
struct Line {
    const ApiCallView* call = nullptr;
    std::string_view name;
    uint64_t start = 0;
    uint64_t end = 0;
    uint32_t count = 1;
};

// clGetEventInfo(event, param_name, param_value_size, param_value, param_value_size_ret):
// the same query when the event, the name, the size, the first 4 bytes of the value and the
// returned size match (docs/format.md#collapsed-calls; the return code is not compared).
bool sameEventQuery(const ApiCallView& a, const ApiCallView& b) {
    for (size_t i = 0; i < 3; ++i) {
        if (a.arg(i) != b.arg(i)) return false;
    }
    if ((a.arg(3) == 0) != (b.arg(3) == 0) || (a.arg(4) == 0) != (b.arg(4) == 0)) return false;
    for (const size_t index : {size_t{3}, size_t{4}}) {
        record::CaptureEncoding ea{}, eb{};
        std::string_view va, vb;
        const bool ha = a.captured(index, ea, va);
        const bool hb = b.captured(index, eb, vb);
        if (ha != hb) return false;
        if (ha && (index == 3 ? va.substr(0, 4) != vb.substr(0, 4) : va != vb)) return false;
    }
    return true;
}

// Turns a thread's ApiCall records into lines, in order. A clGetEventInfo line waits for the
// records after it (it may fold them) and owns a copy of its payload, which is only valid while
// the record is visited; any other line is handed on at once, viewing the record.
class LineAssembler {
public:
    using Emit = std::function<void(const Line&)>;

    LineAssembler(const OclFormatter& formatter, bool collapse, Emit emit)
        : m_formatter(formatter), m_collapse(collapse), m_emit(std::move(emit)) {}

    // False when the payload cannot be decoded (the record is skipped).
    bool feed(const RecordView& record) {
        ApiCallView call;
        if (!record::decodeApiCall(record.str0, call)) return false;
        ++m_calls;
        const std::string_view name = m_formatter.apiName(call);
        const bool eventInfo = m_collapse && name == kEventInfoApi;
        if (eventInfo && m_pending && sameEventQuery(m_view, call)) {
            ++m_count;
            ++m_collapsed;
            m_end = std::max(m_end, call.head.endTime);
            return true;
        }
        flush();
        if (!eventInfo) {
            m_emit(Line{&call, name, record.time, std::max(call.head.endTime, record.time), 1});
            return true;
        }
        m_payload.assign(record.str0);
        record::decodeApiCall(m_payload, m_view);
        m_name = name;
        m_start = record.time;
        m_end = std::max(call.head.endTime, record.time);
        m_count = 1;
        m_pending = true;
        return true;
    }

    void flush() {
        if (!m_pending) return;
        m_pending = false;
        m_emit(Line{&m_view, m_name, m_start, m_end, m_count});
    }

    uint64_t calls() const { return m_calls; }
    uint64_t collapsed() const { return m_collapsed; }

private:
    const OclFormatter& m_formatter;
    bool m_collapse;
    Emit m_emit;
    bool m_pending = false;
    std::string m_payload;
    ApiCallView m_view;
    std::string_view m_name;  // the formatter's: outlives the assembler
    uint64_t m_start = 0;
    uint64_t m_end = 0;
    uint32_t m_count = 1;
    uint64_t m_calls = 0;
    uint64_t m_collapsed = 0;
};

// Orders lines process-wide for the maxApiCalls cut: earliest start first.
struct LineKey {
    uint64_t start;
    uint64_t thread;
    uint64_t line;
    bool operator<(const LineKey& o) const {
        return std::tie(start, thread, line) < std::tie(o.start, o.thread, o.line);
    }
};

struct ThreadEntry {
    uint64_t tid = 0;
    RecordReplay replay;
    uint64_t lines = 0;       // after collapsing
    bool inTimeOrder = true;  // line starts never go back (then the cut keeps a prefix)
    uint64_t lastStart = 0;
    uint64_t kept = 0;  // after the maxApiCalls cut: the first `kept` lines, unless...
    std::vector<uint64_t> keptLines;  // ...these (sorted line indexes) are given
};

struct EnqueueSample {
    uint64_t queue;
    uint64_t apiStart;
    uint64_t apiEnd;
    uint64_t enqueueId;
};

}  // namespace

// ---- builder -------------------------------------------------------------------------------

struct OclTraceBuilder::Impl {
    Impl(const OclFormatter& f, OclTraceOptions o)
        : formatter(f), options(o), memo(f.linesAreOfPayload()) {}

    // Returns false when no more lines are wanted: the rest of the thread's ApiCall records are
    // then passed over without being decoded.
    using LineVisit = std::function<bool(const Line&, uint64_t lineIndex)>;
    // `count`: add the record counts to the stats (the first reading only).
    bool replayLines(ThreadEntry& thread, const RecordVisit& other, const LineVisit& onLine,
                     bool count, std::string& error);
    bool replayLines(ThreadEntry& thread, const LineVisit& onLine, std::string& error) {
        return replayLines(thread, nullptr, onLine, false, error);
    }
    void collectObject(const RecordView& record);
    void noteEnqueue(const Line& line);
    const EnqueueOfCall& enqueueOf(const Line& line);
    void computeOffsets();
    bool applyLimit(std::string& error);
    bool writeSection(SectionKind kind, const TextSink& sink, std::string& error,
                      const std::function<void(const Line&, std::string&)>& format);
    void apiLine(const Line& line, std::string& out);
    void timestampLine(const Line& line, std::string& out);
    void fillEnqueue(const Line& line, OclTimestampLine& t);
    void fillObjects(const EnqueueOfCall& e, uint64_t time, OclTimestampLine& t, uint64_t& device);

    const OclFormatter& formatter;
    OclTraceOptions options;
    const bool memo;  // the formatter's lines are of the payload: keep them (api_line_memo.h)
    std::vector<ThreadEntry> threads;
    ObjectTable objects;
    std::unordered_map<uint64_t, DeviceTimesPayload> deviceTimes;
    std::unordered_map<uint64_t, int64_t> deviceOffsets;  // by device handle (0: unknown)
    std::vector<EnqueueSample> samples;
    OclTraceStats stats;
    OclTimestampLine scratch;  // reused per line so its strings keep their capacity
    DecimalFieldWriter timeDigits;  // timestamps of a section share their high digits
    ApiLineMemo apiLines;           // the API lines of repeated calls
    PayloadMemo<EnqueueOfCall, 6> enqueues;  // their enqueue fields
    EnqueueOfCall enqueue;                   // when the formatter's are not of the payload
    NamedLast named;                         // of `scratch`
};

bool OclTraceBuilder::Impl::replayLines(ThreadEntry& thread, const RecordVisit& other,
                                        const LineVisit& onLine, bool count, std::string& error) {
    uint64_t index = 0;
    bool more = true;
    LineAssembler assembler(formatter, options.collapseEventInfo, [&](const Line& line) {
        if (more) more = onLine(line, index);
        ++index;
    });
    const bool ok = thread.replay(
        [&](const RecordView& record) {
            if (record.kind == RecordKind::ApiCall) {
                if (more && !assembler.feed(record) && count) ++stats.malformedRecords;
            } else if (other) {
                other(record);
            }
            return more || static_cast<bool>(other);  // the rest passed over: stop reading
        },
        error);
    if (!ok) return false;
    assembler.flush();
    if (count) {
        stats.apiCalls += assembler.calls();
        stats.collapsedCalls += assembler.collapsed();
    }
    return true;
}

void OclTraceBuilder::Impl::collectObject(const RecordView& record) {
    if (record.kind == RecordKind::ObjectInfo) {
        ObjectInfoPayload info{};
        if (!readPayload(record.str0, info)) {
            ++stats.malformedRecords;
            return;
        }
        objects.add(record.time, info, record.str1);
    } else if (record.kind == RecordKind::DeviceTimes) {
        DeviceTimesPayload times{};
        if (!readPayload(record.str0, times)) {
            ++stats.malformedRecords;
            return;
        }
        deviceTimes[times.enqueueId] = times;
    }
}

void OclTraceBuilder::Impl::noteEnqueue(const Line& line) {
    const ApiCallView& call = *line.call;
    if (call.head.enqueueId == 0 || !formatter.isSuccessfulEnqueue(call)) return;
    const uint64_t queue = enqueueOf(line).info.queue;
    samples.push_back(EnqueueSample{queue, line.start, line.end, call.head.enqueueId});
}

const EnqueueOfCall& OclTraceBuilder::Impl::enqueueOf(const Line& line) {
    const ApiCallView& call = *line.call;
    if (const EnqueueOfCall* kept = memo ? enqueues.find(call) : nullptr) return *kept;
    EnqueueOfCall* e = memo ? enqueues.keep(call) : nullptr;
    if (e == nullptr) e = &enqueue;
    std::string ignored;
    if (!formatter.enqueueInfo(call, e->info, ignored)) {
        e->info = OclEnqueueInfo{};
        e->info.queue = call.arg(0);
    }
    e->apiCommandType = commandTypeOfApi(line.name);
    e->queueHandle = formatter.handleString(e->info.queue);
    e->kernelHandle = formatter.handleString(e->info.kernel);
    const OclEnqueueInfo& info = e->info;
    e->globalSize = info.globalSize.empty() ? "{NULL}" : oneToken(info.globalSize, "{NULL}");
    e->localSize = info.localSize.empty() ? "{NULL}" : oneToken(info.localSize, "{NULL}");
    return *e;
}

void OclTraceBuilder::Impl::computeOffsets() {
    std::unordered_map<uint64_t, DeviceClockFit> fits;
    for (const EnqueueSample& s : samples) {
        const auto it = deviceTimes.find(s.enqueueId);
        if (it == deviceTimes.end()) continue;
        uint64_t t[4] = {it->second.queued, it->second.submit, it->second.start, it->second.end};
        if (!normalizeDeviceTimes(t)) continue;
        const auto* queue = objects.find(ObjectType::Queue, s.queue, s.apiStart);
        fits[queue != nullptr ? queue->info.device : 0].add(s.apiStart, s.apiEnd, t[0]);
    }
    for (const auto& [device, fit] : fits) deviceOffsets[device] = fit.offset();
    samples.clear();
    samples.shrink_to_fit();
}

// Keeps the maxApiCalls earliest lines of the process: a bounded max-heap of line keys, so
// the memory is that of the kept lines, not of all lines. A thread in time order keeps its first
// lines: its reading stops at the first line the heap refuses, and a thread alone needs no heap.
bool OclTraceBuilder::Impl::applyLimit(std::string& error) {
    uint64_t total = 0;
    size_t withLines = 0;
    for (ThreadEntry& t : threads) {
        total += t.lines;
        withLines += t.lines > 0 ? 1 : 0;
        t.kept = t.lines;
    }
    if (total <= options.maxApiCalls) return true;
    stats.droppedLines = total - options.maxApiCalls;
    for (ThreadEntry& t : threads) {
        if (withLines == 1 && t.lines > 0 && t.inTimeOrder) {
            t.kept = options.maxApiCalls;
            return true;
        }
    }
    std::priority_queue<LineKey> heap;
    for (size_t i = 0; i < threads.size() && options.maxApiCalls > 0; ++i) {
        const bool inTimeOrder = threads[i].inTimeOrder;
        const auto visit = [&](const Line& line, uint64_t index) {
            const LineKey key{line.start, i, index};
            if (heap.size() < options.maxApiCalls) {
                heap.push(key);
            } else if (key < heap.top()) {
                heap.pop();
                heap.push(key);
            } else {
                return !inTimeOrder;  // in time order, every later line is refused too
            }
            return true;
        };
        if (!replayLines(threads[i], visit, error)) return false;
    }
    for (ThreadEntry& t : threads) t.kept = 0;
    for (; !heap.empty(); heap.pop())
        threads[heap.top().thread].keptLines.push_back(heap.top().line);
    for (ThreadEntry& t : threads) {
        t.kept = t.keptLines.size();
        if (t.inTimeOrder) {
            std::vector<uint64_t>().swap(t.keptLines);  // the first `kept` lines
        } else {
            std::sort(t.keptLines.begin(), t.keptLines.end());
        }
    }
    return true;
}

bool OclTraceBuilder::Impl::writeSection(
    SectionKind kind, const TextSink& sink, std::string& error,
    const std::function<void(const Line&, std::string&)>& format) {
    TextBatcher out(sink);
    out.text().append(sectionLine(kind));
    for (ThreadEntry& thread : threads) {
        if (thread.kept == 0) continue;
        appendThreadHeader(out.text(), thread.tid, thread.kept);
        uint64_t written = 0;
        const std::vector<uint64_t>& kept = thread.keptLines;  // empty: the first lines
        const auto visit = [&](const Line& line, uint64_t index) {
            if (!kept.empty() && (written >= kept.size() || kept[written] != index)) {
                return written < kept.size();
            }
            if (!out.ok()) return false;
            format(line, out.text());
            ++written;
            out.maybeFlush();
            return written < thread.kept;
        };
        if (!replayLines(thread, visit, error)) return false;
        if (written != thread.kept && out.ok()) {
            error = "the records of thread " + std::to_string(thread.tid) +
                    " changed while the trace was written";
            return false;
        }
    }
    if (!out.flush()) {
        error = "cannot write the " + std::string(sectionName(kind)) + " section";
        return false;
    }
    return true;
}

void OclTraceBuilder::Impl::apiLine(const Line& line, std::string& out) {
    if (const std::string* kept = memo ? apiLines.find(*line.call, line.count) : nullptr) {
        out.append(*kept).push_back('\n');
        return;
    }
    std::string error;
    const size_t at = out.size();
    if (formatter.apiLine(*line.call, line.count, out, error)) {
        if (std::string* kept = memo ? apiLines.keep(*line.call, line.count) : nullptr) {
            kept->assign(out, at);
        }
    } else {
        // Keep the line so the two sections stay paired; say why it has no parameters.
        out.resize(at);
        ++stats.unformattedLines;
        for (char& c : error) {
            if (c == '\n' || c == '\r' || c == '*') c = ' ';
        }
        out.append(std::to_string(static_cast<int64_t>(line.call->head.ret)));
        out.append(" = ").append(line.name).append(" ( /*cannot format: ").append(error);
        out.append("*/ )");
    }
    out.push_back('\n');
}

void OclTraceBuilder::Impl::timestampLine(const Line& line, std::string& out) {
    OclTimestampLine& t = scratch;
    t.apiType = formatter.apiType(*line.call);
    if (t.apiName != line.name) t.apiName.assign(line.name);  // mostly the line before's
    t.start = line.start;
    t.end = line.end;
    t.hasDevice = formatter.isSuccessfulEnqueue(*line.call);
    t.tail = OclTimestampLine::Tail::None;
    if (t.hasDevice) fillEnqueue(line, t);
    appendOclTimestampLine(out, t, timeDigits);
}

void OclTraceBuilder::Impl::fillObjects(const EnqueueOfCall& e, uint64_t time, OclTimestampLine& t,
                                        uint64_t& device) {
    const uint64_t queue = e.info.queue;
    const auto* q = objects.find(ObjectType::Queue, queue, time);
    const uint64_t context = q != nullptr ? q->info.parent : 0;
    device = q != nullptr ? q->info.device : 0;
    const auto* c = objects.find(ObjectType::Context, context, time);
    const auto* d = objects.find(ObjectType::Device, device, time);
    if (q == nullptr || c == nullptr || d == nullptr) ++stats.unknownObjects;
    t.queueId = q != nullptr ? q->info.id : 0;
    t.queueHandle = e.queueHandle;
    t.contextId = c != nullptr ? c->info.id : 0;
    if (!named.hasObjects || context != named.context) {
        t.contextHandle = formatter.handleString(context);
    }
    if (!named.hasObjects || d != named.device) {
        if (d != nullptr && (d->info.properties & kClDeviceTypeCpu) != 0) {
            t.deviceName = "CPU_Device";
        } else {
            t.deviceName = oneToken(d != nullptr ? d->name : std::string(), kUnknownDevice);
        }
    }
    named.hasObjects = true;
    named.context = context;
    named.device = d;
}

void OclTraceBuilder::Impl::fillEnqueue(const Line& line, OclTimestampLine& t) {
    const ApiCallView& call = *line.call;
    ++stats.enqueueLines;
    const EnqueueOfCall& e = enqueueOf(line);
    const OclEnqueueInfo& info = e.info;
    const auto times =
        call.head.enqueueId != 0 ? deviceTimes.find(call.head.enqueueId) : deviceTimes.end();
    const bool known = times != deviceTimes.end();
    t.commandType =
        known && times->second.commandType != 0 ? times->second.commandType : e.apiCommandType;
    if (!named.hasCommand || t.commandType != named.commandType) {
        t.commandName = formatter.commandTypeName(t.commandType);
    }
    named.hasCommand = true;
    named.commandType = t.commandType;
    uint64_t device = 0;
    fillObjects(e, line.start, t, device);

    uint64_t dev[4] = {0, 0, 0, 0};
    uint64_t host[4] = {0, 0, 0, 0};
    if (known) {
        const DeviceTimesPayload& p = times->second;
        dev[0] = p.queued, dev[1] = p.submit, dev[2] = p.start, dev[3] = p.end;
    }
    if (known && normalizeDeviceTimes(dev)) {
        const auto offset = deviceOffsets.find(device);
        const int64_t shift = offset != deviceOffsets.end() ? offset->second : 0;
        if (convertDeviceTimes(dev, shift, line.start, line.end, host)) ++stats.clampedDeviceTimes;
    } else {
        ++stats.missingDeviceTimes;  // zeros, as the original wrote for lost events
    }
    t.queued = host[0], t.submit = host[1], t.deviceStart = host[2], t.deviceEnd = host[3];

    if (t.commandType == kClCommandNdrangeKernel || t.commandType == kClCommandTask) {
        t.tail = OclTimestampLine::Tail::Kernel;
        t.kernelHandle = e.kernelHandle;
        const auto* kernel = objects.find(ObjectType::Kernel, info.kernel, line.start);
        if (!named.hasKernel || kernel != named.kernel) {
            t.kernelName =
                oneToken(kernel != nullptr ? kernel->name : std::string(), kUnknownKernel);
        }
        named.hasKernel = true;
        named.kernel = kernel;
        t.globalSize = e.globalSize;
        t.localSize = e.localSize;
    } else if (t.commandType == kClCommandNativeKernel) {
        t.tail = OclTimestampLine::Tail::NativeKernel;
        t.kernelHandle = e.kernelHandle;
    } else if (oclCommandHasDataSize(t.commandType) && info.hasDataSize) {
        t.tail = OclTimestampLine::Tail::DataSize;
        t.dataSize = info.dataSize;
    }
}

OclTraceBuilder::OclTraceBuilder(const OclFormatter& formatter, OclTraceOptions options)
    : m_impl(std::make_unique<Impl>(formatter, options)) {}

OclTraceBuilder::~OclTraceBuilder() = default;

void OclTraceBuilder::addThread(uint64_t tid, RecordReplay replay) {
    ThreadEntry entry;
    entry.tid = tid;
    entry.replay = std::move(replay);
    m_impl->threads.push_back(std::move(entry));
}

bool OclTraceBuilder::prepare(std::string& error) {
    Impl& m = *m_impl;
    // Everything prepare() derives starts afresh, so a second call gives the same result.
    m.stats = OclTraceStats{};
    m.objects = ObjectTable{};
    m.deviceTimes.clear();
    m.deviceOffsets.clear();
    m.samples.clear();
    for (ThreadEntry& thread : m.threads) thread.keptLines.clear();
    for (ThreadEntry& thread : m.threads) {
        thread.lines = 0;
        thread.inTimeOrder = true;
        thread.lastStart = 0;
        const auto other = [&m](const RecordView& r) {
            m.collectObject(r);
            return true;
        };
        const auto onLine = [&](const Line& line, uint64_t) {
            ++thread.lines;
            thread.inTimeOrder = thread.inTimeOrder && line.start >= thread.lastStart;
            thread.lastStart = line.start;
            m.noteEnqueue(line);
            return true;
        };
        if (!m.replayLines(thread, other, onLine, true, error)) return false;
    }
    m.objects.finish();
    m.computeOffsets();
    if (!m.applyLimit(error)) return false;
    for (const ThreadEntry& thread : m.threads) {
        m.stats.lines += thread.kept;
        m.stats.threads += thread.kept > 0 ? 1 : 0;
    }
    return true;
}

bool OclTraceBuilder::hasLines() const { return m_impl->stats.lines > 0; }

bool OclTraceBuilder::writeApiSection(const TextSink& sink, std::string& error) {
    Impl& m = *m_impl;
    m.stats.unformattedLines = 0;
    return m.writeSection(SectionKind::OclApiTrace, sink, error,
                          [&m](const Line& line, std::string& out) { m.apiLine(line, out); });
}

bool OclTraceBuilder::writeTimestampSection(const TextSink& sink, std::string& error) {
    Impl& m = *m_impl;
    m.stats.enqueueLines = m.stats.missingDeviceTimes = 0;
    m.stats.clampedDeviceTimes = m.stats.unknownObjects = 0;
    m.named = NamedLast{};  // what this section writes is made by its own lines
    return m.writeSection(SectionKind::OclTimestamp, sink, error,
                          [&m](const Line& line, std::string& out) { m.timestampLine(line, out); });
}

bool OclTraceBuilder::writeStackSection(const TextSink& sink, CallSiteWriter& sites,
                                        std::string& error) {
    return m_impl->writeSection(SectionKind::OclStackTrace, sink, error,
                                [&sites](const Line& line, std::string& out) {
                                    sites.appendLine(out, line.name, *line.call);
                                });
}

const OclTraceStats& OclTraceBuilder::stats() const { return m_impl->stats; }

std::vector<std::string> OclTraceBuilder::warnings() const {
    const OclTraceStats& s = m_impl->stats;
    const auto n = [](uint64_t v) { return std::to_string(v); };
    std::vector<std::string> out;
    if (s.droppedLines > 0) {
        out.push_back(n(s.droppedLines) + " API calls beyond the limit of " +
                      n(m_impl->options.maxApiCalls) + " per process were left out");
    }
    if (s.missingDeviceTimes > 0) {
        out.push_back(n(s.missingDeviceTimes) + " of " + n(s.enqueueLines) +
                      " enqueued commands have no device times (written as zeros)");
    }
    if (s.clampedDeviceTimes > 0) {
        out.push_back(n(s.clampedDeviceTimes) +
                      " enqueued commands had device times moved into order (queued within "
                      "the API call, queued <= submit <= start <= end)");
    }
    if (s.unknownObjects > 0) {
        out.push_back(n(s.unknownObjects) +
                      " enqueued commands name a queue, context or device the trace never saw "
                      "created");
    }
    if (s.malformedRecords > 0) {
        out.push_back(n(s.malformedRecords) + " records could not be decoded and were skipped");
    }
    if (s.unformattedLines > 0) {
        out.push_back(n(s.unformattedLines) + " API calls could not be formatted");
    }
    return out;
}

}  // namespace perfmarker::atp
