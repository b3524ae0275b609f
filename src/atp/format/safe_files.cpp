// Creating and opening files in directories others may write to (see safe_files.h).
#include "atp/format/safe_files.h"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <string>

namespace perfmarker::atp {
namespace {

constexpr int kTempNameTries = 100;
// Writes this large or larger reserve their blocks first; smaller ones would pay two system
// calls more for little.
constexpr size_t kReserveFrom = size_t{64} << 10;
constexpr size_t kBatchBytes = size_t{1} << 20;

// Only where the gain was measured: on tmpfs reserving changes nothing, and on a network
// filesystem it could cost a round trip.
bool reservingPays(int fd) {
    struct statfs fs {};
    return fstatfs(fd, &fs) == 0 && fs.f_type == EXT4_SUPER_MAGIC;
}

uint64_t randomBits() {
    uint64_t bits = 0;
    if (getrandom(&bits, sizeof bits, GRND_NONBLOCK) == static_cast<ssize_t>(sizeof bits)) {
        return bits;
    }
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    static std::atomic<uint64_t> counter{0};
    return (static_cast<uint64_t>(now.tv_nsec) << 20) ^ static_cast<uint64_t>(getpid()) ^
           (++counter * 0x9E3779B97F4A7C15ull);
}

std::string randomSuffix() {
    static constexpr char kLetters[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    uint64_t bits = randomBits();
    std::string suffix;
    for (int i = 0; i < 8; ++i) {
        suffix.push_back(kLetters[bits % (sizeof kLetters - 1)]);
        bits /= sizeof kLetters - 1;
    }
    return suffix;
}

}  // namespace

int createNewFile(const std::string& path, mode_t mode) {
    return open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
}

int createTempNextTo(const std::string& target, mode_t mode, std::string& tempPath) {
    for (int i = 0; i < kTempNameTries; ++i) {
        tempPath = target + ".tmp." + randomSuffix();
        const int fd = createNewFile(tempPath, mode);
        if (fd >= 0 || errno != EEXIST) return fd;
    }
    errno = EEXIST;
    return -1;
}

int openOwnFile(const std::string& path) {
    const int fd = open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
        close(fd);
        errno = EPERM;
        return -1;
    }
    return fd;
}

int appendAll(int fd, uint64_t offset, const void* data, size_t n) {
    // A failed reservation is no error: the write then finds out for itself.
    if (n >= kReserveFrom && reservingPays(fd)) {
        (void)fallocate(fd, 0, static_cast<off_t>(offset), static_cast<off_t>(n));
    }
    const char* p = static_cast<const char*>(data);
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return errno;
        if (w == 0) return ENOSPC;
        p += w;
        n -= static_cast<size_t>(w);
    }
    return 0;
}

int BatchedWrites::write(std::string_view text) {
    if (m_buffer.size() + text.size() > kBatchBytes) {
        if (const int err = flush()) return err;
        if (text.size() >= kBatchBytes) {
            if (const int err = appendAll(m_fd, m_written, text.data(), text.size())) return err;
            m_written += text.size();
            return 0;
        }
    }
    if (m_buffer.capacity() < kBatchBytes) m_buffer.reserve(kBatchBytes);
    m_buffer.append(text);
    return 0;
}

int BatchedWrites::flush() {
    if (const int err = appendAll(m_fd, m_written, m_buffer.data(), m_buffer.size())) return err;
    m_written += m_buffer.size();
    m_buffer.clear();
    return 0;
}

int BatchedWrites::copyFrom(int in, uint64_t offset, uint64_t n) {
    if (const int err = flush()) return err;
    if (n >= kReserveFrom && reservingPays(m_fd)) {
        (void)fallocate(m_fd, 0, static_cast<off_t>(m_written), static_cast<off_t>(n));
    }
    auto from = static_cast<off_t>(offset);
    bool inKernel = true;
    while (n > 0 && inKernel) {
        const ssize_t copied = copy_file_range(in, &from, m_fd, nullptr, n, 0);
        if (copied < 0 && errno == EINTR) continue;
        if (copied < 0 &&
            (errno == EXDEV || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL)) {
            inKernel = false;  // another filesystem, or one that cannot: the bytes through here
        } else if (copied < 0) {
            return errno;
        } else if (copied == 0) {
            return ENODATA;
        } else {
            m_written += static_cast<uint64_t>(copied);
            n -= static_cast<uint64_t>(copied);
        }
    }
    std::string piece;
    while (n > 0) {
        piece.resize(static_cast<size_t>(std::min<uint64_t>(n, kBatchBytes)));
        const ssize_t got = pread(in, piece.data(), piece.size(), from);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) return errno;
        if (got == 0) return ENODATA;
        if (const int err = appendAll(m_fd, m_written, piece.data(), static_cast<size_t>(got))) {
            return err;
        }
        from += got;
        m_written += static_cast<uint64_t>(got);
        n -= static_cast<uint64_t>(got);
    }
    return 0;
}

}  // namespace perfmarker::atp
