#include "record/fragment.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <tuple>
#include <utility>

#include "atp/format/safe_files.h"

namespace perfmarker::record {
namespace {

bool parseNumber(const std::string& s, size_t& pos, char stop, uint64_t& out) {
    size_t end = s.find(stop, pos);
    if (end == std::string::npos || end == pos || end - pos > 19) return false;
    out = 0;
    for (size_t i = pos; i < end; ++i) {
        if (s[i] < '0' || s[i] > '9') return false;
        out = out * 10 + static_cast<uint64_t>(s[i] - '0');
    }
    pos = end + 1;
    return true;
}

// Parses "<pid>_<index>.<tag>.frag".
bool parseFragmentName(const std::string& name, const std::string& tag, FragmentFile& info) {
    const std::string suffix = "." + tag + ".frag";
    if (name.size() <= suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0) {
        return false;
    }
    std::string stem = name.substr(0, name.size() - suffix.size()) + ".";
    size_t pos = 0;
    return parseNumber(stem, pos, '_', info.pid) && parseNumber(stem, pos, '.', info.index) &&
           pos == stem.size();
}

// Walks the blocks of a mapped fragment: `block` gets each header, its record bytes' offset and
// the bytes that are there (fewer than the header says for a block cut short at the end). False
// when the file ends inside a block or a block header (the process died inside write()).
template <typename Block>
bool walkBlocks(const unsigned char* data, size_t size, Block&& block) {
    size_t pos = sizeof(FragmentHeader);
    while (pos + sizeof(BlockHeader) <= size) {
        BlockHeader h;
        std::memcpy(&h, data + pos, sizeof h);
        pos += sizeof h;
        const size_t have = std::min<size_t>(h.bytes, size - pos);
        block(h, pos, have);
        if (have < h.bytes) return false;
        pos += have;
    }
    return pos == size;
}

// Pages read are given back as the reading goes on: the file's pages are in the page cache
// anyway, and the reader's memory stays bounded however long the trace
// (docs/format.md#fragments).
constexpr size_t kReleaseBytes = size_t{4} << 20;

void releasePages(const unsigned char* from, const unsigned char* to) {
    static const auto page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
    const uintptr_t begin = reinterpret_cast<uintptr_t>(from) & ~(page - 1);
    const uintptr_t end = reinterpret_cast<uintptr_t>(to) & ~(page - 1);
    if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_DONTNEED);
}

}  // namespace

std::string fragmentFileName(uint64_t pid, uint64_t index, const std::string& tag) {
    return std::to_string(pid) + "_" + std::to_string(index) + "." + tag + ".frag";
}

std::vector<FragmentFile> listFragments(const std::string& dir, uint64_t pid,
                                        const std::string& tag) {
    std::vector<FragmentFile> out;
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return out;
    while (dirent* e = readdir(d)) {
        FragmentFile info;
        if (parseFragmentName(e->d_name, tag, info) && info.pid == pid) {
            info.path = dir + "/" + e->d_name;
            out.push_back(std::move(info));
        }
    }
    closedir(d);
    std::sort(out.begin(), out.end(),
              [](const FragmentFile& a, const FragmentFile& b) { return a.index < b.index; });
    return out;
}

void MappedFragment::touched(size_t bytes) const {
    m_touched += bytes;
    if (m_touched < kReleaseBytes) return;
    releasePages(m_data, m_data + m_size);
    m_touched = 0;
}

MappedFragment::~MappedFragment() {
    if (m_data != nullptr) munmap(const_cast<unsigned char*>(m_data), m_size);
}

