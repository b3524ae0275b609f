#include "export/csv_writer.h"

#include <cstdint>

#include "export/json_writer.h"

namespace perfmarker::exporter {
namespace {

constexpr size_t kFlushBytes = size_t{1} << 20;

// Nonzero when one of the 8 bytes of `w` is ',', '"', '\r' or '\n' (a zero byte in w ^ that
// byte, for each of the four).
constexpr uint64_t quotingBits(uint64_t w) {
    constexpr uint64_t kOnes = 0x0101010101010101u;
    uint64_t bits = 0;
    for (const char c : {',', '"', '\r', '\n'}) {
        const uint64_t x = w ^ (kOnes * static_cast<unsigned char>(c));
        bits |= (x - kOnes) & ~x;
    }
    return bits & 0x8080808080808080u;
}

bool quotes(unsigned char c) { return c == ',' || c == '"' || c == '\r' || c == '\n'; }

}  // namespace

void appendCsvField(std::string& out, std::string_view field) {
    // find_first_of would look up each byte of the field among the four with a memchr.
    if (firstSpecialByte(field, quotingBits, quotes) == field.size()) {
        out.append(field);
        return;
    }
    out.push_back('"');
    for (const char c : field) {
        if (c == '"') out.push_back('"');
        out.push_back(c);
    }
    out.push_back('"');
}

bool CsvFile::open(const std::string& path, std::string_view header, std::string_view lineEnd) {
    m_lineEnd.assign(lineEnd);
    if (!m_file.open(path)) return false;
    m_buffer.append(header);
    m_buffer += m_lineEnd;
    return true;
}

void CsvFile::separator() {
    if (m_rowStarted) m_buffer.push_back(',');
    m_rowStarted = true;
}

CsvFile& CsvFile::field(std::string_view text) {
    separator();
    appendCsvField(m_buffer, text);
    return *this;
}

CsvFile& CsvFile::number(uint64_t value) {
    separator();
    appendUnsigned(m_buffer, value);
    return *this;
}

CsvFile& CsvFile::signedNumber(int64_t value) {
    separator();
    if (value < 0) m_buffer.push_back('-');
    appendUnsigned(m_buffer,
                   value < 0 ? 0 - static_cast<uint64_t>(value) : static_cast<uint64_t>(value));
    return *this;
}

CsvFile& CsvFile::empty() {
    separator();
    return *this;
}

void CsvFile::endRow() {
    m_buffer += m_lineEnd;
    m_rowStarted = false;
    if (m_buffer.size() >= kFlushBytes) {
        m_file.write(m_buffer);
        m_buffer.clear();
    }
}

bool CsvFile::close() {
    m_file.write(m_buffer);
    m_buffer.clear();
    return m_file.close();
}

CsvFile& CsvTables::open(size_t index, const std::string& path, std::string_view header,
                         std::string_view lineEnd) {
    CsvFile& file = m_files[index];
    if (file.isOpen() || !file.error().empty()) return file;
    m_written.push_back(path);
    if (!file.open(path, header, lineEnd) && m_error.empty()) m_error = file.error();
    return file;
}

bool CsvTables::close(std::string& error) {
    for (CsvFile& file : m_files) {
        if (file.isOpen() && !file.close() && m_error.empty()) m_error = file.error();
    }
    if (!m_error.empty()) error = m_error;
    return m_error.empty();
}

bool CsvTables::commit(std::string& error) {
    bool ok = m_error.empty();
    if (!ok) error = m_error;
    for (CsvFile& file : m_files) {
        if (!ok) {
            file.discard();
        } else if (!file.commit(error)) {
            ok = false;
        }
    }
    return ok;
}

void CsvTables::discard() {
    for (CsvFile& file : m_files) file.discard();
}

}  // namespace perfmarker::exporter
