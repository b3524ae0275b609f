#include "export/split_json_writer.h"

namespace perfmarker::exporter {
namespace {

constexpr std::string_view kPartEnd = "\n]}\n";
constexpr size_t kFlushBytes = size_t{1} << 20;

}  // namespace

SplitJsonWriter::SplitJsonWriter(std::string path, uint64_t maxFileBytes)
    : m_path(std::move(path)), m_maxBytes(maxFileBytes) {
    m_buffer.reserve(kFlushBytes + 4096);
}

std::string SplitJsonWriter::partPath(const std::string& path, size_t partIndex) {
    if (partIndex == 0) return path;
    const size_t slash = path.find_last_of('/');
    size_t dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) dot = path.size();
    return path.substr(0, dot) + "-" + std::to_string(partIndex + 1) + path.substr(dot);
}

void SplitJsonWriter::startPart() {
    const std::string path = partPath(m_path, m_files.size());
    m_files.push_back(path);
    m_open = true;
    m_partBytes = 0;
    m_partEvents = 0;
    m_partPayload = 0;
    m_parts.push_back(std::make_unique<OutputFile>());
    m_file = m_parts.back().get();
    if (!m_file->open(path) && m_error.empty()) m_error = m_file->error();
    append(
        "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"perfmarker export\",\"part\":");
    append(std::to_string(m_files.size()));
    append("},\"traceEvents\":[\n");
    if (!m_metadata.empty()) {
        append(m_metadata);
        ++m_partEvents;
    }
}

void SplitJsonWriter::endPart() {
    append(kPartEnd);
    flushBuffer();
    if (!m_file->close() && m_error.empty()) m_error = m_file->error();
    m_open = false;
}

void SplitJsonWriter::append(std::string_view text) {
    m_buffer.append(text);
    m_partBytes += text.size();
    if (m_buffer.size() >= kFlushBytes) flushBuffer();
}

void SplitJsonWriter::flushBuffer() {
    m_file->write(m_buffer);
    m_buffer.clear();
}

void SplitJsonWriter::events(std::string_view group) {
    if (!m_open) startPart();
    if (wouldOverflow(group.size())) {
        endPart();
        startPart();
    }
    if (m_partEvents > 0) append(",\n");
    append(group);
    ++m_partEvents;
    ++m_partPayload;
}

bool SplitJsonWriter::wouldOverflow(size_t size) const {
    return m_partPayload > 0 && m_partBytes + 2 + size + kPartEnd.size() > m_maxBytes;
}

void SplitJsonWriter::metadata(std::string_view event) {
    if (!m_metadata.empty()) m_metadata += ",\n";
    m_metadata.append(event);
    if (!m_open || wouldOverflow(event.size())) {
        if (m_open) endPart();
        startPart();  // the part starts with all the metadata, this one included
        return;
    }
    if (m_partEvents > 0) append(",\n");
    append(event);
    ++m_partEvents;
}

bool SplitJsonWriter::finish(std::string& error) {
    if (!m_open && m_files.empty()) startPart();  // an empty trace is still a valid file
    if (m_open) endPart();
    for (const std::unique_ptr<OutputFile>& part : m_parts) {
        if (m_error.empty()) {
            part->commit(m_error);
        } else {
            part->discard();  // after an error, no part goes in place
        }
    }
    if (!m_error.empty()) error = m_error;
    return m_error.empty();
}

void SplitJsonWriter::discard() {
    for (const std::unique_ptr<OutputFile>& part : m_parts) part->discard();
    m_buffer.clear();
    m_open = false;
}

}  // namespace perfmarker::exporter
