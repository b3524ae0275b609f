#include "export/split_json_writer.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <utility>

namespace perfmarker::exporter {
namespace {

constexpr std::string_view kPartEnd = "\n]}\n";
constexpr size_t kFlushBytes = size_t{1} << 20;
constexpr std::string_view kPartStart =
    "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"perfmarker export\",\"part\":";

// The number N of a part name "<stem>-N<ext>" (N >= 2, written without leading zeros, as
// partPath() writes it), or 0.
size_t partNumber(std::string_view name, std::string_view stem, std::string_view ext) {
    if (name.size() <= stem.size() + 1 + ext.size() || name.substr(0, stem.size()) != stem ||
        name[stem.size()] != '-' || name.substr(name.size() - ext.size()) != ext) {
        return 0;
    }
    const std::string_view digits =
        name.substr(stem.size() + 1, name.size() - stem.size() - 1 - ext.size());
    if (digits.empty() || digits.size() > 9 || digits.front() == '0') return 0;
    size_t n = 0;
    for (const char c : digits) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return 0;
        n = n * 10 + static_cast<size_t>(c - '0');
    }
    return n >= 2 ? n : 0;
}

// Whether `path` is a regular file of this user (not a link) that starts as part `n` of an
// export does.
bool isOurPart(const std::string& path, size_t n) {
    struct stat st {};
    if (lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
        return false;
    }
    const std::string expected = std::string(kPartStart) + std::to_string(n) + "}";
    const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return false;
    std::string start(expected.size(), '\0');
    const ssize_t got = read(fd, start.data(), start.size());
    close(fd);
    return got == static_cast<ssize_t>(expected.size()) && start == expected;
}

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
    append(kPartStart);
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
    if (!m_error.empty()) {
        error = m_error;
        return false;
    }
    removeStaleParts();
    return true;
}

void SplitJsonWriter::removeStaleParts() {
    const size_t slash = m_path.find_last_of('/');
    const std::string dir = slash == std::string::npos ? "."
                            : slash == 0               ? "/"
                                                       : m_path.substr(0, slash);
    // The names partPath() gives: "<stem>-N<ext>" in the directory of the first part.
    const std::string name = slash == std::string::npos ? m_path : m_path.substr(slash + 1);
    const size_t dot = std::min(name.find_last_of('.'), name.size());
    const std::string stem = name.substr(0, dot);
    const std::string ext = name.substr(dot);
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return;
    std::vector<std::pair<size_t, std::string>> stale;
    while (const dirent* e = readdir(d)) {
        const size_t n = partNumber(e->d_name, stem, ext);
        if (n > m_files.size()) stale.emplace_back(n, dir + "/" + e->d_name);
    }
    closedir(d);
    std::sort(stale.begin(), stale.end());
    for (const auto& [n, path] : stale) {
        if (isOurPart(path, n) && unlink(path.c_str()) == 0) m_removed.push_back(path);
    }
}

void SplitJsonWriter::discard() {
    for (const std::unique_ptr<OutputFile>& part : m_parts) part->discard();
    m_buffer.clear();
    m_open = false;
}

}  // namespace perfmarker::exporter
