// RFC 4180 CSV output shared by the VTune and the flat CSV exporters.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "export/export_common.h"

namespace perfmarker::exporter {

// Appends one field: quoted when it holds a comma, a quote, CR or LF (quotes doubled),
// as is otherwise.
void appendCsvField(std::string& out, std::string_view field);

// A CSV file written a row at a time through a buffer; errors surface in close().
class CsvFile {
public:
    // Creates the file and writes the header line (the column names, already CSV). Rows end
    // in `lineEnd` (RFC 4180 says CRLF).
    bool open(const std::string& path, std::string_view header, std::string_view lineEnd = "\r\n");
    CsvFile& field(std::string_view text);
    CsvFile& number(uint64_t value);
    CsvFile& signedNumber(int64_t value);
    CsvFile& empty();
    void endRow();
    bool close();
    bool isOpen() const { return m_file.isOpen(); }
    const std::string& error() const { return m_file.error(); }
    const std::string& path() const { return m_file.path(); }

private:
    void separator();
    OutputFile m_file;
    std::string m_buffer;
    std::string m_lineEnd;
    bool m_rowStarted = false;
};

}  // namespace perfmarker::exporter
