#include "atp/format/finished_receipt.h"

#include <sys/stat.h>
#include <sys/xattr.h>

#include <cerrno>
#include <cinttypes>
#include <cstdio>

namespace perfmarker::atp {
namespace {

// "1 <size> <mtime seconds> <mtime nanoseconds> <threads> <body offset>": version 1 of the
// receipt's text (docs/format.md#the-finished-files-receipt).
constexpr int kFields = 6;
constexpr size_t kMaxText = 128;

}  // namespace

int writeFinishedReceipt(int fd, uint64_t threads, uint64_t bodyOffset) {
    struct stat st {};
    if (fstat(fd, &st) != 0) return errno;
    if (bodyOffset > static_cast<uint64_t>(st.st_size)) return EINVAL;
    char text[kMaxText];
    const int n =
        std::snprintf(text, sizeof text, "1 %" PRIu64 " %" PRId64 " %ld %" PRIu64 " %" PRIu64,
                      static_cast<uint64_t>(st.st_size), static_cast<int64_t>(st.st_mtim.tv_sec),
                      st.st_mtim.tv_nsec, threads, bodyOffset);
    if (n <= 0 || static_cast<size_t>(n) >= sizeof text) return EINVAL;
    if (fsetxattr(fd, kFinishedReceiptName, text, static_cast<size_t>(n), 0) != 0) return errno;
    return 0;
}

bool readFinishedReceipt(int fd, FinishedReceipt& receipt) {
    char text[kMaxText];
    const ssize_t n = fgetxattr(fd, kFinishedReceiptName, text, sizeof text - 1);
    if (n <= 0) return false;
    text[n] = '\0';
    unsigned version = 0;
    uint64_t size = 0;
    int64_t seconds = 0;
    long nanoseconds = 0;
    uint64_t threads = 0;
    uint64_t body = 0;
    int used = 0;
    if (std::sscanf(text, "%u %" SCNu64 " %" SCNd64 " %ld %" SCNu64 " %" SCNu64 "%n", &version,
                    &size, &seconds, &nanoseconds, &threads, &body, &used) != kFields ||
        version != 1 || used != n || body > size) {
        return false;
    }
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) != size ||
        st.st_mtim.tv_sec != seconds || st.st_mtim.tv_nsec != nanoseconds) {
        return false;
    }
    receipt = FinishedReceipt{threads, body, size};
    return true;
}

}  // namespace perfmarker::atp
