// The shared body of the libFuzzer targets of the .atp reader (scripts/fuzz.sh). A first byte
// below 8 is a selector: it picks a section line put in front of the rest (so a target keeps
// its part busy even when the input lost its own section line) and, when odd, reads the input
// as a stream (the paired sections are then kept in memory instead of read again).
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "atp/trace_parser.h"

namespace perfmarker::atp::fuzz {

// Touches every field of every record so that the sanitizers see each view read.
class Consumer final : public TraceListener {
public:
    size_t bytes = 0;
    void onHeader(std::string_view k, std::string_view v, SourceLocation) override {
        bytes += k.size() + v.size();
    }
    void onOclApiCall(const OclApiCall& c) override {
        bytes += c.name.size() + c.returnValue.size() + c.comment.size() + c.params.size() +
                 c.command.commandName.size() + c.command.kernelName.size() +
                 c.command.deviceName.size() + c.command.globalSize.size() +
                 c.command.localSize.size() + c.command.kernelHandle.size();
        for (const auto p : c.params) bytes += p.size();
    }
    void onHsaApiCall(const HsaApiCall& c) override {
        bytes += c.name.size() + c.returnValue.size();
        for (const auto p : c.params) bytes += p.size();
    }
    void onHsaKernelDispatch(const HsaKernelDispatch& d) override {
        bytes += d.kernelName.size() + d.agentName.size() + d.packet.size() + d.packetId.size();
    }
    void onMarker(const MarkerEvent& m) override {
        bytes += m.marker->name.size() + m.marker->group.size();
    }
    void onStackEntry(const StackEntry& e) override {
        bytes += e.apiName.size() + e.symbol.size() + e.file.size() + e.address.size();
    }
    void onUnknownLine(std::string_view s, std::string_view t, SourceLocation) override {
        bytes += s.size() + t.size();
    }
    void onWarning(const std::string& m) override { bytes += m.size(); }
};

inline void run(const uint8_t* data, size_t size, std::initializer_list<SectionKind> kinds) {
    std::string text;
    bool asStream = false;
    if (size > 0 && data[0] < 8 && kinds.size() > 0) {
        const std::vector<SectionKind> list(kinds);
        text = sectionLine(list[data[0] % list.size()]);
        asStream = (data[0] & 1) != 0;
        ++data;
        --size;
    }
    text.append(reinterpret_cast<const char*>(data), size);
    Consumer consumer;
    TraceParser parser;
    parser.addListener(consumer);
    std::string error;
    if (asStream) {
        std::istringstream in(text);
        parser.parseStream(in, "fuzz", error);
    } else {
        parser.parseBuffer(text, "fuzz", error);
    }
}

}  // namespace perfmarker::atp::fuzz
