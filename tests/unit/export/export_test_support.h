// Helpers of the exporter tests: typed records built by hand (what the trace parser would
// announce), a scratch directory, and structural checks of a Chrome JSON trace.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "atp/read/trace_events.h"
#include "atp/read/trace_parser.h"

namespace perfmarker::test {

class ExportScratch {
public:
    ExportScratch() {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "pm-export-XXXXXX").string();
        if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        m_path = pattern;
    }
    ~ExportScratch() {
        std::error_code ignored;
        std::filesystem::remove_all(m_path, ignored);
    }
    ExportScratch(const ExportScratch&) = delete;
    ExportScratch& operator=(const ExportScratch&) = delete;
    const std::string& path() const { return m_path; }
    std::string file(const std::string& name) const { return m_path + "/" + name; }

private:
    std::string m_path;
};

inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

inline void writeText(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

// The names of the files in `dir`, sorted (temporary files of unfinished outputs included).
inline std::vector<std::string> filesIn(const std::string& dir) {
    std::vector<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
        names.push_back(entry.path().filename().string());
    }
    std::sort(names.begin(), names.end());
    return names;
}

// Owns the strings the records point to (records hold string_views, as the parser's do).
class RecordFactory {
public:
    std::string_view keep(std::string text) { return m_strings.emplace_back(std::move(text)); }

    atp::OclApiCall apiCall(uint64_t tid, uint64_t index, std::string name, uint64_t start,
                            uint64_t end) {
        atp::OclApiCall call;
        call.tid = tid;
        call.index = index;
        call.name = keep(std::move(name));
        call.returnValue = "CL_SUCCESS";
        call.params = {keep("0x1000"), keep("CL_TRUE")};
        call.start = start;
        call.end = end;
        return call;
    }

    atp::OclApiCall kernelEnqueue(uint64_t tid, uint64_t index, uint64_t start, uint64_t end,
                                  uint64_t deviceStart, uint64_t deviceEnd, uint64_t queue = 0,
                                  std::string kernel = "reduce") {
        atp::OclApiCall call = apiCall(tid, index, "clEnqueueNDRangeKernel", start, end);
        call.hasCommand = true;
        atp::OclCommand& command = call.command;
        command.commandType = 4592;
        command.commandName = "CL_COMMAND_NDRANGE_KERNEL";
        command.queued = start + 10;
        command.submit = start + 20;
        command.start = deviceStart;
        command.end = deviceEnd;
        command.queueId = queue;
        command.queueHandle = keep("0x20f4a3" + std::to_string(queue));
        command.contextHandle = "0x2071c40";
        command.deviceName = "gfx900";
        command.isKernel = true;
        command.kernelHandle = "0x21ff890";
        command.kernelName = std::move(kernel);
        command.globalSize = "{1048576}";
        command.localSize = "{256}";
        return call;
    }

    atp::OclApiCall readEnqueue(uint64_t tid, uint64_t index, uint64_t start, uint64_t end,
                                uint64_t deviceStart, uint64_t deviceEnd) {
        atp::OclApiCall call = kernelEnqueue(tid, index, start, end, deviceStart, deviceEnd);
        call.name = "clEnqueueReadBuffer";
        call.command.commandType = 4595;
        call.command.commandName = "CL_COMMAND_READ_BUFFER";
        call.command.isKernel = false;
        call.command.kernelHandle = {};
        call.command.kernelName.clear();
        call.command.globalSize = {};
        call.command.localSize = {};
        call.command.hasDataSize = true;
        call.command.dataSize = 4096;
        return call;
    }

    atp::MarkerEvent marker(uint64_t tid, atp::MarkerKind kind, uint64_t ts, std::string name = {},
                            std::string group = "Default", std::string user = {}) {
        atp::Marker& marker = m_markers.emplace_back();
        marker.kind = kind;
        marker.timestampNs = ts;
        marker.name = std::move(name);
        marker.group = std::move(group);
        marker.userString = std::move(user);
        marker.line = ++m_line;
        atp::MarkerEvent event;
        event.tid = tid;
        event.marker = &marker;
        event.line = {"t.atp", marker.line};
        return event;
    }

private:
    std::deque<std::string> m_strings;
    std::deque<atp::Marker> m_markers;
    uint64_t m_line = 0;
};

