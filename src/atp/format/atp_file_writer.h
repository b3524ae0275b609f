// Writing an output file so that a reader never sees half of it and no error goes unnoticed.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "atp/format/safe_files.h"

namespace perfmarker::atp {

// Writes a file under a new temporary name in its directory ("<path>.tmp.<random>", created as
// atp/format/safe_files.h says) and renames it
// into place on commit(). Output is buffered; every write, the fsync and the close are checked.
// The first error sticks: later calls do nothing and return false, and error() says what
// failed with the path and the errno text ("cannot write /x/run.atp.tmp.Ab3xY9qZ: No space left on
// device"). The temporary file is removed on failure and by the destructor unless committed.
class AtpFileWriter {
public:
    AtpFileWriter() = default;
    ~AtpFileWriter();
    AtpFileWriter(const AtpFileWriter&) = delete;
    AtpFileWriter& operator=(const AtpFileWriter&) = delete;

    bool open(const std::string& path);
    bool write(std::string_view text);
    // Appends the `n` bytes at `offset` of the open file `in` (named `inPath` in an error), as
    // BatchedWrites::copyFrom does: inside the kernel where it can.
    bool copyFrom(int in, const std::string& inPath, uint64_t offset, uint64_t n);
    // Flushes, syncs to disk (the caller may delete the inputs next), closes and renames.
    bool commit();
    // Closes and removes the temporary file (no effect after commit()).
    void abandon();

    bool failed() const { return !m_error.empty(); }
    const std::string& error() const { return m_error; }
    const std::string& path() const { return m_path; }
    uint64_t bytesWritten() const { return m_writes.size(); }

private:
    bool fail(const std::string& action, const std::string& path, int err);
    // Starts the disk's writeback of what was written since the last call, once there is enough
    // of it, so that commit()'s fsync waits only for the rest.
    void startWriteback();

    int m_fd = -1;
    bool m_committed = false;
    std::string m_path;
    std::string m_tempPath;
    BatchedWrites m_writes;
    uint64_t m_writebackFrom = 0;  // written before this offset: writeback started
    std::string m_error;
};

}  // namespace perfmarker::atp
