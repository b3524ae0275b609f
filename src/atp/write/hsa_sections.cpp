// The HSA sections (see hsa_trace.h). Like the OpenCL builder, it reads each thread's records
// several times instead of holding them: once to learn objects, counts and device times, then
// once per section.
#include "atp/write/hsa_sections.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <unordered_map>

#include "api/hsa_api.h"
#include "atp/format/atp_header.h"
#include "atp/format/decimal.h"
#include "atp/format/perfmarker_section.h"
#include "atp/write/api_line_memo.h"
#include "atp/write/hsa_api_line.h"

namespace perfmarker::atp {
namespace {

using record::RecordKind;
using record::RecordView;

struct Thread {
    uint64_t tid = 0;
    RecordReplay replay;
    uint64_t lines = 0;
};

// `text` in a field of `width`, then one space when it fills the width, so that it stays a token
// of its own (docs/format.md#conventions).
void pad(std::string& out, const std::string& text, size_t width) {
    out += text;
    out.append(text.size() < width ? width - text.size() : 1, ' ');
}

std::string upperHex(uint64_t v) {
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%llX", static_cast<unsigned long long>(v));
    return buf;
}

template <typename T>
bool payloadAs(std::string_view bytes, T& out) {
    if (bytes.size() < sizeof(T)) return false;
    std::memcpy(&out, bytes.data(), sizeof(T));
    return true;
}

uint32_t deviceRecordType(std::string_view bytes) {
    uint32_t type = 0;
    if (bytes.size() >= sizeof type) std::memcpy(&type, bytes.data(), sizeof type);
    return type;
}

// The packet contents of field 11 (docs/format.md#kernel-dispatches), from the AQL kernel dispatch
// packet layout.
std::string packetContents(const unsigned char* p) {
    const auto u16 = [p](size_t at) { uint16_t v; std::memcpy(&v, p + at, 2); return std::to_string(v); };
    const auto u32 = [p](size_t at) { uint32_t v; std::memcpy(&v, p + at, 4); return std::to_string(v); };
    const auto u64v = [p](size_t at) { uint64_t v; std::memcpy(&v, p + at, 8); return v; };
    return "{" + u16(0) + "," + u16(2) + "," + u16(4) + "," + u16(6) + "," + u16(8) + "," +
           u16(10) + "," + u32(12) + "," + u32(16) + "," + u32(20) + "," + u32(24) + "," +
           u32(28) + "," + std::to_string(u64v(32)) + "," + hsaPointer(u64v(40)) + "," +
           std::to_string(u64v(48)) + ",{" + std::to_string(u64v(56)) + "}}";
}

}  // namespace

// ---- clock ---------------------------------------------------------------------------------

void HsaClock::add(uint64_t systemTime, uint64_t frequency, uint64_t hostBefore,
                   uint64_t hostAfter) {
    if (frequency == 0 || hostAfter < hostBefore) return;
    const uint64_t host = hostBefore + (hostAfter - hostBefore) / 2;
    if (m_count == 0) {
        m_sys0 = systemTime, m_host0 = host, m_freq = frequency;
    } else if (systemTime > m_sys0 && host > m_host0) {
        m_sys1 = systemTime, m_host1 = host;
    }
    ++m_count;
}

uint64_t HsaClock::toHost(uint64_t systemTime) const {
    if (m_count == 0) return systemTime;
    const __int128 delta = static_cast<__int128>(systemTime) - m_sys0;
    __int128 host;
    if (m_sys1 > m_sys0) {  // two points: the slope also absorbs the clocks' drift
        host = m_host0 + delta * static_cast<__int128>(m_host1 - m_host0) / (m_sys1 - m_sys0);
    } else {
        host = m_host0 + delta * 1000000000 / static_cast<__int128>(m_freq);
    }
    return host < 0 ? 0 : static_cast<uint64_t>(host);
}

std::string hsaKernelDisplayName(const std::string& symbol, bool demangle) {
    if (symbol.empty()) return "<UnknownKernelName>";
    std::string name = symbol;
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".kd") == 0) name.resize(name.size() - 3);
    if (demangle) {
        const std::string mangled = name[0] == 'Z' ? "_" + name : name;
        int status = 0;
        char* out = abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status);
        if (status == 0 && out != nullptr) name = out;
        std::free(out);
    }
    return hsaEscapeName(name);
}

// ---- builder -------------------------------------------------------------------------------

