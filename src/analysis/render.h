// Renderers of summary tables: aligned terminal text, GitHub Markdown, CSV (RFC 4180, one
// section per table) and JSON ({"tables": [{id, title, columns, rows, notes}]}).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/summary.h"

namespace perfmarker::analysis {

enum class OutputFormat { Text, Markdown, Csv, Json };

// "text", "md", "csv", "json"; no value for anything else.
std::optional<OutputFormat> parseOutputFormat(std::string_view name);

std::string renderText(const std::vector<Table>& tables);
std::string renderMarkdown(const std::vector<Table>& tables);
std::string renderCsv(const std::vector<Table>& tables);
std::string renderJson(const std::vector<Table>& tables);
std::string render(const std::vector<Table>& tables, OutputFormat format);

// One CSV field, quoted when it holds a comma, a quote, CR or LF (RFC 4180).
std::string csvField(std::string_view text);

}  // namespace perfmarker::analysis
