// A profile output written safely (docs/profile.md#files): the text goes to a fresh
// `<target>.tmp.<random>` next to the target as it comes (so a crash leaves what was written
// there), and finish() renames it into place. The file is created with safe_files.h
// (docs/session.md#files-in-shared-directories).
#pragma once

#include <string>
#include <string_view>

namespace perfmarker::profile {

// Not thread-safe: callers serialise open, append and finish.
class StagedFile {
public:
    StagedFile() = default;
    ~StagedFile();  // closes; an unfinished temporary file stays where it is
    StagedFile(const StagedFile&) = delete;
    StagedFile& operator=(const StagedFile&) = delete;

    // Creates the temporary file next to `target`; false with `error` set when it cannot.
    bool open(const std::string& target, std::string& error);
    // Appends `text` (all of it, retrying short writes); false after a write error.
    bool append(std::string_view text);
    // Closes the temporary file and renames it to the target; false with `error` set when a
    // write failed or the rename did not happen (the temporary file is then removed).
    bool finish(std::string& error);
    // Closes the temporary file and leaves it where it is (tempPath()); false when a write
    // failed.
    bool closeTemp();
    // Closes and removes the temporary file without renaming.
    void discard();

    bool isOpen() const { return m_fd >= 0; }
    const std::string& target() const { return m_target; }
    const std::string& tempPath() const { return m_tempPath; }

private:
    int m_fd = -1;
    bool m_failed = false;
    std::string m_target;
    std::string m_tempPath;
};

// Appends the whole content of the file at `path` (opened with openOwnFile) to `out`.
bool appendFileTo(const std::string& path, StagedFile& out);

}  // namespace perfmarker::profile
