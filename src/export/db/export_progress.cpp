#include "export/db/export_progress.h"

namespace perfmarker::exporter::db {
namespace {

std::string megabytes(uint64_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
    return text;
}

// "3.2 M records", "41.0 k records", "17 records".
std::string recordCount(uint64_t records) {
    char text[32];
    if (records >= 1000000) {
        std::snprintf(text, sizeof text, "%.1f M", static_cast<double>(records) / 1e6);
    } else if (records >= 1000) {
        std::snprintf(text, sizeof text, "%.1f k", static_cast<double>(records) / 1e3);
    } else {
        std::snprintf(text, sizeof text, "%llu", static_cast<unsigned long long>(records));
    }
    return std::string(text) + " records";
}

}  // namespace

ExportProgress::ExportProgress(std::vector<uint64_t> inputBytes, std::FILE* out, bool terminal,
                               Timing timing)
    : m_inputBytes(std::move(inputBytes)),
      m_out(out),
      m_terminal(terminal),
      m_timing(timing),
      m_started(Clock::now()),
      m_lastShown(m_started) {}

ExportProgress::~ExportProgress() { finish(); }

void ExportProgress::onFileBegin(std::string_view file) {
    ++m_file;
    m_fileName.assign(file);
    showReading(false);
}

bool ExportProgress::due(bool force) {
    if (m_out == nullptr) return false;
    const Clock::time_point now = Clock::now();
    if (now - m_started < m_timing.delay) return false;
    const auto every = m_terminal ? m_timing.terminalEvery : m_timing.logEvery;
    if (!force && m_anyShown && now - m_lastShown < every) return false;
    m_lastShown = now;
    m_anyShown = true;
    return true;
}

void ExportProgress::showReading(bool force) {
    if (!due(force)) return;
    std::string text = "reading trace " + std::to_string(m_file);
    if (m_inputBytes.size() > 1) text += " of " + std::to_string(m_inputBytes.size());
    text += " (" + m_fileName;
    if (m_file >= 1 && m_file <= m_inputBytes.size()) {
        text += ", " + megabytes(m_inputBytes[m_file - 1]);
    }
    show(text + "): " + recordCount(m_records));
}

void ExportProgress::step(std::string_view what, uint64_t done, uint64_t total) {
    // The last unit of a step is always due, so that a log shows each step end once.
    if (!due(done == total)) return;
    const int percent = total == 0 ? 100 : static_cast<int>(done * 100 / total);
    show(std::string(what) + ": " + std::to_string(percent) + "%");
}

void ExportProgress::show(const std::string& text) {
    ++m_shown;
    const std::string line = "perfmarker export: " + text;
    if (!m_terminal) {
        std::fprintf(m_out, "%s\n", line.c_str());
        std::fflush(m_out);
        return;
    }
    // Redrawn in place: spaces over what a longer previous line left.
    const size_t pad = m_drawnWidth > line.size() ? m_drawnWidth - line.size() : 0;
    std::fprintf(m_out, "\r%s%*s", line.c_str(), static_cast<int>(pad), "");
    std::fflush(m_out);
    m_drawn = true;
    m_drawnWidth = line.size();
}

void ExportProgress::finish() {
    if (m_drawn && m_out != nullptr) std::fputc('\n', m_out);
    m_drawn = false;
    m_drawnWidth = 0;
}

}  // namespace perfmarker::exporter::db
