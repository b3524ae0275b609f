// A profile file being written by an agent (docs/profile.md#files): the rows go to a temporary
// file next to the target as they come (a crash leaves them there, named `<target>.tmp.*`), and
// finish() writes the header and the rows into the target through a second staged file, so that
// the target is either absent or whole. Not thread-safe: one owner at a time.
#pragma once

#include <cstdint>
#include <string>

#include "profile/format/staged_file.h"

namespace perfmarker::profile {

class ProfileFile {
public:
    // Creates the rows' temporary file next to `target` (staged_file.h). False, with the
    // reason, when it cannot.
    bool open(const std::string& target, std::string& error);
    bool isOpen() const { return m_rows.isOpen(); }
    const std::string& target() const { return m_rows.target(); }

    // Appends one row (with its '\n'). False, with the reason, when the write fails (full disk):
    // the rows written before stay in the file.
    bool appendRow(const std::string& row, std::string& error);
    uint64_t rowCount() const { return m_count; }

    // Writes `header` then every row into the target and removes the rows' file. False, with the
    // reason, when that fails: the rows' file is then kept and its name is in the message.
    bool finish(const std::string& header, std::string& error);

private:
    StagedFile m_rows;
    uint64_t m_count = 0;
};

}  // namespace perfmarker::profile