struct HsaTraceBuilder::Impl {
    HsaTraceOptions options;
    std::vector<Thread> threads;
    HsaTraceStats stats;
    HsaAgentNames agents;
    std::unordered_map<uint64_t, uint32_t> gpuIndex;
    std::unordered_map<uint64_t, std::string> kernels;
    std::unordered_map<uint64_t, record::HsaCopyPayload> copies;
    std::vector<record::HsaDispatchPayload> dispatches;
    HsaClock clock;
    bool cut = false;
    uint64_t cutoff = 0;          // calls that start after this are dropped
    uint64_t tiesAllowed = 0;     // calls starting exactly at the cutoff that are kept
    uint64_t lastKeptEnd = 0;
    uint64_t tiesSeen = 0;        // per pass

    void collect(const RecordView& r, std::vector<uint64_t>& starts, uint64_t& calls);
    bool keep(uint64_t start) {
        if (!cut || start < cutoff) return true;
        return start == cutoff && tiesSeen++ < tiesAllowed;
    }
    bool forEachCall(Thread& t, std::string& error,
                     const std::function<void(const record::ApiCallView&, uint64_t)>& f);
    // One pass of a per-thread section: its section line, then each thread's header and the
    // lines `append` adds for its kept calls, handed to `sink` in pieces (text_batcher.h).
    using AppendLine = std::function<void(const record::ApiCallView&, uint64_t, std::string&)>;
    bool writeSection(SectionKind kind, const TextSink& sink, std::string& error,
                      const AppendLine& append);
    // The call's timestamp line, appended to `text` in place (without its line end).
    void appendTimestampLine(std::string& text, const record::ApiCallView& call, uint64_t start);
};

void HsaTraceBuilder::Impl::collect(const RecordView& r, std::vector<uint64_t>& starts,
                                    uint64_t& calls) {
    if (r.kind == RecordKind::ApiCall) {
        record::ApiCallView call;
        if (!record::decodeApiCall(r.str0, call)) {
            ++stats.malformedRecords;
            return;
        }
        ++calls;
        starts.push_back(r.time);
    } else if (r.kind == RecordKind::ObjectInfo) {
        record::ObjectInfoPayload o{};
        if (!payloadAs(r.str0, o)) return void(++stats.malformedRecords);
        if (o.type == static_cast<uint32_t>(record::HsaObjectType::Agent)) {
            agents[o.handle] = std::string(r.str1);
            gpuIndex[o.handle] = o.id;
        } else if (o.type == static_cast<uint32_t>(record::HsaObjectType::Kernel)) {
            kernels[o.handle] = std::string(r.str1);
        }
    } else if (r.kind == RecordKind::DeviceTimes) {
        const uint32_t type = deviceRecordType(r.str0);
        record::HsaDispatchPayload d{};
        record::HsaCopyPayload c{};
        record::HsaCalibrationPayload k{};
        if (type == static_cast<uint32_t>(record::HsaDeviceRecord::Dispatch) && payloadAs(r.str0, d)) {
            dispatches.push_back(d);
        } else if (type == static_cast<uint32_t>(record::HsaDeviceRecord::Copy) && payloadAs(r.str0, c)) {
            copies[c.enqueueId] = c;
        } else if (type == static_cast<uint32_t>(record::HsaDeviceRecord::Calibration) &&
                   payloadAs(r.str0, k)) {
            clock.add(k.systemTime, k.frequency, k.hostBefore, k.hostAfter);
        } else {
            ++stats.malformedRecords;
        }
    }
}

bool HsaTraceBuilder::Impl::forEachCall(
    Thread& t, std::string& error,
    const std::function<void(const record::ApiCallView&, uint64_t)>& f) {
    return t.replay(
        [&](const RecordView& r) {
            record::ApiCallView call;
            if (r.kind != RecordKind::ApiCall || !record::decodeApiCall(r.str0, call)) return true;
            if (keep(r.time)) f(call, r.time);
            return true;
        },
        error);
}

bool HsaTraceBuilder::Impl::writeSection(SectionKind kind, const TextSink& sink, std::string& error,
                                         const AppendLine& append) {
    TextBatcher out(sink);
    out.text() = sectionLine(kind);
    tiesSeen = 0;
    for (Thread& t : threads) {
        if (t.lines == 0) continue;
        appendThreadHeader(out.text(), t.tid, t.lines);
        const bool ok = forEachCall(t, error, [&](const record::ApiCallView& c, uint64_t start) {
            append(c, start, out.text());
            out.maybeFlush();
        });
        if (!ok) return false;
    }
    return out.flush();
}

