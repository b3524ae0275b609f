/* A full disk without a full disk (docs/session.md#chaos-tests), loaded with LD_PRELOAD:
 * while the file named by PERFMARKER_CHAOS_ENOSPC_FILE exists, every write to a regular file
 * below the directory PERFMARKER_CHAOS_ENOSPC_DIR fails with ENOSPC. Other files (the test's
 * captured stdout and stderr, pipes, terminals) are written as usual, and without the control
 * file everything is.
 *
 * Interposed: write, writev, pwrite, pwritev (and their 64-bit names), fallocate,
 * posix_fallocate, and the stdio calls the tools write their outputs with, fwrite and fflush
 * (stdio's own flushes inside glibc call the system call directly and cannot be interposed; a
 * stream's first fwrite already fails). The marker library writes fragments and its output with
 * write(2); the tools write with fwrite. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#define EXPORT __attribute__((visibility("default")))

static void* next(const char* name) { return dlsym(RTLD_NEXT, name); }

/* Whether a write to `fd` must fail now. errno is kept. */
static int mustFail(int fd) {
    const int saved = errno;
    int fail = 0;
    const char* control = getenv("PERFMARKER_CHAOS_ENOSPC_FILE");
    const char* dir = getenv("PERFMARKER_CHAOS_ENOSPC_DIR");
    struct stat st;
    if (control != NULL && dir != NULL && fd >= 0 && access(control, F_OK) == 0 &&
        fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        char link[64];
        char path[PATH_MAX];
        snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
        const ssize_t n = readlink(link, path, sizeof path - 1);
        const size_t dirLength = strlen(dir);
        if (n > 0) {
            path[n] = '\0';
            fail = strncmp(path, dir, dirLength) == 0 &&
                   (path[dirLength] == '/' || path[dirLength] == '\0');
        }
    }
    errno = saved;
    return fail;
}

EXPORT ssize_t write(int fd, const void* data, size_t size) {
    static ssize_t (*real)(int, const void*, size_t);
    if (real == NULL) real = (ssize_t(*)(int, const void*, size_t))next("write");
    if (size > 0 && mustFail(fd)) {
        errno = ENOSPC;
        return -1;
    }
    return real(fd, data, size);
}

EXPORT ssize_t writev(int fd, const struct iovec* iov, int count) {
    static ssize_t (*real)(int, const struct iovec*, int);
    if (real == NULL) real = (ssize_t(*)(int, const struct iovec*, int))next("writev");
    if (mustFail(fd)) {
        errno = ENOSPC;
        return -1;
    }
    return real(fd, iov, count);
}

#define PWRITE(name, offsetType)                                                                \
    EXPORT ssize_t name(int fd, const void* data, size_t size, offsetType offset) {             \
        static ssize_t (*real)(int, const void*, size_t, offsetType);                           \
        if (real == NULL) real = (ssize_t(*)(int, const void*, size_t, offsetType))next(#name); \
        if (size > 0 && mustFail(fd)) {                                                         \
            errno = ENOSPC;                                                                     \
            return -1;                                                                          \
        }                                                                                       \
        return real(fd, data, size, offset);                                                    \
    }
PWRITE(pwrite, off_t)
PWRITE(pwrite64, off64_t)

#define PWRITEV(name, offsetType)                                                        \
    EXPORT ssize_t name(int fd, const struct iovec* iov, int count, offsetType offset) { \
        static ssize_t (*real)(int, const struct iovec*, int, offsetType);               \
        if (real == NULL)                                                                \
            real = (ssize_t(*)(int, const struct iovec*, int, offsetType))next(#name);   \
        if (mustFail(fd)) {                                                              \
            errno = ENOSPC;                                                              \
            return -1;                                                                   \
        }                                                                                \
        return real(fd, iov, count, offset);                                             \
    }
PWRITEV(pwritev, off_t)
PWRITEV(pwritev64, off64_t)

EXPORT int fallocate(int fd, int mode, off_t offset, off_t length) {
    static int (*real)(int, int, off_t, off_t);
    if (real == NULL) real = (int (*)(int, int, off_t, off_t))next("fallocate");
    if (mustFail(fd)) {
        errno = ENOSPC;
        return -1;
    }
    return real(fd, mode, offset, length);
}

EXPORT int posix_fallocate(int fd, off_t offset, off_t length) {
    static int (*real)(int, off_t, off_t);
    if (real == NULL) real = (int (*)(int, off_t, off_t))next("posix_fallocate");
    return mustFail(fd) ? ENOSPC : real(fd, offset, length);
}

EXPORT size_t fwrite(const void* data, size_t size, size_t count, FILE* stream) {
    static size_t (*real)(const void*, size_t, size_t, FILE*);
    if (real == NULL) real = (size_t(*)(const void*, size_t, size_t, FILE*))next("fwrite");
    if (size > 0 && count > 0 && mustFail(fileno(stream))) {
        errno = ENOSPC;
        return 0;
    }
    return real(data, size, count, stream);
}

EXPORT int fflush(FILE* stream) {
    static int (*real)(FILE*);
    if (real == NULL) real = (int (*)(FILE*))next("fflush");
    if (stream != NULL && mustFail(fileno(stream))) {
        errno = ENOSPC;
        return EOF;
    }
    return real(stream);
}
