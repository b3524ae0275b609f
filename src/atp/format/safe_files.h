// Creating and opening files in directories others may write to
// (docs/session.md#files-in-shared-directories): a file is created new (never opened when it
// exists, never through a symbolic link), an output is written under a fresh temporary name next to
// it and renamed into place, and a file is read only when it is a regular file of this user. Every
// output of the project goes through these.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace perfmarker::atp {

// Creates `path`, which must not exist (O_CREAT | O_EXCL | O_NOFOLLOW), for writing with
// `mode` (before the umask). The descriptor, or -1 with errno.
int createNewFile(const std::string& path, mode_t mode);

// Creates a new file next to `target` named `<target>.tmp.<random>` (as createNewFile, trying
// other names while one exists) and sets `tempPath`. The descriptor, or -1 with errno.
int createTempNextTo(const std::string& target, mode_t mode, std::string& tempPath);

// Opens `path` for reading when it is a regular file (not a link) owned by this user. The
// descriptor, or -1 with errno (ELOOP for a link, EPERM for someone else's file).
int openOwnFile(const std::string& path);

// Writes all `n` bytes to `fd`, a new file written from its start of which `offset` bytes are
// written so far. On ext4 a large write first reserves its blocks (fallocate): the filesystem then
// skips its reservation page by page, a third of the kernel's cost of a buffered write
// (docs/performance.md, "Writing the output"). 0, or the errno of the failure (ENOSPC for a write
// that wrote nothing); the file may then hold part of the bytes, and reserved zeros after them.
int appendAll(int fd, uint64_t offset, const void* data, size_t n);

// Buffers what is written to a new file and writes it through appendAll in batches of 1 MiB (a
// piece that large or larger goes straight through). The owner keeps the descriptor, closes it,
// and keeps the first error: after one, the file holds an unknown part of what was written.
class BatchedWrites {
public:
    BatchedWrites() = default;
    explicit BatchedWrites(int fd) : m_fd(fd) {}

    // 0, or the errno of the write that failed.
    int write(std::string_view text);
    // Writes what is buffered: 0, or the errno.
    int flush();
    // Appends the `n` bytes of the file `in` at `offset`, after what is buffered: copied inside
    // the kernel (copy_file_range) where it can, else read and written 1 MiB at a time. 0, or
    // the errno (ENODATA when `in` ends before them).
    int copyFrom(int in, uint64_t offset, uint64_t n);
    // The bytes written so far, buffered ones included.
    uint64_t size() const { return m_written + m_buffer.size(); }
    // The bytes in the file so far (not counting the buffered ones).
    uint64_t flushed() const { return m_written; }

private:
    int m_fd = -1;
    uint64_t m_written = 0;  // in the file
    std::string m_buffer;
};

}  // namespace perfmarker::atp
