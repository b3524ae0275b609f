// RFC 4180 CSV output shared by the VTune and the flat CSV exporters.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

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
    // After close(): puts the file in place / removes it (OutputFile::commit, discard).
    bool commit(std::string& error) { return m_file.commit(error); }
    void discard() { m_file.discard(); }
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

// The CSV files of one export, each opened the first time it is asked for (a file that failed
// to open is not tried again), closed together, the first error of any of them kept, and put in
// place together.
class CsvTables {
public:
    explicit CsvTables(size_t count) : m_files(count) {}

    // File `index`, created at `path` with `header` (see CsvFile::open) when it is not yet.
    CsvFile& open(size_t index, const std::string& path, std::string_view header,
                  std::string_view lineEnd = "\r\n");
    CsvFile& operator[](size_t index) { return m_files[index]; }
    bool isOpen(size_t index) const { return m_files[index].isOpen(); }
    // Closes every open file; false with `error` set on the first error seen.
    bool close(std::string& error);
    // After a successful close(): puts every file in place. False with `error` at the first
    // that cannot be (the ones after it are removed).
    bool commit(std::string& error);
    // Removes every file's temporary file: the targets stay as they were.
    void discard();
    // The paths of the files, in the order they were opened.
    const std::vector<std::string>& written() const { return m_written; }

private:
    std::vector<CsvFile> m_files;
    std::vector<std::string> m_written;
    std::string m_error;
};

}  // namespace perfmarker::exporter
