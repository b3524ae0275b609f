// Safely staged profile outputs (docs/profile.md#files).
#include "profile/format/staged_file.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "atp/format/safe_files.h"

namespace perfmarker::profile {
namespace {

constexpr mode_t kFileMode = 0644;

std::string describe(const std::string& what, const std::string& path, int error) {
    return what + " " + path + ": " + std::strerror(error);
}

}  // namespace

StagedFile::~StagedFile() {
    if (m_fd >= 0) close(m_fd);
}

bool StagedFile::open(const std::string& target, std::string& error) {
    if (m_fd >= 0) discard();
    m_target = target;
    m_failed = false;
    m_fd = atp::createTempNextTo(target, kFileMode, m_tempPath);
    if (m_fd < 0) {
        error = describe("cannot create a file next to", target, errno);
        return false;
    }
    return true;
}

bool StagedFile::append(std::string_view text) {
    if (m_fd < 0 || m_failed) return false;
    while (!text.empty()) {
        const ssize_t n = write(m_fd, text.data(), text.size());
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            m_failed = true;
            return false;
        }
        text.remove_prefix(static_cast<size_t>(n));
    }
    return true;
}

bool StagedFile::finish(std::string& error) {
    if (m_fd < 0) {
        error = "no file open for " + m_target;
        return false;
    }
    const bool closed = close(m_fd) == 0;
    m_fd = -1;
    if (m_failed || !closed) {
        error = "cannot write " + m_tempPath;
        unlink(m_tempPath.c_str());
        return false;
    }
    if (std::rename(m_tempPath.c_str(), m_target.c_str()) != 0) {
        error = describe("cannot rename " + m_tempPath + " to", m_target, errno);
        unlink(m_tempPath.c_str());
        return false;
    }
    m_tempPath.clear();
    return true;
}

bool StagedFile::closeTemp() {
    if (m_fd < 0) return false;
    const bool closed = close(m_fd) == 0;
    m_fd = -1;
    return closed && !m_failed;
}

void StagedFile::discard() {
    if (m_fd >= 0) close(m_fd);
    m_fd = -1;
    if (!m_tempPath.empty()) unlink(m_tempPath.c_str());
}

bool appendFileTo(const std::string& path, StagedFile& out) {
    const int fd = atp::openOwnFile(path);
    if (fd < 0) return false;
    char buffer[1 << 16];
    bool ok = true;
    for (;;) {
        const ssize_t n = read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) ok = false;
        if (n <= 0) break;
        if (!out.append({buffer, static_cast<size_t>(n)})) {
            ok = false;
            break;
        }
    }
    close(fd);
    return ok;
}

}  // namespace perfmarker::profile
