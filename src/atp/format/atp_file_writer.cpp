#include "atp/format/atp_file_writer.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "atp/format/safe_files.h"

namespace perfmarker::atp {
namespace {

// How much is written before its writeback is started (startWriteback()).
constexpr uint64_t kWritebackBytes = uint64_t{8} << 20;

}  // namespace

AtpFileWriter::~AtpFileWriter() { abandon(); }

bool AtpFileWriter::open(const std::string& path) {
    abandon();
    m_path = path;
    m_error.clear();
    m_committed = false;
    m_fd = createTempNextTo(path, 0666, m_tempPath);
    if (m_fd < 0) return fail("create", m_tempPath, errno);
    m_writes = BatchedWrites(m_fd);
    m_writebackFrom = 0;
    return true;
}

bool AtpFileWriter::write(std::string_view text) {
    if (m_fd < 0 || failed()) return false;
    if (const int err = m_writes.write(text)) return fail("write", m_tempPath, err);
    startWriteback();
    return true;
}

bool AtpFileWriter::copyFrom(int in, const std::string& inPath, uint64_t offset, uint64_t n) {
    if (m_fd < 0 || failed()) return false;
    // In pieces, so that the disk writes the first ones while the next are copied.
    for (uint64_t done = 0; done < n;) {
        const uint64_t piece = std::min(n - done, kWritebackBytes);
        if (const int err = m_writes.copyFrom(in, offset + done, piece)) {
            return fail("copy " + inPath + " into", m_tempPath, err);
        }
        done += piece;
        startWriteback();
    }
    return true;
}

void AtpFileWriter::startWriteback() {
    const uint64_t flushed = m_writes.flushed();
    if (flushed - m_writebackFrom < kWritebackBytes) return;
    // Only a hint: an error here is the fsync's to report.
    (void)sync_file_range(m_fd, static_cast<off64_t>(m_writebackFrom),
                          static_cast<off64_t>(flushed - m_writebackFrom), SYNC_FILE_RANGE_WRITE);
    m_writebackFrom = flushed;
}

bool AtpFileWriter::commit() {
    if (m_fd < 0 || failed()) return false;
    if (const int err = m_writes.flush()) return fail("write", m_tempPath, err);
    // Durable before the caller deletes the inputs it was made from.
    if (fsync(m_fd) != 0 && errno != EINVAL && errno != EROFS) {
        return fail("sync", m_tempPath, errno);
    }
    const int fd = m_fd;
    m_fd = -1;
    if (close(fd) != 0) {
        const int err = errno;
        unlink(m_tempPath.c_str());
        return fail("close", m_tempPath, err);
    }
    if (std::rename(m_tempPath.c_str(), m_path.c_str()) != 0) {
        const int err = errno;
        unlink(m_tempPath.c_str());
        return fail("rename " + m_tempPath + " to", m_path, err);
    }
    m_committed = true;
    return true;
}

void AtpFileWriter::abandon() {
    if (m_fd >= 0) {
        close(m_fd);
        m_fd = -1;
    }
    if (!m_committed && !m_tempPath.empty()) unlink(m_tempPath.c_str());
    m_tempPath.clear();
    m_writes = {};
}

bool AtpFileWriter::fail(const std::string& action, const std::string& path, int err) {
    if (m_error.empty()) m_error = "cannot " + action + " " + path + ": " + std::strerror(err);
    abandon();
    return false;
}

}  // namespace perfmarker::atp
