// How the OTF2 archive and the SQLite database are put in place (docs/export.md#otf2-and-sqlite):
// like every output of the tools they are written under a temporary name next to the target
// and renamed at the end (atp/read/staged_output.h), so a failed or abandoned export leaves
// nothing behind. Unlike the other formats they do not replace an existing output unless asked
// to (--force): a database or an archive is often the only copy of a long job's results. The
// check is made again at the rename, atomically where the file system allows it, so an output
// that appears while the export runs is not overwritten either.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "atp/read/staged_output.h"

namespace perfmarker::exporter::db {

// The message for an output that exists and may not be replaced: "<target>: exists; give
// --force to replace it".
std::string existsMessage(const std::string& target);

// Whether the database at `target` may be written: it does not exist, or `replace` is set and
// it is a regular file (or a link to one). False with `error` otherwise.
bool mayWriteFile(const std::string& target, bool replace, std::string& error);

// Whether the archive directory `target` may be written: it does not exist, or `replace` is set
// and it is an OTF2 archive of ours (a directory holding kOtf2AnchorName) or an empty directory.
// Anything else (a file, a directory of other files) is never replaced. False with `error`.
bool mayWriteArchive(const std::string& target, bool replace, std::string& error);

// The name of the archive's anchor file inside the archive directory (docs/otf2.md#layout).
inline constexpr const char* kOtf2ArchiveName = "traces";
inline constexpr const char* kOtf2AnchorName = "traces.otf2";

// One file written under a temporary name (the SQLite database).
class StagedFile {
public:
    // False with `error` when the target may not be written or the temporary file cannot be
    // created next to it.
    bool create(const std::string& target, bool replace, std::string& error);
    const std::string& path() const { return m_output.path(); }
    const std::string& target() const { return m_target; }
    // Puts the file in place. Without `replace` it is linked to the target name, which fails
    // when a file of that name appeared meanwhile. False with `error`; the temporary file is
    // then removed.
    bool commit(std::string& error);
    void discard() { m_output.discard(); }

private:
    atp::StagedOutput m_output;
    std::string m_target;
    bool m_replace = false;
};

// A directory written under a temporary name (the OTF2 archive): "<target>.tmp.<random>".
class StagedDirectory {
public:
    StagedDirectory() = default;
    ~StagedDirectory();  // discard()s a directory not committed
    StagedDirectory(const StagedDirectory&) = delete;
    StagedDirectory& operator=(const StagedDirectory&) = delete;

    bool create(const std::string& target, bool replace, std::string& error);
    const std::string& path() const { return m_path; }
    const std::string& target() const { return m_target; }
    // Renames the directory to the target. With `replace`, an archive already there is swapped
    // with it in one step where the file system can, and then removed. False with `error`; the
    // temporary directory is then removed and the target is as it was.
    bool commit(std::string& error);
    // Removes the temporary directory and everything in it.
    void discard();

private:
    bool replaceExisting(std::string& error);
    std::string m_target;
    std::string m_path;
    bool m_replace = false;
};

// What an OTF2 or SQLite export wrote and left out, for the command's last message
// (docs/export.md#unknown-times).
struct ExportCounts {
    uint64_t processes = 0;
    uint64_t apiCalls = 0;  // OTF2: calls with usable times; SQLite: every call
    uint64_t commands = 0;  // device commands, HSA kernel dispatches and async copies written
    uint64_t markers = 0;
    uint64_t callsLeftOut = 0;     // OTF2 only: API calls without usable host times
    uint64_t commandsLeftOut = 0;  // commands, dispatches and copies without usable device times
};

// "19 API calls, 7 device commands, 4 markers of 1 process; left out: 2 device commands
// without usable device times".
std::string describeCounts(const ExportCounts& counts);

// The interface the command asks an OTF2 or SQLite exporter for its counts through.
class CountedExport {
public:
    virtual ~CountedExport() = default;
    virtual ExportCounts counts() const = 0;
};

}  // namespace perfmarker::exporter::db