void HsaTraceBuilder::Impl::appendTimestampLine(std::string& text, const record::ApiCallView& call,
                                                uint64_t start) {
    // Each field is padded to its width when the next one starts: the last one is not, as the
    // line ends without trailing spaces. A field that fills its width gets one space, so that it
    // stays a token of its own (docs/format.md#conventions).
    size_t fieldStart = text.size();
    size_t width = 0;
    const auto nextField = [&](size_t nextWidth) {
        const size_t used = text.size() - fieldStart;
        if (used < width) {
            text.append(width - used, ' ');
        } else if (width > 0) {
            text += ' ';
        }
        fieldStart = text.size();
        width = nextWidth;
    };
    nextField(5);
    appendSignedDecimal(text, static_cast<int32_t>(call.head.apiId));
    nextField(45);
    text += hsaCallName(call);
    nextField(21);
    appendDecimal(text, start);
    nextField(21);
    appendDecimal(text, call.head.endTime);
    if (call.head.enqueueId != 0) {
        const auto it = copies.find(call.head.enqueueId);
        if (it != copies.end() && it->second.status >= 0) {
            nextField(21);
            appendDecimal(text, clock.toHost(it->second.start));
            nextField(21);
            appendDecimal(text, clock.toHost(it->second.end));
        }
    }
}

HsaTraceBuilder::HsaTraceBuilder(HsaTraceOptions options) : m_impl(std::make_unique<Impl>()) {
    m_impl->options = options;
}

HsaTraceBuilder::~HsaTraceBuilder() = default;

void HsaTraceBuilder::addThread(uint64_t tid, RecordReplay replay) {
    m_impl->threads.push_back(Thread{tid, std::move(replay), 0});
}

bool HsaTraceBuilder::prepare(std::string& error) {
    Impl& m = *m_impl;
    std::vector<uint64_t> starts;
    for (Thread& t : m.threads) {
        const auto collect = [&](const RecordView& r) {
            m.collect(r, starts, t.lines);
            return true;
        };
        if (!t.replay(collect, error)) return false;
        m.stats.apiCalls += t.lines;
    }
    if (starts.size() > m.options.maxApiCalls) {
        const size_t keepCount = static_cast<size_t>(m.options.maxApiCalls);
        std::vector<uint64_t> sorted = starts;
        std::sort(sorted.begin(), sorted.end());
        m.cut = true;
        m.cutoff = keepCount == 0 ? 0 : sorted[keepCount - 1];
        m.tiesAllowed = keepCount == 0 ? 0
                                       : keepCount - static_cast<uint64_t>(std::lower_bound(
                                             sorted.begin(), sorted.end(), m.cutoff) - sorted.begin());
        m.stats.droppedLines = starts.size() - keepCount;
        m.tiesSeen = 0;
        for (Thread& t : m.threads) {
            t.lines = 0;
            if (!m.forEachCall(t, error, [&](const record::ApiCallView& c, uint64_t) {
                    ++t.lines;
                    m.lastKeptEnd = std::max(m.lastKeptEnd, c.head.endTime);
                })) {
                return false;
            }
        }
        const auto late = [&](const record::HsaDispatchPayload& d) {
            return m.clock.toHost(d.start) > m.lastKeptEnd;
        };
        const size_t before = m.dispatches.size();
        m.dispatches.erase(std::remove_if(m.dispatches.begin(), m.dispatches.end(), late),
                           m.dispatches.end());
        m.stats.droppedDispatches = before - m.dispatches.size();
    }
    for (const Thread& t : m.threads) {
        m.stats.lines += t.lines;
        m.stats.threads += t.lines > 0;
    }
    std::stable_sort(m.dispatches.begin(), m.dispatches.end(),
                     [](const auto& a, const auto& b) { return a.start < b.start; });
    m.stats.dispatches = m.dispatches.size();
    m.stats.calibrated = m.clock.calibrated();
    return true;
}

bool HsaTraceBuilder::hasApiLines() const { return m_impl->stats.lines > 0; }

bool HsaTraceBuilder::hasDispatches() const { return !m_impl->dispatches.empty(); }

