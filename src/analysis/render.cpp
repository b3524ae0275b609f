#include "analysis/render.h"

#include <algorithm>
#include <nlohmann/json.hpp>

namespace perfmarker::analysis {
namespace {

constexpr std::string_view kNoData = "No data: the traces hold no API calls, kernels or markers.";

// Line breaks and tabs in a cell would break the alignment of a terminal table.
std::string oneLine(const std::string& text) {
    std::string out = text;
    for (char& c : out) {
        if (c == '\n' || c == '\r' || c == '\t') c = ' ';
    }
    return out;
}

std::string padded(const std::string& text, size_t width) {
    return text + std::string(width > text.size() ? width - text.size() : 0, ' ');
}

std::vector<size_t> columnWidths(const Table& table) {
    std::vector<size_t> widths;
    for (const std::string& column : table.columns) widths.push_back(column.size());
    for (const auto& row : table.rows) {
        for (size_t i = 0; i < row.size() && i < widths.size(); ++i) {
            widths[i] = std::max(widths[i], row[i].size());
        }
    }
    return widths;
}

// One line of cells; the last cell is not padded, so lines have no trailing blanks.
std::string textLine(const std::vector<std::string>& cells, const std::vector<size_t>& widths) {
    std::string line;
    for (size_t i = 0; i < widths.size(); ++i) {
        const std::string cell = i < cells.size() ? oneLine(cells[i]) : std::string();
        line += i + 1 < widths.size() ? padded(cell, widths[i]) + "  " : cell;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line + "\n";
}

std::string markdownCell(const std::string& text) {
    std::string out;
    for (char c : text) {
        if (c == '|') {
            out += "\\|";
        } else if (c == '\n' || c == '\r') {
            out += ' ';
        } else {
            out += c;
        }
    }
    return out;
}

std::string markdownRow(const std::vector<std::string>& cells, size_t columns) {
    std::string line = "|";
    for (size_t i = 0; i < columns; ++i) {
        line += " " + markdownCell(i < cells.size() ? cells[i] : std::string()) + " |";
    }
    return line + "\n";
}

std::string csvRow(const std::vector<std::string>& cells) {
    std::string line;
    for (size_t i = 0; i < cells.size(); ++i) {
        if (i != 0) line += ',';
        line += csvField(cells[i]);
    }
    return line + "\r\n";
}

}  // namespace

std::optional<OutputFormat> parseOutputFormat(std::string_view name) {
    if (name == "text") return OutputFormat::Text;
    if (name == "md") return OutputFormat::Markdown;
    if (name == "csv") return OutputFormat::Csv;
    if (name == "json") return OutputFormat::Json;
    return std::nullopt;
}

std::string renderText(const std::vector<Table>& tables) {
    if (tables.empty()) return std::string(kNoData) + "\n";
    std::string out;
    for (const Table& table : tables) {
        if (!out.empty()) out += "\n";
        out += table.title + "\n" + std::string(table.title.size(), '=') + "\n";
        const std::vector<size_t> widths = columnWidths(table);
        out += textLine(table.columns, widths);
        std::vector<std::string> rule;
        for (size_t width : widths) rule.emplace_back(width, '-');
        out += textLine(rule, widths);
        for (const auto& row : table.rows) out += textLine(row, widths);
        for (const std::string& note : table.notes) out += "Note: " + note + "\n";
    }
    return out;
}

std::string renderMarkdown(const std::vector<Table>& tables) {
    if (tables.empty()) return std::string(kNoData) + "\n";
    std::string out;
    for (const Table& table : tables) {
        if (!out.empty()) out += "\n";
        out += "## " + table.title + "\n\n";
        const size_t columns = table.columns.size();
        out += markdownRow(table.columns, columns);
        out += "|";
        for (size_t i = 0; i < columns; ++i) out += " --- |";
        out += "\n";
        for (const auto& row : table.rows) out += markdownRow(row, columns);
        if (!table.notes.empty()) out += "\n";
        for (const std::string& note : table.notes) out += "- " + markdownCell(note) + "\n";
    }
    return out;
}

std::string csvField(std::string_view text) {
    if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

// A section per table: its title as a one-field record, the header, the rows, then each note
// as a one-field record; sections are separated by an empty line.
std::string renderCsv(const std::vector<Table>& tables) {
    std::string out;
    for (const Table& table : tables) {
        if (!out.empty()) out += "\r\n";
        out += csvRow({table.title});
        out += csvRow(table.columns);
        for (const auto& row : table.rows) out += csvRow(row);
        for (const std::string& note : table.notes) out += csvRow({note});
    }
    return out;
}

std::string renderJson(const std::vector<Table>& tables) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const Table& table : tables) {
        nlohmann::ordered_json entry;
        entry["id"] = table.id;
        entry["title"] = table.title;
        entry["columns"] = table.columns;
        entry["rows"] = table.rows;
        entry["notes"] = table.notes;
        list.push_back(std::move(entry));
    }
    nlohmann::ordered_json document;
    document["tables"] = std::move(list);
    // Invalid UTF-8 in names from a trace is replaced, never an exception.
    return document.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string render(const std::vector<Table>& tables, OutputFormat format) {
    switch (format) {
        case OutputFormat::Text:
            return renderText(tables);
        case OutputFormat::Markdown:
            return renderMarkdown(tables);
        case OutputFormat::Csv:
            return renderCsv(tables);
        case OutputFormat::Json:
            return renderJson(tables);
    }
    return {};
}

}  // namespace perfmarker::analysis
