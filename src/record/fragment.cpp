#include "record/fragment.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <tuple>

#include "atp/format/safe_files.h"

namespace perfmarker::record {
namespace {

bool parseNumber(const std::string& s, size_t& pos, char stop, uint64_t& out) {
    size_t end = s.find(stop, pos);
    if (end == std::string::npos || end == pos) return false;
    out = 0;
    for (size_t i = pos; i < end; ++i) {
        if (s[i] < '0' || s[i] > '9') return false;
        out = out * 10 + static_cast<uint64_t>(s[i] - '0');
    }
    pos = end + 1;
    return true;
}

// Parses "<pid>_<tid>_<serial>.<tag>.frag".
bool parseFragmentName(const std::string& name, const std::string& tag, FragmentInfo& info) {
    const std::string suffix = "." + tag + ".frag";
    if (name.size() <= suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
        return false;
    }
    std::string stem = name.substr(0, name.size() - suffix.size()) + ".";
    size_t pos = 0;
    return parseNumber(stem, pos, '_', info.pid) && parseNumber(stem, pos, '_', info.tid) &&
           parseNumber(stem, pos, '.', info.serial) && pos == stem.size();
}

}  // namespace

std::string fragmentFileName(uint64_t pid, uint64_t tid, uint64_t serial, const std::string& tag) {
    return std::to_string(pid) + "_" + std::to_string(tid) + "_" + std::to_string(serial) + "." +
           tag + ".frag";
}

std::vector<FragmentInfo> listFragments(const std::string& dir, uint64_t pid,
                                        const std::string& tag) {
    std::vector<FragmentInfo> out;
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return out;
    while (dirent* e = readdir(d)) {
        FragmentInfo info;
        if (parseFragmentName(e->d_name, tag, info) && info.pid == pid) {
            info.path = dir + "/" + e->d_name;
            out.push_back(std::move(info));
        }
    }
    closedir(d);
    std::sort(out.begin(), out.end(), [](const FragmentInfo& a, const FragmentInfo& b) {
        return std::tie(a.tid, a.serial) < std::tie(b.tid, b.serial);
    });
    return out;
}

bool readFragment(const std::string& path, const std::function<void(const RecordView&)>& visit,
                  std::string& error, bool* truncated) {
    if (truncated != nullptr) *truncated = false;
    // Only our own regular files: a name in a shared directory could be anyone's.
    int fd = atp::openOwnFile(path);
    if (fd < 0) {
        error = path + ": " +
                (errno == EPERM || errno == ELOOP ? std::string("not a file of this user, not read")
                                                  : std::string(std::strerror(errno)));
        return false;
    }
    struct stat st {};
    fstat(fd, &st);
    size_t size = static_cast<size_t>(st.st_size);
    if (size < sizeof(FragmentHeader)) {
        close(fd);
        error = path + ": not a fragment (too short)";
        return false;
    }
    void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (map == MAP_FAILED) {
        error = path + ": " + std::strerror(errno);
        return false;
    }
    const auto* bytes = static_cast<const unsigned char*>(map);
    bool ok = std::memcmp(bytes, kFragmentMagic, sizeof kFragmentMagic) == 0;
    if (!ok) {
        error = path + ": not a fragment (bad magic)";
    } else {
        size_t pos = sizeof(FragmentHeader);
        RecordView view;
        while (pos < size) {
            size_t n = decodeRecord(bytes + pos, size - pos, view);
            if (n == 0) {
                if (truncated != nullptr) *truncated = true;
                break;
            }
            visit(view);
            pos += n;
        }
    }
    munmap(map, size);
    return ok;
}

}  // namespace perfmarker::record
