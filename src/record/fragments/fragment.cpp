#include "record/fragments/fragment.h"

#include <dirent.h>
#include <fcntl.h>
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

bool readAt(int fd, void* into, size_t bytes, uint64_t offset) {
    auto* p = static_cast<unsigned char*>(into);
    while (bytes > 0) {
        const ssize_t n = ::pread(fd, p, bytes, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n;
        bytes -= static_cast<size_t>(n);
        offset += static_cast<uint64_t>(n);
    }
    return true;
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

FragmentReader::~FragmentReader() {
    if (m_fd >= 0) close(m_fd);
}

bool FragmentReader::open(const std::string& path, std::string& error) {
    m_path = path;
    // Only our own regular files: a name in a shared directory could be anyone's.
    m_fd = atp::openOwnFile(path);
    if (m_fd < 0) {
        error = path + ": " +
                (errno == EPERM || errno == ELOOP ? std::string("not a file of this user, not read")
                                                  : std::string(std::strerror(errno)));
        return false;
    }
    struct stat st {};
    fstat(m_fd, &st);
    m_size = static_cast<uint64_t>(st.st_size);
    FragmentHeader h{};
    if (m_size < sizeof h) {
        error = path + ": not a fragment (too short)";
        return false;
    }
    if (!readAt(m_fd, &h, sizeof h, 0)) {
        error = path + ": " + std::strerror(errno);
        return false;
    }
    if (std::memcmp(h.magic, kFragmentMagic, sizeof kFragmentMagic) != 0 &&
        std::memcmp(h.magic, kFragmentMagicV6, sizeof kFragmentMagicV6) != 0 &&
        std::memcmp(h.magic, kFragmentMagicV5, sizeof kFragmentMagicV5) != 0 &&
        std::memcmp(h.magic, kFragmentMagicV4, sizeof kFragmentMagicV4) != 0 &&
        std::memcmp(h.magic, kFragmentMagicV3, sizeof kFragmentMagicV3) != 0) {
        error = path + ": not a fragment (bad magic)";
        return false;
    }
    m_pid = h.pid;
    return true;
}

template <typename Block>
bool FragmentReader::walkBlocks(Block&& block) const {
    uint64_t pos = sizeof(FragmentHeader);
    while (pos + sizeof(BlockHeader) <= m_size) {
        BlockHeader h;
        if (!readAt(m_fd, &h, sizeof h, pos)) return false;
        pos += sizeof h;
        const uint64_t have = std::min<uint64_t>(h.bytes, m_size - pos);
        block(h, pos, have);
        if (have < h.bytes) return false;
        pos += have;
    }
    return pos == m_size;
}

std::vector<FragmentStream> FragmentReader::streams(bool* cut) const {
    std::map<std::pair<uint64_t, uint64_t>, FragmentStream> byThread;
    const bool whole = walkBlocks([&](const BlockHeader& h, uint64_t offset, uint64_t have) {
        FragmentStream& s = byThread[{h.tid, h.serial}];
        s.cut = s.cut || have < h.bytes;
        if (have == 0) return;
        s.extents.push_back({offset, have, h.records});
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

const unsigned char* FragmentReader::load(const FragmentStream::Extent& extent) const {
    const auto bytes = static_cast<size_t>(extent.bytes);
    if (m_buffer.size() < std::max<size_t>(bytes, 1)) m_buffer.resize(std::max<size_t>(bytes, 1));
    return readAt(m_fd, m_buffer.data(), bytes, extent.offset) ? m_buffer.data() : nullptr;
}

void FragmentReader::trimBuffer() const {
    constexpr size_t kKeptBuffer = size_t{4} << 20;
    if (m_buffer.size() > kKeptBuffer) std::vector<unsigned char>().swap(m_buffer);
}

void FragmentReader::readAll(const std::function<void(const RecordView&)>& visit,
                             bool* truncated) const {
    if (truncated != nullptr) *truncated = false;
    bool cut = false;
    const bool whole = walkBlocks([&](const BlockHeader& h, uint64_t offset, uint64_t have) {
        if (cut) return;
        FragmentStream block;
        block.extents.push_back({offset, have, h.records});
        read(block, visit, &cut);
    });
    if (truncated != nullptr) *truncated = cut || !whole;
}

bool scanFragment(const std::string& path, std::vector<FragmentStream>& streams, std::string& error,
                  bool* cut) {
    FragmentReader file;
    if (!file.open(path, error)) return false;
    streams = file.streams(cut);
    return true;
}

bool readStream(const FragmentStream& stream, const std::function<bool(const RecordView&)>& visit,
                std::string& error, bool* truncated) {
    FragmentReader file;
    if (!file.open(stream.path, error)) return false;
    file.read(stream, visit, truncated);
    return true;
}

bool readFragment(const std::string& path, const std::function<void(const RecordView&)>& visit,
                  std::string& error, bool* truncated) {
    FragmentReader file;
    if (!file.open(path, error)) return false;
    file.readAll(visit, truncated);
    return true;
}

}  // namespace perfmarker::record
