#include "typed_trace.h"

#include "atp/read/trace_parser.h"

namespace perfmarker::test {
namespace {

class Collector final : public atp::TraceListener {
public:
    explicit Collector(TypedTrace& out) : m_out(out) {}

    void onHsaApiCall(const atp::HsaApiCall& call) override {
        TypedApiCall c;
        c.tid = call.tid;
        c.apiType = call.apiType;
        c.name = call.name;
        c.returnValue = call.returnValue;
        c.params.assign(call.params.begin(), call.params.end());
        c.start = call.start;
        c.end = call.end;
        c.hasTransferTimes = call.hasTransferTimes;
        c.transferStart = call.transferStart;
        c.transferEnd = call.transferEnd;
        m_out.calls.push_back(std::move(c));
    }

    void onHsaKernelDispatch(const atp::HsaKernelDispatch& d) override {
        m_out.dispatches.push_back({d.kernelName, std::string(d.kernelHandle), d.start, d.end,
                                    d.agentName, std::string(d.agentHandle), d.queueIndex,
                                    d.agentIndex, std::string(d.packetType),
                                    std::string(d.packetId)});
    }

    void onMarker(const atp::MarkerEvent& m) override {
        m_out.markers.push_back({m.tid, m.marker->name, m.marker->timestampNs});
    }

    void onWarning(const std::string& message) override { m_out.warnings.push_back(message); }

private:
    TypedTrace& m_out;
};

}  // namespace

std::vector<TypedApiCall> TypedTrace::callsNamed(const std::string& name) const {
    std::vector<TypedApiCall> out;
    for (const auto& c : calls) {
        if (c.name == name) out.push_back(c);
    }
    return out;
}

TypedTrace readTyped(const std::string& path) {
    TypedTrace trace;
    Collector collector(trace);
    atp::TraceParser parser;
    parser.addListener(collector);
    trace.parsed = parser.parseFile(path, trace.error);
    return trace;
}

TypedTrace readTypedText(const std::string& text) {
    TypedTrace trace;
    Collector collector(trace);
    atp::TraceParser parser;
    parser.addListener(collector);
    trace.parsed = parser.parseBuffer(text, "t.atp", trace.error);
    return trace;
}

std::string paramValue(const TypedApiCall& call, const std::string& name) {
    const std::string prefix = name + "=";
    for (const auto& p : call.params) {
        if (p.rfind(prefix, 0) == 0) return p.substr(prefix.size());
    }
    return "<absent>";
}

}  // namespace perfmarker::test
