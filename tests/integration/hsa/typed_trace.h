// The agent's .atp read a second time, through the streaming reader the tools use
// (atp::TraceParser): owned copies of the typed records, so tests can assert what
// `perfmarker summary`, `export` and `report` will see, not only the text.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace perfmarker::test {

struct TypedApiCall {
    uint64_t tid = 0;
    int apiType = 0;
    std::string name;
    std::string returnValue;
    std::vector<std::string> params;  // "name=value"
    uint64_t start = 0;
    uint64_t end = 0;
    bool hasTransferTimes = false;
    uint64_t transferStart = 0;
    uint64_t transferEnd = 0;
};

struct TypedDispatch {
    std::string kernelName;  // unescaped
    std::string kernelHandle;
    uint64_t start = 0;
    uint64_t end = 0;
    std::string agentName;  // unescaped
    std::string agentHandle;
    uint64_t queueIndex = 0;
    uint64_t agentIndex = 0;
    std::string packetType;
    std::string packetId;
};

struct TypedMarker {
    uint64_t tid = 0;
    std::string name;  // "" for end markers
    uint64_t timestampNs = 0;
};

struct TypedTrace {
    bool parsed = false;
    std::string error;                  // the parser's error when parsed is false
    std::vector<std::string> warnings;  // lenient problems the parser reported
    std::vector<TypedApiCall> calls;
    std::vector<TypedDispatch> dispatches;
    std::vector<TypedMarker> markers;

    // The calls named `name`, in file order.
    std::vector<TypedApiCall> callsNamed(const std::string& name) const;
};

// Reads `path` with a TraceParser and the standard parts.
TypedTrace readTyped(const std::string& path);
// The same for text in memory, named "t.atp" in messages.
TypedTrace readTypedText(const std::string& text);

// The value of the parameter `name` ("name=value") of a call, or "<absent>".
std::string paramValue(const TypedApiCall& call, const std::string& name);

}  // namespace perfmarker::test