bool MappedFragment::open(const std::string& path, std::string& error) {
    m_path = path;
    // Only our own regular files: a name in a shared directory could be anyone's.
    const int fd = atp::openOwnFile(path);
    if (fd < 0) {
        error = path + ": " +
                (errno == EPERM || errno == ELOOP ? std::string("not a file of this user, not read")
                                                  : std::string(std::strerror(errno)));
        return false;
    }
    struct stat st {};
    fstat(fd, &st);
    const auto size = static_cast<size_t>(st.st_size);
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
    m_data = static_cast<const unsigned char*>(map);
    m_size = size;
    if (std::memcmp(m_data, kFragmentMagic, sizeof kFragmentMagic) != 0) {
        error = path + ": not a fragment (bad magic)";
        return false;
    }
    FragmentHeader h;
    std::memcpy(&h, m_data, sizeof h);
    m_pid = h.pid;
    return true;
}

std::vector<FragmentStream> MappedFragment::streams(bool* cut) const {
    if (cut != nullptr) *cut = false;
    std::map<std::pair<uint64_t, uint64_t>, FragmentStream> byThread;
    const bool whole =
        walkBlocks(m_data, m_size, [&](const BlockHeader& h, size_t offset, size_t have) {
            touched(sizeof h + have);
            FragmentStream& s = byThread[{h.tid, h.serial}];
            s.cut = s.cut || have < h.bytes;
            if (have == 0) return;
            if (!s.extents.empty() && s.extents.back().offset + s.extents.back().bytes == offset) {
                s.extents.back().bytes += have;
            } else {
                s.extents.push_back({offset, have});
            }
            s.bytes += have;
        });
    if (cut != nullptr) *cut = !whole;
    std::vector<FragmentStream> out;
    out.reserve(byThread.size());
    for (auto& [key, stream] : byThread) {
        stream.path = m_path;
        stream.tid = key.first;
        stream.serial = key.second;
        out.push_back(std::move(stream));
    }
    return out;
}

void MappedFragment::read(const FragmentStream& stream,
                          const std::function<void(const RecordView&)>& visit,
                          bool* truncated) const {
    if (truncated != nullptr) *truncated = stream.cut;
    RecordView view;
    for (const FragmentStream::Extent& e : stream.extents) {
        if (e.offset > m_size || e.bytes > m_size - e.offset) {
            if (truncated != nullptr) *truncated = true;  // the file shrank since the scan
            return;
        }
        const unsigned char* p = m_data + e.offset;
        size_t released = 0;
        for (size_t pos = 0; pos < e.bytes;) {
            const size_t n = decodeRecord(p + pos, e.bytes - pos, view);
            if (n == 0) {
                if (truncated != nullptr) *truncated = true;
                return;
            }
            visit(view);
            pos += n;
            if (pos - released >= kReleaseBytes) {
                releasePages(p + released, p + pos);
                released = pos;
            }
        }
        touched(e.bytes - released);
    }
}

void MappedFragment::readAll(const std::function<void(const RecordView&)>& visit,
                             bool* truncated) const {
    if (truncated != nullptr) *truncated = false;
    bool cut = false;
    const bool whole =
        walkBlocks(m_data, m_size, [&](const BlockHeader&, size_t offset, size_t have) {
            if (cut) return;
            FragmentStream block;
            block.extents.push_back({offset, have});
            read(block, visit, &cut);
        });
    if (truncated != nullptr) *truncated = cut || !whole;
}

bool scanFragment(const std::string& path, std::vector<FragmentStream>& streams, std::string& error,
                  bool* cut) {
    MappedFragment file;
    if (!file.open(path, error)) return false;
    streams = file.streams(cut);
    return true;
}

bool readStream(const FragmentStream& stream, const std::function<void(const RecordView&)>& visit,
                std::string& error, bool* truncated) {
    MappedFragment file;
    if (!file.open(stream.path, error)) return false;
    file.read(stream, visit, truncated);
    return true;
}

bool readFragment(const std::string& path, const std::function<void(const RecordView&)>& visit,
                  std::string& error, bool* truncated) {
    MappedFragment file;
    if (!file.open(path, error)) return false;
    file.readAll(visit, truncated);
    return true;
}

}  // namespace perfmarker::record
