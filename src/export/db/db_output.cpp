#include "export/db/db_output.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

namespace perfmarker::exporter::db {
namespace {

namespace fs = std::filesystem;

// "run/" -> "run": the archive is named by its directory, with or without the slash.
std::string withoutTrailingSlashes(std::string path) {
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    return path;
}

std::string errnoText(int error) { return std::strerror(error); }

// rename() that fails with EEXIST instead of replacing an existing target. Where the file
// system has no such rename, an existing target is checked first (a small window remains).
int renameNoReplace(const std::string& from, const std::string& to) {
    if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS) return -1;
    struct stat status {};
    if (::lstat(to.c_str(), &status) == 0) {
        errno = EEXIST;
        return -1;
    }
    return ::rename(from.c_str(), to.c_str());
}

bool isOurArchive(const std::string& dir) {
    std::error_code error;
    const fs::file_status status = fs::symlink_status(dir, error);
    if (error || !fs::is_directory(status)) return false;
    if (fs::is_empty(dir, error) && !error) return true;
    return fs::is_regular_file(fs::path(dir) / kOtf2AnchorName, error);
}

}  // namespace

std::string existsMessage(const std::string& target) {
    return target + ": exists; give --force to replace it";
}

bool mayWriteFile(const std::string& target, bool replace, std::string& error) {
    struct stat status {};
    if (::stat(target.c_str(), &status) != 0) return true;  // absent (or unreachable: create says)
    if (!replace) {
        error = existsMessage(target);
        return false;
    }
    if (S_ISREG(status.st_mode)) return true;
    error = target + ": not a regular file; not replaced";
    return false;
}

bool mayWriteArchive(const std::string& given, bool replace, std::string& error) {
    const std::string target = withoutTrailingSlashes(given);
    struct stat status {};
    if (::lstat(target.c_str(), &status) != 0) return true;
    if (!replace) {
        error = existsMessage(target);
        return false;
    }
    if (isOurArchive(target)) return true;
    error = target + ": not an OTF2 archive (a directory holding " + kOtf2AnchorName +
            ") nor an empty directory; not replaced";
    return false;
}

bool StagedFile::create(const std::string& target, bool replace, std::string& error) {
    m_target = target;
    m_replace = replace;
    if (!mayWriteFile(target, replace, error)) return false;
    if (!m_output.create(target)) {
        error = target + ": cannot create: " + errnoText(errno);
        return false;
    }
    if (m_output.staged()) return true;
    // StagedOutput writes a device or a pipe directly: no database goes there.
    error = target + ": not a regular file; not replaced";
    m_output.discard();
    return false;
}

bool StagedFile::commit(std::string& error) {
    if (m_replace) return m_output.commit(error);
    // A hard link fails when the name exists: the database never replaces a file that appeared
    // while it was written. File systems without hard links fall back to a checked rename.
    if (::link(m_output.path().c_str(), m_target.c_str()) == 0) {
        m_output.discard();  // removes the temporary name; the target keeps the file
        return true;
    }
    const int linkError = errno;
    if (linkError == EEXIST || !mayWriteFile(m_target, false, error)) {
        error = existsMessage(m_target);
        m_output.discard();
        return false;
    }
    return m_output.commit(error);
}

StagedDirectory::~StagedDirectory() { discard(); }

bool StagedDirectory::create(const std::string& given, bool replace, std::string& error) {
    discard();
    m_target = withoutTrailingSlashes(given);
    m_replace = replace;
    if (!mayWriteArchive(m_target, replace, error)) return false;
    std::string pattern = m_target + ".tmp.XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) {
        error = m_target + ": cannot create: " + errnoText(errno);
        return false;
    }
    // mkdtemp makes it private; an archive gets the mode a new directory would have.
    static const mode_t mask = [] {  // read once: umask() is read by setting it
        const mode_t old = ::umask(022);
        ::umask(old);
        return old;
    }();
    ::chmod(pattern.c_str(), 0777 & ~mask);
    m_path = pattern;
    return true;
}

// Swaps the new archive with the old one in one step (renameat2 RENAME_EXCHANGE) and removes
// the old one; where the file system cannot swap, moves the old one aside first and back on
// failure.
bool StagedDirectory::replaceExisting(std::string& error) {
    if (::renameat2(AT_FDCWD, m_path.c_str(), AT_FDCWD, m_target.c_str(), RENAME_EXCHANGE) == 0) {
        discard();  // m_path now holds the old archive
        return true;
    }
    if (errno != EINVAL && errno != ENOSYS) {
        error = m_target + ": cannot replace: " + errnoText(errno);
        return false;
    }
    std::string aside = m_target + ".old.XXXXXX";
    if (::mkdtemp(aside.data()) == nullptr) {
        error = m_target + ": cannot replace: " + errnoText(errno);
        return false;
    }
    const std::string old = aside + "/archive";
    std::error_code ignored;
    if (::rename(m_target.c_str(), old.c_str()) != 0 ||
        ::rename(m_path.c_str(), m_target.c_str()) != 0) {
        error = m_target + ": cannot replace: " + errnoText(errno);
        ::rename(old.c_str(), m_target.c_str());  // back, when it had moved
        fs::remove_all(aside, ignored);
        return false;
    }
    m_path.clear();
    fs::remove_all(aside, ignored);
    return true;
}

bool StagedDirectory::commit(std::string& error) {
    if (m_path.empty()) {
        error = m_target + ": not created";
        return false;
    }
    bool done = false;
    if (renameNoReplace(m_path, m_target) == 0) {
        m_path.clear();
        done = true;
    } else if (errno == EEXIST || errno == ENOTEMPTY) {
        // Checked again: what is there now must still be an archive we may replace.
        done = mayWriteArchive(m_target, m_replace, error) && replaceExisting(error);
    } else {
        error = m_target + ": cannot create: " + errnoText(errno);
    }
    if (!done) discard();
    return done;
}

void StagedDirectory::discard() {
    if (m_path.empty()) return;
    std::error_code ignored;
    fs::remove_all(m_path, ignored);
    m_path.clear();
}

std::string describeCounts(const ExportCounts& counts) {
    std::string text =
        std::to_string(counts.apiCalls) + " API calls, " + std::to_string(counts.commands) +
        " device commands, " + std::to_string(counts.markers) + " markers of " +
        std::to_string(counts.processes) + (counts.processes == 1 ? " process" : " processes");
    std::string leftOut;
    if (counts.callsLeftOut > 0) {
        leftOut += std::to_string(counts.callsLeftOut) + " API calls without usable host times";
    }
    if (counts.commandsLeftOut > 0) {
        if (!leftOut.empty()) leftOut += ", ";
        leftOut +=
            std::to_string(counts.commandsLeftOut) + " device commands without usable device times";
    }
    if (!leftOut.empty()) text += "; left out: " + leftOut;
    return text;
}

}  // namespace perfmarker::exporter::db