bool HsaTraceBuilder::writeApiSection(const TextSink& sink, std::string& error) {
    Impl& m = *m_impl;
    std::string why;
    // A line is of the call's payload and the agents' names, which prepare() has read.
    auto lines = std::make_unique<ApiLineMemo>();
    return m.writeSection(SectionKind::HsaApiTrace, sink, error,
                          [&](const record::ApiCallView& c, uint64_t, std::string& text) {
                              if (const std::string* kept = lines->find(c)) {
                                  text.append(*kept).push_back('\n');
                                  return;
                              }
                              const size_t at = text.size();
                              if (appendHsaApiLine(c, m.agents, text, why)) {
                                  if (std::string* kept = lines->keep(c)) kept->assign(text, at);
                              } else {
                                  // A call the catalogue does not know: its name, no
                                  // parameters (docs/format.md#hsa-api-trace).
                                  text += hsaCallName(c);
                                  text += " (  )";
                              }
                              text += '\n';
                          });
}

bool HsaTraceBuilder::writeStackSection(const TextSink& sink, CallSiteWriter& sites,
                                        std::string& error) {
    return m_impl->writeSection(SectionKind::HsaStackTrace, sink, error,
                                [&](const record::ApiCallView& c, uint64_t, std::string& text) {
                                    sites.appendLine(text, hsaCallName(c), c);
                                });
}

bool HsaTraceBuilder::writeTimestampSection(const TextSink& sink, std::string& error) {
    Impl& m = *m_impl;
    m.stats.copies = m.stats.missingCopyTimes = m.stats.failedCopies = 0;
    return m.writeSection(SectionKind::HsaTimestamp, sink, error,
                          [&](const record::ApiCallView& c, uint64_t start, std::string& text) {
                              if (c.head.enqueueId != 0) {
                                  const auto it = m.copies.find(c.head.enqueueId);
                                  if (it == m.copies.end()) ++m.stats.missingCopyTimes;
                                  else if (it->second.status < 0) ++m.stats.failedCopies;
                                  else ++m.stats.copies;
                              }
                              m.appendTimestampLine(text, c, start);
                              text += '\n';
                          });
}

bool HsaTraceBuilder::writeKernelSection(const TextSink& sink, std::string&) {
    Impl& m = *m_impl;
    TextBatcher out(sink);
    std::string& text = out.text();
    text = sectionLine(SectionKind::HsaKernelTimestamp);
    text += std::to_string(m.dispatches.size()) + "\n";
    for (const record::HsaDispatchPayload& d : m.dispatches) {
        uint64_t kernelObject = 0;
        std::memcpy(&kernelObject, d.packet + 32, sizeof kernelObject);
        const auto kernel = m.kernels.find(kernelObject);
        const std::string name = hsaKernelDisplayName(
            kernel == m.kernels.end() ? std::string() : kernel->second, m.options.demangleKernelNames);
        pad(text, name, std::max<size_t>(50, name.size() + 1));
        pad(text, upperHex(kernelObject), 21);
        pad(text, std::to_string(m.clock.toHost(d.start)), 21);
        pad(text, std::to_string(m.clock.toHost(d.end)), 21);
        const auto agent = m.agents.find(d.agent);
        pad(text, agent == m.agents.end() ? "<UnknownDeviceName>" : hsaEscapeName(agent->second), 64);
        pad(text, "{" + std::to_string(d.agent) + "}", 21);
        pad(text, std::to_string(d.queueIndex), 21);
        const auto gpu = m.gpuIndex.find(d.agent);
        pad(text, std::to_string(gpu == m.gpuIndex.end() ? 0 : gpu->second), 10);
        pad(text, "HSA_PACKET_TYPE_KERNEL_DISPATCH", 35);
        pad(text, std::to_string(d.packetId), 21);
        text += packetContents(d.packet);
        text += '\n';
        out.maybeFlush();
        if (!out.ok()) return false;
    }
    return out.flush();
}

const HsaTraceStats& HsaTraceBuilder::stats() const { return m_impl->stats; }

std::vector<std::string> HsaTraceBuilder::warnings() const {
    const HsaTraceStats& s = m_impl->stats;
    std::vector<std::string> out;
    if (s.droppedLines > 0) {
        out.push_back(std::to_string(s.droppedLines) + " HSA API calls beyond the maximum of " +
                      std::to_string(m_impl->options.maxApiCalls) + " were not written");
    }
    if (s.missingCopyTimes > 0) {
        out.push_back(std::to_string(s.missingCopyTimes) +
                      " HSA async copies never completed while traced: written without transfer times");
    }
    if (s.malformedRecords > 0) {
        out.push_back(std::to_string(s.malformedRecords) + " malformed HSA records were skipped");
    }
    if (s.dispatches > 0 && !s.calibrated) {
        out.push_back("no HSA clock calibration was recorded: kernel times are written in the "
                      "runtime's system clock, not the trace clock");
    }
    return out;
}

}  // namespace perfmarker::atp
