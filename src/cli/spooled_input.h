// Inputs that can be read only once: a pipe (`cat t.atp | perfmarker summary /dev/stdin`), a
// FIFO, a socket, a character device. The reader needs to read a trace more than once (its
// type is sniffed first, and an API section is read again for its Timestamp section,
// docs/architecture.md), so such an input is first copied whole into an anonymous memory file
// (memfd) and read from there (docs/summary.md#reading-from-a-pipe).
#pragma once

#include <string>

namespace perfmarker::cli {

class SpooledInput {
public:
    SpooledInput() = default;
    ~SpooledInput();
    SpooledInput(const SpooledInput&) = delete;
    SpooledInput& operator=(const SpooledInput&) = delete;

    // A regular file, a directory or a missing path is read as it is (the readers report what
    // is wrong with it); anything else is copied. False with `error` = "<path>: cannot read:
    // <reason>" when the copy fails.
    bool open(const std::string& path, std::string& error);
    // Where to read the input from: the path itself, or "/proc/self/fd/N" of the copy.
    const std::string& readPath() const { return m_readPath; }

private:
    int m_fd = -1;
    std::string m_readPath;
};

}  // namespace perfmarker::cli
