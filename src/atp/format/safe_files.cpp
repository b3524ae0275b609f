// Creating and opening files in directories others may write to (see safe_files.h).
#include "atp/format/safe_files.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>

namespace perfmarker::atp {
namespace {

constexpr int kTempNameTries = 100;

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

}  // namespace perfmarker::atp
