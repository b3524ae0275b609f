// What the call-site tests share (callsite_support.h).
#include "callsite_support.h"

#include <dlfcn.h>
#include <elfutils/libdwelf.h>
#include <fcntl.h>
#include <gelf.h>
#include <gtest/gtest.h>
#include <link.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "atp/format/module_lines.h"

namespace perfmarker::symbols::test {
namespace {

Site symbol(void* handle, const char* name) {
    void* address = dlsym(handle, name);
    EXPECT_NE(address, nullptr) << name << ": " << dlerror();
    return reinterpret_cast<Site>(address);
}

}  // namespace

extern "C" __attribute__((noinline)) void* pmCaptureReturnAddress() {
    return __builtin_return_address(0);
}

const CallSiteLibrary& callSiteLibrary() {
    static const CallSiteLibrary library = [] {
        CallSiteLibrary out;
        void* handle = dlopen(PM_CALLSITE_LIBRARY, RTLD_NOW | RTLD_LOCAL);
        EXPECT_NE(handle, nullptr) << dlerror();
        if (handle == nullptr) return out;
        out.first = symbol(handle, "pm_first_site");
        out.second = symbol(handle, "pm_second_site");
        out.hidden = symbol(handle, "pm_call_hidden");
        out.wrapper = symbol(handle, "pm_wrapper_site");
        out.inlined = symbol(handle, "pm_inline_site");
        return out;
    }();
    return library;
}

uint64_t returnAddressFrom(Site site) {
    return reinterpret_cast<uint64_t>(site(&pmCaptureReturnAddress));
}

uint64_t siteLine(const char* source, std::string_view name) {
    std::ifstream in(source);
    const std::string marker = "SITE " + std::string(name);
    std::string line;
    for (uint64_t number = 1; std::getline(in, line); ++number) {
        if (line.find(marker) != std::string::npos) return number;
    }
    ADD_FAILURE() << "no '" << marker << "' in " << source;
    return 0;
}

ModuleMap processModules() {
    std::string text;
    atp::appendModulesFileHeader(text);
    atp::appendLoadedModules(text);
    std::istringstream in(text);
    ModuleMap map;
    std::vector<std::string> errors;
    EXPECT_TRUE(readModules(in, "process", map, errors));
    EXPECT_TRUE(errors.empty()) << errors.front() << "\n" << text;
    return map;
}

const Module& moduleAt(const ModuleMap& map, uint64_t address) {
    const size_t index = map.find(address);
    EXPECT_NE(index, ModuleMap::kNone) << std::hex << address;
    static const Module kNoModule;
    return index == ModuleMap::kNone ? kNoModule : map.module(index);
}

std::vector<ExecRange> rangesAt(uint64_t address) {
    struct Search {
        uint64_t address;
        std::vector<ExecRange> ranges;
    } search{address, {}};
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* data) {
            auto& s = *static_cast<Search*>(data);
            std::vector<ExecRange> ranges;
            bool holds = false;
            for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
                const ElfW(Phdr)& phdr = info->dlpi_phdr[i];
                if (phdr.p_type != PT_LOAD || (phdr.p_flags & PF_X) == 0) continue;
                const uint64_t begin = info->dlpi_addr + phdr.p_vaddr;
                ranges.push_back({begin, begin + phdr.p_memsz});
                holds = holds || (s.address >= begin && s.address < begin + phdr.p_memsz);
            }
            if (holds) s.ranges = ranges;
            return holds ? 1 : 0;
        },
        &search);
    return search.ranges;
}

std::vector<uint8_t> fileBuildId(const std::string& path) {
    std::vector<uint8_t> out;
    elf_version(EV_CURRENT);
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return out;
    if (Elf* elf = elf_begin(fd, ELF_C_READ, nullptr)) {
        const void* bits = nullptr;
        const ssize_t size = dwelf_elf_gnu_build_id(elf, &bits);
        if (size > 0) {
            const auto* bytes = static_cast<const uint8_t*>(bits);
            out.assign(bytes, bytes + size);
        }
        elf_end(elf);
    }
    close(fd);
    return out;
}

void noDebuginfod() { unsetenv("DEBUGINFOD_URLS"); }

}  // namespace perfmarker::symbols::test
