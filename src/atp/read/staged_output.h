// How the tools write their output files (docs/export.md#how-outputs-are-written): each output
// is written under a temporary name in the directory of its target, "<target>.tmp.<random>"
// (created new, as atp/format/safe_files.h says), and renamed over the target only once the
// whole output is written (commit()). An output that fails, or is abandoned, removes its temporary
// file and leaves the target exactly as it was. A target that exists and is no regular file (a
// device such as /dev/stdout or /dev/full, a pipe) cannot be replaced: it is written directly.
#pragma once

#include <string>

namespace perfmarker::atp {

class StagedOutput {
public:
    StagedOutput() = default;
    // Removes the temporary file unless it was committed.
    ~StagedOutput();
    StagedOutput(const StagedOutput&) = delete;
    StagedOutput& operator=(const StagedOutput&) = delete;
    StagedOutput(StagedOutput&& other) noexcept;
    StagedOutput& operator=(StagedOutput&& other) noexcept;

    // Creates the temporary file for `target` (mode 0666 less the umask, or the mode of the
    // file it will replace). False with errno set when it cannot be created (no such
    // directory, no permission, ...).
    bool create(const std::string& target);
    // Where to write: the temporary file, or the target itself when it is written directly.
    const std::string& path() const { return m_path; }
    const std::string& target() const { return m_target; }
    // Whether the output goes through a temporary file (false: written directly, or none).
    bool staged() const { return m_staged; }

    // Renames the finished temporary file over the target (nothing to do for a direct one).
    // False with `error` = "<target>: cannot replace: <reason>"; the temporary file is removed.
    bool commit(std::string& error);
    // Removes the temporary file; the target stays as it was.
    void discard();

private:
    std::string m_target;
    std::string m_renameTo;  // the target, or the file a symbolic link at the target names
    std::string m_path;
    bool m_staged = false;
};

// Writes `text` to `path` as one StagedOutput. False with `error` = "cannot write <path>:
// <reason>"; `path` is then as it was.
bool writeStagedFile(const std::string& path, const std::string& text, std::string& error);

}  // namespace perfmarker::atp
