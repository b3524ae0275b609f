// The text of HSA API-trace lines (docs/format.md#hsa-api-trace) from the agent's ApiCall
// records, with the rules of the catalogue (api/hsa_api.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>

#include "api/hsa_api.h"
#include "record/api_record.h"

namespace perfmarker::atp {

// Field offsets of hsa_queue_t as the agent captures it (checked against the ROCm header by
// the agent): type u32 @0, features u32 @4, base_address @8, doorbell_signal @16, size u32
// @24, reserved1 u32 @28, id u64 @32.
inline constexpr size_t kHsaQueueBytes = 40;
std::string formatHsaQueue(std::string_view bytes);
void appendHsaQueue(std::string& out, std::string_view bytes);

// Agent handle -> name, for `{handle=...,name=...}`.
using HsaAgentNames = std::unordered_map<uint64_t, std::string>;

// The API-trace line of one call, without its line end. False with `error` when the record's
// slot is unknown.
bool formatHsaApiLine(const record::ApiCallView& call, const HsaAgentNames& agents,
                      std::string& line, std::string& error);
// The same line appended to `out` (nothing appended on failure): the merge writes it in place.
bool appendHsaApiLine(const record::ApiCallView& call, const HsaAgentNames& agents,
                      std::string& out, std::string& error);

// The name the HSA sections give a call: its API's, else the name of its HSA_API_Type id, else
// `UNKNOWN` (a slot and an id the catalogue does not know: a newer runtime's table, a damaged
// record). Never empty, so that every line names its call (docs/format.md#hsa-api-trace).
std::string_view hsaCallName(const record::ApiCallView& call);

// The HTML-escaped token of docs/format.md#conventions (space, comma, &, #, <, >, @).
std::string hsaEscapeName(std::string_view raw);
void appendHsaEscapedName(std::string& out, std::string_view raw);

// "0x" + hex, lower case, as a pointer streams on Linux; "NULL" for 0.
std::string hsaPointer(uint64_t value);

}  // namespace perfmarker::atp
