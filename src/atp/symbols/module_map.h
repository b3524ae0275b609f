// The reader side of the modules file (docs/call-sites.md#the-modules-file): which module a
// recorded address lies in. The writer is atp/format/module_lines.h (the agents link it without
// this module).
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "atp/format/module_lines.h"

namespace perfmarker::symbols {

using atp::ExecRange;

// One loaded module as recorded.
struct Module {
    uint64_t loadBias = 0;         // dlpi_addr: addresses in the file + bias = addresses in memory
    std::vector<uint8_t> buildId;  // empty when none was recorded
    std::string path;              // the file to symbolize against (unescaped)
};

// Address -> module. Ranges added later win over earlier ones where they overlap (a module
// unloaded with dlclose and another one loaded at its place), so add in file order.
class ModuleMap {
public:
    static constexpr size_t kNone = SIZE_MAX;

    // Adds `module` (or finds it, when the same bias, build-id and path were added before: a
    // module listed again by a later snapshot is one module) and maps `ranges` to it over
    // whatever was mapped there. Empty ranges are ignored. Returns the module's index.
    size_t add(const Module& module, const std::vector<ExecRange>& ranges);
    // The index of the module whose range holds `address`, or kNone.
    size_t find(uint64_t address) const;
    const Module& module(size_t index) const { return m_modules[index]; }
    size_t size() const { return m_modules.size(); }

private:
    void map(uint64_t begin, uint64_t end, size_t module);

    struct Segment {
        uint64_t end = 0;
        size_t module = 0;
    };
    std::map<uint64_t, Segment> m_segments;  // by begin; segments never overlap
    std::vector<Module> m_modules;
    std::map<std::tuple<uint64_t, std::vector<uint8_t>, std::string>, size_t> m_byIdentity;
};

// How many malformed lines readModules() names one by one; the rest are counted in one message.
inline constexpr size_t kMaxModuleErrors = 10;

// Reads a modules file into `map` (adding to what is there, so several files can be read in
// order). Never gives up on a malformed line: it is skipped and named in `errors` as
// "<name>:<line>: <what>" (a first line other than kModulesFileHeader too), and every well-formed
// line is still used. Returns false only when the input cannot be read at all (`errors` then
// ends with why).
bool readModules(std::istream& in, std::string_view name, ModuleMap& map,
                 std::vector<std::string>& errors);
bool readModulesFile(const std::string& path, ModuleMap& map, std::vector<std::string>& errors);

// One module line (without its '\n'), for readModules() and tests: false with `what` set
// ("expected ..., got '...'") when the line is malformed.
bool parseModuleLine(std::string_view line, Module& module, std::vector<ExecRange>& ranges,
                     std::string& what);

}  // namespace perfmarker::symbols
