#include "atp/read/staged_output.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <utility>

#include "atp/format/safe_files.h"

namespace perfmarker::atp {
namespace {

// The process's umask, read once (umask() can only be read by setting it).
mode_t processUmask() {
    static const mode_t mask = [] {
        const mode_t old = ::umask(022);
        ::umask(old);
        return old;
    }();
    return mask;
}

}  // namespace

StagedOutput::~StagedOutput() { discard(); }

StagedOutput::StagedOutput(StagedOutput&& other) noexcept { *this = std::move(other); }

StagedOutput& StagedOutput::operator=(StagedOutput&& other) noexcept {
    if (this != &other) {
        discard();
        m_target = std::move(other.m_target);
        m_renameTo = std::move(other.m_renameTo);
        m_path = std::move(other.m_path);
        m_staged = std::exchange(other.m_staged, false);
    }
    return *this;
}

bool StagedOutput::create(const std::string& target) {
    discard();
    m_target = target;
    m_renameTo = target;
    m_path.clear();
    struct stat status {};
    mode_t mode = 0666 & ~processUmask();
    if (::stat(target.c_str(), &status) == 0) {
        if (!S_ISREG(status.st_mode)) {
            m_path = target;  // a device or a pipe: written as it is
            return true;
        }
        mode = status.st_mode & 07777;
        struct stat link {};
        char resolved[PATH_MAX];
        if (::lstat(target.c_str(), &link) == 0 && S_ISLNK(link.st_mode) &&
            ::realpath(target.c_str(), resolved) != nullptr) {
            m_renameTo = resolved;  // replace the file the link names, keep the link
        }
    }
    std::string temporary;  // "<target>.tmp.<random>", created new (atp/format/safe_files.h)
    const int fd = createTempNextTo(m_renameTo, 0600, temporary);
    if (fd < 0) return false;
    const bool ok = ::fchmod(fd, mode) == 0;
    const int saved = errno;
    ::close(fd);
    if (!ok) {
        ::unlink(temporary.c_str());
        errno = saved;
        return false;
    }
    m_path = std::move(temporary);
    m_staged = true;
    return true;
}

bool StagedOutput::commit(std::string& error) {
    if (!m_staged) return true;
    if (::rename(m_path.c_str(), m_renameTo.c_str()) == 0) {
        m_staged = false;
        return true;
    }
    error = m_target + ": cannot replace: " + std::strerror(errno);
    discard();
    return false;
}

void StagedOutput::discard() {
    if (!m_staged) return;
    m_staged = false;
    ::unlink(m_path.c_str());
}

bool writeStagedFile(const std::string& path, const std::string& text, std::string& error) {
    StagedOutput output;
    const auto failed = [&] {
        error = "cannot write " + path + ": " + std::strerror(errno);
        return false;
    };
    if (!output.create(path)) return failed();
    std::FILE* file = std::fopen(output.path().c_str(), "wb");
    if (file == nullptr) return failed();
    const bool written =
        std::fwrite(text.data(), 1, text.size(), file) == text.size() && std::fflush(file) == 0;
    const int saved = errno;
    const bool closed = std::fclose(file) == 0;
    if (!written) errno = saved;
    if (!written || !closed) return failed();
    if (output.commit(error)) return true;
    error = "cannot write " + error;
    return false;
}

}  // namespace perfmarker::atp
