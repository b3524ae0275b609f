// Helpers of the OTF2 and SQLite export tests: a scratch directory, the fixture traces run
// through the real reader into an exporter, and small hand-made traces.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "atp/read/trace_parser.h"
#include "export/exporter.h"

namespace perfmarker::exporter::db::test {

inline const std::string kAtpFixtures = std::string(PERFMARKER_FIXTURES_DIR) + "/atp/";

class Scratch {
public:
    Scratch() {
        std::string pattern =
            (std::filesystem::temp_directory_path() / "pm-export-db-XXXXXX").string();
        if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
        m_path = pattern;
    }
    ~Scratch() {
        std::error_code ignored;
        std::filesystem::remove_all(m_path, ignored);
    }
    Scratch(const Scratch&) = delete;
    Scratch& operator=(const Scratch&) = delete;
    const std::string& path() const { return m_path; }
    std::string file(const std::string& name) const { return m_path + "/" + name; }
    // The names in the directory, sorted (temporary files and directories included).
    std::vector<std::string> entries() const {
        std::vector<std::string> names;
        for (const auto& entry : std::filesystem::directory_iterator(m_path)) {
            names.push_back(entry.path().filename().string());
        }
        std::sort(names.begin(), names.end());
        return names;
    }

private:
    std::string m_path;
};

inline void writeText(const std::string& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

inline std::string readText(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

// Reads `traces` in order into `exporter` and finishes it; on a parse error abandons it. False
// with `error` on either.
inline bool runExport(Exporter& exporter, const std::vector<std::string>& traces,
                      std::string& error) {
    atp::TraceParser parser;
    parser.addListener(exporter);
    for (const std::string& trace : traces) {
        if (!parser.parseFile(trace, error)) {
            exporter.abandon();
            return false;
        }
    }
    return exporter.finish(error);
}

// A small OpenCL trace of one thread (tid 100): clFinish calls at the given [start, end] pairs
// and markers given as whole lines of the Perfmarker section.
inline std::string handTrace(const std::vector<std::pair<uint64_t, uint64_t>>& calls,
                             const std::vector<std::string>& markerLines,
                             const std::string& header = "ProcessId=77\n") {
    std::string text = "TraceFileVersion=3.2\nProfilerVersion=5.6.0\nApplication=/t\n" + header;
    text += "=====ocl API Trace Output=====\n100\n" + std::to_string(calls.size()) + "\n";
    for (size_t i = 0; i < calls.size(); ++i) text += "CL_SUCCESS = clFinish ( 0x1 )\n";
    text += "=====ocl Timestamp Output=====\n100\n" + std::to_string(calls.size()) + "\n";
    for (const auto& [start, end] : calls) {
        text += "51   clFinish   " + std::to_string(start) + "   " + std::to_string(end) + "\n";
    }
    if (!markerLines.empty()) {
        text += "=====Perfmarker Output=====\n100\n" + std::to_string(markerLines.size()) + "\n";
        for (const std::string& line : markerLines) text += line + "\n";
    }
    return text;
}

inline std::string beginMarker(const std::string& name, uint64_t ns,
                               const std::string& group = "Default") {
    return "clBeginPerfMarker   " + name + "   " + std::to_string(ns) + "   " + group;
}

inline std::string endMarker(uint64_t ns) { return "clEndPerfMarker     " + std::to_string(ns); }

}  // namespace perfmarker::exporter::db::test
