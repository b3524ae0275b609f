#include "profile/format/profile_file.h"

#include <unistd.h>

namespace perfmarker::profile {

bool ProfileFile::open(const std::string& target, std::string& error) {
    return m_rows.open(target, error);
}

bool ProfileFile::appendRow(const std::string& row, std::string& error) {
    if (!m_rows.append(row)) {
        error = "cannot write a row to " + m_rows.tempPath();
        return false;
    }
    ++m_count;
    return true;
}

bool ProfileFile::finish(const std::string& header, std::string& error) {
    const std::string rows = m_rows.tempPath();
    if (!m_rows.closeTemp()) {
        error = "cannot write " + target() + " (the rows are in " + rows + ")";
        return false;
    }
    StagedFile out;
    if (!out.open(target(), error)) {
        error += " (the rows are in " + rows + ")";
        return false;
    }
    if (!out.append(header) || !appendFileTo(rows, out)) {
        out.discard();
        error = "cannot write " + target() + " (the rows are in " + rows + ")";
        return false;
    }
    if (!out.finish(error)) {
        error += " (the rows are in " + rows + ")";
        return false;
    }
    unlink(rows.c_str());
    return true;
}

}  // namespace perfmarker::profile
