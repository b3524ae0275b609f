// A listener that keeps copies of every record the streaming reader announces, for the tests
// of src/atp/read/trace_parser.h.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "atp/read/trace_parser.h"

namespace perfmarker::atp::testing {

struct OwnedOclCall {
    OclApiCall call;
    std::string name, returnValue, comment, commandName, queueHandle, contextHandle, deviceName,
        kernelHandle, globalSize, localSize;
    std::vector<std::string> params;
};

struct OwnedHsaCall {
    HsaApiCall call;
    std::string name, returnValue;
    std::vector<std::string> params;
};

struct OwnedDispatch {
    HsaKernelDispatch d;
    std::string kernelHandle, agentHandle, packetType, packetId, packet, agentIndexText;
};

struct OwnedMarker {
    uint64_t tid = 0;
    Marker marker;
    uint64_t line = 0;
};

struct OwnedStack {
    StackEntry e;
    std::string apiName, address;
};

class Recorder : public TraceListener {
public:
    std::vector<std::pair<std::string, std::string>> header;
    std::vector<std::pair<SectionKind, std::string>> sections;
    std::vector<OwnedOclCall> ocl;
    std::vector<OwnedHsaCall> hsa;
    std::vector<OwnedDispatch> dispatches;
    std::vector<OwnedMarker> markers;
    std::vector<OwnedStack> stacks;
    std::vector<std::string> unknown;  // "section|text|line"
    std::vector<std::string> warnings;
    std::vector<std::string> files;  // "begin <name>" / "end <name>"
    std::string log;                 // every record as one text line, for comparisons

    void onFileBegin(std::string_view file) override { files.push_back("begin " + s(file)); }
    void onFileEnd(std::string_view file) override { files.push_back("end " + s(file)); }
    void onHeader(std::string_view key, std::string_view value, SourceLocation where) override {
        header.emplace_back(s(key), s(value));
        log += "H " + s(key) + "=" + s(value) + " @" + std::to_string(where.line) + "\n";
    }
    void onSection(SectionKind kind, std::string_view name, SourceLocation where) override {
        sections.emplace_back(kind, s(name));
        log += "S " + s(name) + " @" + std::to_string(where.line) + "\n";
    }
    void onOclApiCall(const OclApiCall& c) override {
        OwnedOclCall o{c,
                       s(c.name),
                       s(c.returnValue),
                       s(c.comment),
                       s(c.command.commandName),
                       s(c.command.queueHandle),
                       s(c.command.contextHandle),
                       s(c.command.deviceName),
                       s(c.command.kernelHandle),
                       s(c.command.globalSize),
                       s(c.command.localSize),
                       {}};
        for (auto p : c.params) o.params.push_back(s(p));
        ocl.push_back(o);
        std::ostringstream out;
        out << "O " << c.tid << ' ' << c.index << ' ' << c.apiType << ' ' << c.name << ' '
            << c.returnValue << " p" << c.params.size() << ' ' << c.consecutiveCalls << ' '
            << c.start << ' ' << c.end << ' ' << c.hasCommand;
        if (c.hasCommand) {
            const OclCommand& k = c.command;
            out << ' ' << k.commandType << ' ' << k.commandName << ' ' << k.queued << ' '
                << k.submit << ' ' << k.start << ' ' << k.end << ' ' << k.queueId << ' '
                << k.queueHandle << ' ' << k.contextId << ' ' << k.contextHandle << ' '
                << k.deviceName << ' ' << k.isKernel << ' ' << k.kernelHandle << ' ' << k.kernelName
                << ' ' << k.globalSize << ' ' << k.localSize << ' ' << k.hasDataSize << ' '
                << k.dataSize;
        }
        out << " @" << c.apiLine.line << '/' << c.timestampLine.line << '\n';
        log += out.str();
    }
    void onHsaApiCall(const HsaApiCall& c) override {
        OwnedHsaCall o{c, s(c.name), s(c.returnValue), {}};
        for (auto p : c.params) o.params.push_back(s(p));
        hsa.push_back(o);
        log += "A " + std::to_string(c.tid) + " " + s(c.name) + " " + std::to_string(c.start) +
               " " + std::to_string(c.transferEnd) + " @" + std::to_string(c.apiLine.line) + "/" +
               std::to_string(c.timestampLine.line) + "\n";
    }
    void onHsaKernelDispatch(const HsaKernelDispatch& d) override {
        dispatches.push_back(OwnedDispatch{d, s(d.kernelHandle), s(d.agentHandle), s(d.packetType),
                                           s(d.packetId), s(d.packet), s(d.agentIndexText)});
        log += "K " + d.kernelName + " " + std::to_string(d.start) + " @" +
               std::to_string(d.line.line) + "\n";
    }
    void onMarker(const MarkerEvent& m) override {
        markers.push_back(OwnedMarker{m.tid, *m.marker, m.line.line});
        log += "M " + std::to_string(m.tid) + " " + m.marker->name + " " +
               std::to_string(m.marker->timestampNs) + " @" + std::to_string(m.line.line) + "\n";
    }
    void onStackEntry(const StackEntry& e) override {
        stacks.push_back(OwnedStack{e, s(e.apiName), s(e.address)});
        log += "T " + s(e.apiName) + " " + e.symbol + " " + std::to_string(e.sourceLine) + " " +
               e.file + " " + s(e.address) + " @" + std::to_string(e.line.line) + "\n";
    }
    void onUnknownLine(std::string_view section, std::string_view text,
                       SourceLocation where) override {
        unknown.push_back(s(section) + "|" + s(text) + "|" + std::to_string(where.line));
        log += "U " + unknown.back() + "\n";
    }
    void onWarning(const std::string& message) override {
        warnings.push_back(message);
        log += "W " + message + "\n";
    }

private:
    static std::string s(std::string_view v) { return std::string(v); }
};

inline std::string fixturePath(const std::string& name) {
    return std::string(PERFMARKER_FIXTURES_DIR) + "/atp/" + name;
}

inline std::string readFixture(const std::string& name) {
    std::ifstream in(fixturePath(name), std::ios::binary);
    std::ostringstream out;
    out << in.rdbuf();
    return out.str();
}

// What one parse gave: the result, the error and every record.
struct Outcome {
    bool ok = false;
    std::string error;
    Recorder r;
};

// Parses `text` as a buffer, and checks that the same text as a stream (the API section is
// then kept in memory) and with the reader's second thread on every API section (read_ahead.h)
// end the same way with the same records.
inline Outcome parse(const std::string& text) {
    Outcome o;
    TraceParser parser;
    parser.addListener(o.r);
    o.ok = parser.parseBuffer(text, "t.atp", o.error);
    Recorder streamed;
    TraceParser again;
    again.addListener(streamed);
    std::istringstream in(text);
    std::string error;
    EXPECT_EQ(again.parseStream(in, "t.atp", error), o.ok);
    EXPECT_EQ(error, o.error);
    EXPECT_EQ(streamed.log, o.r.log);
    Recorder ahead;
    TraceParser threaded;
    threaded.setReadAhead(0);
    threaded.addListener(ahead);
    EXPECT_EQ(threaded.parseBuffer(text, "t.atp", error), o.ok);
    EXPECT_EQ(error, o.error);
    EXPECT_EQ(ahead.log, o.r.log);
    return o;
}

// Section lines the tests build traces with.
inline const std::string kApi = "=====ocl API Trace Output=====\n";
inline const std::string kTs = "=====ocl Timestamp Output=====\n";

}  // namespace perfmarker::atp::testing
