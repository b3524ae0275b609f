// The writer side of the modules file (docs/call-sites.md#the-modules-file).
#include "atp/format/module_lines.h"

#include <link.h>
#include <unistd.h>

#include <cstring>
#include <vector>

#include "atp/format/perfmarker_section.h"

namespace perfmarker::atp {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";
constexpr uint32_t kGnuBuildIdNote = 3;  // NT_GNU_BUILD_ID
constexpr size_t kMaxRanges = 16;        // executable segments of one object; real ones have 1-2

void appendHex(std::string& out, uint64_t value) {
    char buffer[16];
    size_t first = sizeof buffer;
    do {
        buffer[--first] = kHexDigits[value & 0xf];
        value >>= 4;
    } while (value != 0);
    out.append("0x");
    out.append(buffer + first, sizeof buffer - first);
}

size_t alignUp(size_t value, size_t alignment) {
    return (value + alignment - 1) / alignment * alignment;
}

// The build-id note of one PT_NOTE segment, or 0. Notes are padded to the segment's alignment
// (4, or 8 for segments that hold only 8-aligned notes).
size_t buildIdInNotes(const uint8_t* notes, size_t size, size_t alignment, const uint8_t** bits) {
    size_t pos = 0;
    while (pos + sizeof(ElfW(Nhdr)) <= size) {
        ElfW(Nhdr) header;
        std::memcpy(&header, notes + pos, sizeof header);
        const size_t nameAt = pos + sizeof header;
        const size_t descAt = nameAt + alignUp(header.n_namesz, alignment);
        const size_t next = descAt + alignUp(header.n_descsz, alignment);
        if (descAt > size || descAt + header.n_descsz > size) return 0;
        if (header.n_type == kGnuBuildIdNote && header.n_namesz == 4 &&
            std::memcmp(notes + nameAt, "GNU", 4) == 0 && header.n_descsz > 0) {
            *bits = notes + descAt;
            return header.n_descsz;
        }
        pos = next;
    }
    return 0;
}

}  // namespace

void appendModulesFileHeader(std::string& out) {
    out.append(kModulesFileHeader);
    out.push_back('\n');
}

void appendModuleLine(std::string& out, uint64_t loadBias, const uint8_t* buildId,
                      size_t buildIdSize, std::string_view path, const ExecRange* ranges,
                      size_t rangeCount) {
    appendHex(out, loadBias);
    out.push_back(' ');
    if (buildIdSize == 0) out.push_back('-');
    for (size_t i = 0; i < buildIdSize; ++i) {
        out.push_back(kHexDigits[buildId[i] >> 4]);
        out.push_back(kHexDigits[buildId[i] & 0xf]);
    }
    out.push_back(' ');
    appendEscapedToken(out, path);
    for (size_t i = 0; i < rangeCount; ++i) {
        out.push_back(' ');
        appendHex(out, ranges[i].begin);
        out.push_back('-');
        appendHex(out, ranges[i].end);
    }
    out.push_back('\n');
}

size_t loadedBuildId(const dl_phdr_info& info, const uint8_t** bits) {
    for (ElfW(Half) i = 0; i < info.dlpi_phnum; ++i) {
        const ElfW(Phdr)& phdr = info.dlpi_phdr[i];
        if (phdr.p_type != PT_NOTE) continue;
        const auto* notes = reinterpret_cast<const uint8_t*>(info.dlpi_addr + phdr.p_vaddr);
        const size_t alignment = phdr.p_align == 8 ? 8 : 4;
        const size_t size = buildIdInNotes(notes, phdr.p_memsz, alignment, bits);
        if (size != 0) return size;
    }
    return 0;
}

void appendModuleLine(std::string& out, const dl_phdr_info& info, std::string_view path) {
    ExecRange ranges[kMaxRanges];
    size_t count = 0;
    for (ElfW(Half) i = 0; i < info.dlpi_phnum && count < kMaxRanges; ++i) {
        const ElfW(Phdr)& phdr = info.dlpi_phdr[i];
        if (phdr.p_type != PT_LOAD || (phdr.p_flags & PF_X) == 0) continue;
        const uint64_t begin = info.dlpi_addr + phdr.p_vaddr;
        ranges[count++] = {begin, begin + phdr.p_memsz};
    }
    const uint8_t* buildId = nullptr;
    const size_t buildIdSize = loadedBuildId(info, &buildId);
    appendModuleLine(out, info.dlpi_addr, buildId, buildIdSize, path, ranges, count);
}

std::string executablePath() {
    std::vector<char> buffer(4096);
    for (;;) {
        const ssize_t n = readlink("/proc/self/exe", buffer.data(), buffer.size());
        if (n < 0) return {};
        if (static_cast<size_t>(n) < buffer.size()) return std::string(buffer.data(), n);
        buffer.resize(buffer.size() * 2);
    }
}

void appendLoadedModules(std::string& out) {
    struct Walk {
        std::string* out;
        std::string executable;
        bool first = true;
    } walk{&out, executablePath()};
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
            auto& w = *static_cast<Walk*>(data);
            const bool main = w.first;
            w.first = false;
            const char* name = info->dlpi_name;
            if (name != nullptr && *name != '\0') {
                appendModuleLine(*w.out, *info, name);
            } else if (main) {
                appendModuleLine(*w.out, *info, w.executable);
            }
            return 0;
        },
        &walk);
}

}  // namespace perfmarker::atp
