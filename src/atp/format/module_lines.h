// The modules file of a traced process (docs/call-sites.md#the-modules-file): which module was
// loaded where, so that the call-site addresses the agents record can be symbolized after the
// process has exited. The agents write it with these functions (no libdw needed); the merge
// step reads it with atp/symbols/module_map.h.
//
//   # perfmarker modules 1
//   <load bias> <build-id hex or -> <escaped path> <begin>-<end> ...
//
// e.g. "0x7f12a0000000 3f2a9c /usr/lib/x86_64-linux-gnu/libfoo.so 0x7f12a0001000-0x7f12a0005000".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

struct dl_phdr_info;  // <link.h>

namespace perfmarker::atp {

// A process's modules file is `<pid><kModulesSuffix>` next to its fragments.
inline constexpr std::string_view kModulesSuffix = ".modules";

// The first line of a modules file (version 1 of the format).
inline constexpr std::string_view kModulesFileHeader = "# perfmarker modules 1";

// One executable PT_LOAD segment as mapped in the process: [begin, end), absolute addresses.
struct ExecRange {
    uint64_t begin = 0;
    uint64_t end = 0;
};

// Appends kModulesFileHeader and '\n'.
void appendModulesFileHeader(std::string& out);

// Appends one module line ending in '\n': the load bias (dl_phdr_info::dlpi_addr) as 0x-hex,
// the build-id bytes as lower-case hex ("-" when `buildIdSize` is 0), the path as one
// whitespace-free token (space -> &nbsp;, '&' -> &amp;, control bytes -> &#N;, as the marker
// names of atp/format/perfmarker_section.h), then each range as "0x<begin>-0x<end>".
// Allocates only through `out`.
void appendModuleLine(std::string& out, uint64_t loadBias, const uint8_t* buildId,
                      size_t buildIdSize, std::string_view path, const ExecRange* ranges,
                      size_t rangeCount);

// The same from what dl_iterate_phdr(3) gives for one object: the bias, the build-id read from
// its PT_NOTE segments in memory, and its executable PT_LOAD segments. `path` is the file to
// symbolize against: `info.dlpi_name`, except for the main program, whose name is empty there
// (pass executablePath()). Call it inside the dl_iterate_phdr callback (the segments may be
// unmapped after it returns).
void appendModuleLine(std::string& out, const dl_phdr_info& info, std::string_view path);

// The GNU build-id of a loaded object, read from its PT_NOTE segments in memory: its size
// (0 when it has none), with `*bits` pointing at the bytes inside the mapped object.
size_t loadedBuildId(const dl_phdr_info& info, const uint8_t** bits);

// The absolute path of the running executable (readlink of /proc/self/exe); empty on failure.
std::string executablePath();

// Appends one line per object loaded in the calling process now, in dl_iterate_phdr order (the
// main program first, under executablePath()); objects without a name and without a file
// (other than the main program) are left out. No header line.
void appendLoadedModules(std::string& out);

}  // namespace perfmarker::atp
