#include "report/html_report.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "atp/read/staged_output.h"
#include "report/report_assets.h"

namespace perfmarker::report {
namespace {

const char* kindName(ItemKind kind) {
    switch (kind) {
        case ItemKind::Marker:
            return "marker";
        case ItemKind::Api:
            return "api";
        case ItemKind::Kernel:
            return "kernel";
        case ItemKind::Memory:
            return "memory";
        case ItemKind::Other:
            return "other";
    }
    return "other";
}

// After dump(), '<', '>' and '&' can only be inside JSON strings, where \u escapes mean the
// same characters to JSON.parse but can never spell "</script" or "<!--" to the HTML parser.
std::string scriptSafe(const std::string& json) {
    std::string out;
    out.reserve(json.size() + json.size() / 16);
    for (char c : json) {
        switch (c) {
            case '<':
                out += "\\u003c";
                break;
            case '>':
                out += "\\u003e";
                break;
            case '&':
                out += "\\u0026";
                break;
            default:
                out += c;
        }
    }
    return out;
}

nlohmann::json processesJson(const Timeline& timeline) {
    nlohmann::json out = nlohmann::json::array();
    for (const Process& process : timeline.processes) {
        out.push_back(
            {{"pid", process.pid}, {"name", process.name}, {"application", process.application}});
    }
    return out;
}

nlohmann::json tracksJson(const Timeline& timeline) {
    nlohmann::json out = nlohmann::json::array();
    for (const Track& track : timeline.tracks) {
        out.push_back({{"process", track.process},
                       {"kind", track.kind == TrackKind::Thread ? "thread" : "queue"},
                       {"label", track.label}});
    }
    return out;
}

std::string dumpJson(const nlohmann::json& json) {
    return scriptSafe(json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

// Items as arrays [track, start - t0, duration, name, kind, depth, details]: the page holds up
// to the cap of them, so field names would double its size. Streamed one by one: a tree of
// 200k items would cost more memory than the page itself.
void writeItems(std::ostream& out, const Timeline& timeline, uint64_t t0) {
    out << '[';
    bool first = true;
    for (const Item& item : timeline.items) {
        out << (first ? "[" : ",[") << item.track << ',' << item.start - t0 << ','
            << item.duration() << ',' << item.name << ",\"" << kindName(item.kind) << "\","
            << item.depth << ',' << dumpJson(item.details) << ']';
        first = false;
    }
    out << ']';
}

void writeTable(std::ostream& out, const analysis::Table& table) {
    out << "<section class=\"summary\" id=\"table-" << escapeHtml(table.id) << "\">\n<h2>"
        << escapeHtml(table.title) << "</h2>\n<div class=\"scroll\"><table class=\"sortable\">"
        << "<thead><tr>";
    for (const std::string& column : table.columns) out << "<th>" << escapeHtml(column) << "</th>";
    out << "</tr></thead>\n<tbody>\n";
    for (const std::vector<std::string>& row : table.rows) {
        out << "<tr>";
        for (const std::string& cell : row) out << "<td>" << escapeHtml(cell) << "</td>";
        out << "</tr>\n";
    }
    out << "</tbody></table></div>\n";
    if (!table.notes.empty()) {
        out << "<ul class=\"notes\">";
        for (const std::string& note : table.notes) out << "<li>" << escapeHtml(note) << "</li>";
        out << "</ul>\n";
    }
    out << "</section>\n";
}

void writeHead(std::ostream& out, const ReportData& data) {
    // The policy is the guarantee that the page reaches nothing outside itself.
    out << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        << "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">\n"
        << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        << "<title>" << escapeHtml(data.title) << "</title>\n<style>" << kReportCss
        << "</style>\n<script>" << kReportErrorScript << "</script>\n</head>\n";
}

void writeTimelineSection(std::ostream& out, const ReportData& data) {
    const Timeline& timeline = data.timeline;
    out << "<section id=\"timeline-section\">\n<h2>Timeline</h2>\n";
    if (timeline.totalItems > timeline.items.size()) {
        out << "<p class=\"notice\" id=\"cap-notice\">Showing the " << timeline.items.size()
            << " longest of " << timeline.totalItems << " slices (--max-items " << data.maxItems
            << "); shorter ones are left out.</p>\n";
    }
    for (const std::string& warning : timeline.warnings) {
        out << "<p class=\"notice\">" << escapeHtml(warning) << "</p>\n";
    }
    // A report of kernel profile files alone (docs/report.md#kernel-profile-pages).
    if (timeline.processes.empty()) {
        out << "<p class=\"notice\" id=\"no-trace-notice\">No trace was given: the timeline is "
               "empty.</p>\n";
    }
    out << kReportTimelineMarkup << "</section>\n";
}

}  // namespace

std::string escapeHtml(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (char c : text) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            default:
                out += c;
        }
    }
    return out;
}

void writeTimelineJson(std::ostream& out, const ReportData& data) {
    const Timeline& timeline = data.timeline;
    uint64_t t0 = std::numeric_limits<uint64_t>::max();
    for (const Item& item : timeline.items) t0 = std::min(t0, item.start);
    if (timeline.items.empty()) t0 = 0;
    const nlohmann::json head = {
        {"title", data.title},
        {"t0", t0},
        {"processes", processesJson(timeline)},
        {"tracks", tracksJson(timeline)},
        {"strings", timeline.strings},
        {"totalItems", timeline.totalItems},
    };
    std::string text = dumpJson(head);
    text.pop_back();  // the closing brace: the items follow
    out << text << ",\"items\":";
    writeItems(out, timeline, t0);
    out << '}';
}

std::string timelineJson(const ReportData& data) {
    std::ostringstream out;
    writeTimelineJson(out, data);
    return out.str();
}

void writeHtmlReport(std::ostream& out, const ReportData& data) {
    writeHead(out, data);
    out << "<body>\n<header><h1>" << escapeHtml(data.title) << "</h1>\n<p class=\"inputs\">";
    for (size_t i = 0; i < data.inputs.size(); ++i) {
        out << (i == 0 ? "" : ", ") << "<code>" << escapeHtml(data.inputs[i]) << "</code>";
    }
    out << "</p>\n<div id=\"errors\" hidden></div>\n</header>\n<main>\n";
    writeTimelineSection(out, data);
    if (data.tables.empty()) out << "<p class=\"notice\">No summary tables.</p>\n";
    for (const analysis::Table& table : data.tables) writeTable(out, table);
    out << "</main>\n<script type=\"application/json\" id=\"timeline-data\">";
    writeTimelineJson(out, data);
    out << "</script>\n<script>" << kReportScript << "</script>\n</body>\n</html>\n";
}

// Written under a temporary name and renamed over `path` when complete
// (atp/read/staged_output.h): a failed write leaves an existing report as it was.
bool writeHtmlReportFile(const std::string& path, const ReportData& data, std::string& error) {
    atp::StagedOutput output;
    std::ofstream out;
    if (output.create(path)) out.open(output.path(), std::ios::binary | std::ios::trunc);
    if (!out.is_open()) {
        error = path + ": cannot create: " + std::strerror(errno);
        return false;
    }
    writeHtmlReport(out, data);
    out.close();
    if (!out) {
        error = path + ": write failed: " + std::strerror(errno);
        return false;  // (the temporary file goes with `output`)
    }
    return output.commit(error);
}

}  // namespace perfmarker::report
