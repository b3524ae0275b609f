#include "export/exporter.h"

namespace perfmarker::exporter {

Exporter::Exporter() : m_markers([this](const MarkerSpan& span) { writeMarker(span); }) {}

bool Exporter::finish(std::string& error) {
    // A file whose parse stopped half way (without abandon()): write what it delivered.
    if (m_inFile) onFileEnd({});
    return closeOutputs(error);
}

void Exporter::abandon() {
    m_inFile = false;
    discardOutputs();
}

void Exporter::onFileBegin(std::string_view file) {
    m_inFile = true;
    m_processIds.beginFile(file);
    m_markers.beginFile(file);
    beginFile(file);
}

void Exporter::onHeader(std::string_view key, std::string_view value, atp::SourceLocation where) {
    (void)where;
    m_processIds.header(key, value);
}

void Exporter::onMarker(const atp::MarkerEvent& marker) { m_markers.add(marker, m_warnings); }

void Exporter::onFileEnd(std::string_view file) {
    (void)file;
    m_inFile = false;
    m_markers.endFile(m_warnings);
    endFile();
}

}  // namespace perfmarker::exporter
