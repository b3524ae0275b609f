// The HTML report: one self-contained file (inline CSS and script, no network access at all;
// a Content-Security-Policy forbids any fetch) with the summary tables and a zoomable timeline
// drawn on a canvas. The timeline data travels as JSON in a <script type="application/json">
// block; every '<', '>' and '&' in it is written as a \u escape so that no name can end the
// block, and every name in the tables is HTML-escaped.
#pragma once

#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/summary.h"
#include "report/timeline.h"

namespace perfmarker::report {

struct ReportData {
    std::string title = "perfmarker report";
    std::vector<std::string> inputs;      // the trace files, as given
    std::vector<analysis::Table> tables;  // shown in this order
    Timeline timeline;
    size_t maxItems = kDefaultMaxItems;  // the cap the timeline was collected with
};

// & < > " ' as entities: safe in element content and in quoted attributes.
std::string escapeHtml(std::string_view text);

// The timeline as JSON, safe to put between <script type="application/json"> and </script>.
// Bytes that are not UTF-8 become U+FFFD.
std::string timelineJson(const ReportData& data);
void writeTimelineJson(std::ostream& out, const ReportData& data);

// Writes the page; the stream's state tells whether it was written.
void writeHtmlReport(std::ostream& out, const ReportData& data);

// Writes the page to `path`, replacing it only once the page is complete. False with `error` =
// "<path>: <reason>" when the file cannot be created or written completely; `path` is then as
// it was.
bool writeHtmlReportFile(const std::string& path, const ReportData& data, std::string& error);

}  // namespace perfmarker::report
