// Reads back what the agent recorded: every `.ocl.frag` fragment of a directory, decoded with
// the record contract (record/api_record.h) and formatted with the .atp formatter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "record/api_record.h"

namespace perfmarker::test {

struct RecordedCall {
    uint64_t tid = 0;
    uint64_t time = 0;
    std::string payload;  // the ApiCall payload (str0)
    std::string name;     // API name of its slot
    std::string line;     // the formatted API-trace line (empty when formatting failed)
    std::string formatError;
    record::ApiCallView view() const;
};

struct RecordedObject {
    record::ObjectInfoPayload info{};
    std::string name;
};

struct AgentTrace {
    std::vector<RecordedCall> calls;  // per fragment in record order, fragments by name
    std::vector<record::DeviceTimesPayload> deviceTimes;
    std::vector<RecordedObject> objects;
    size_t fragments = 0;
    std::string error;  // a fragment that could not be read
};

AgentTrace readAgentTrace(const std::string& directory);

}  // namespace perfmarker::test