using nlohmann::json;

inline json parseJsonFile(const std::string& path) { return json::parse(slurp(path)); }

// The checks every Chrome JSON trace we write must pass: the object form, each event with
// ph/pid/tid/ts, X slices of one (pid, tid) properly nested (never crossing), B/E balanced and
// nested, every flow start with exactly one finish, and a thread_name for every track used.
inline void expectValidTrace(const json& trace) {
    ASSERT_TRUE(trace.is_object());
    ASSERT_TRUE(trace.contains("traceEvents"));
    ASSERT_TRUE(trace["traceEvents"].is_array());
    std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>> slices;
    std::map<std::pair<int64_t, int64_t>, std::vector<std::string>> open;
    std::set<std::pair<int64_t, int64_t>> named;
    std::set<std::pair<int64_t, int64_t>> used;
    std::map<uint64_t, int> flows;
    for (const json& event : trace["traceEvents"]) {
        ASSERT_TRUE(event.contains("ph") && event.contains("pid") && event.contains("tid") &&
                    event.contains("ts"))
            << event.dump();
        const std::string ph = event["ph"];
        const auto track = std::make_pair(event["pid"].get<int64_t>(), event["tid"].get<int64_t>());
        const double ts = event["ts"].get<double>();
        if (ph == "M") {
            if (event["name"] == "thread_name") named.insert(track);
            continue;
        }
        used.insert(track);
        if (ph == "X") {
            ASSERT_GE(event["dur"].get<double>(), 0.0) << event.dump();
            // In integer ns, as a viewer reads them: adding the doubles could be an ulp off.
            const int64_t start = std::llround(ts * 1000);
            slices[track].emplace_back(start,
                                       start + std::llround(event["dur"].get<double>() * 1000));
        } else if (ph == "B") {
            open[track].push_back(event["name"]);
        } else if (ph == "E") {
            ASSERT_FALSE(open[track].empty()) << "E without B: " << event.dump();
            open[track].pop_back();
        } else if (ph == "s") {
            flows[event["id"].get<uint64_t>()] += 1;
        } else if (ph == "f") {
            EXPECT_EQ(event.value("bp", ""), "e");
            flows[event["id"].get<uint64_t>()] += 100;
        }
    }
    for (const auto& [track, names] : open) EXPECT_TRUE(names.empty()) << "unclosed B";
    for (const auto& [id, count] : flows) EXPECT_EQ(count, 101) << "flow " << id << " unpaired";
    for (const auto& track : used) {
        EXPECT_TRUE(named.count(track) == 1)
            << "track " << track.first << "/" << track.second << " has no thread_name";
    }
    // Nesting: sorted by start (longer first on ties), every slice lies inside the enclosing
    // one or after it.
    for (auto& [track, list] : slices) {
        std::sort(list.begin(), list.end(), [](const auto& a, const auto& b) {
            return a.first != b.first ? a.first < b.first : a.second > b.second;
        });
        std::vector<int64_t> ends;
        for (const auto& [start, end] : list) {
            while (!ends.empty() && ends.back() <= start) ends.pop_back();
            if (!ends.empty()) {
                EXPECT_LE(end, ends.back()) << "crossing slices on track " << track.first << "/"
                                            << track.second << " at " << start;
            }
            ends.push_back(end);
        }
    }
}

inline std::vector<json> eventsWithPh(const json& trace, const std::string& ph) {
    std::vector<json> found;
    for (const json& event : trace["traceEvents"]) {
        if (event["ph"] == ph) found.push_back(event);
    }
    return found;
}

}  // namespace perfmarker::test
