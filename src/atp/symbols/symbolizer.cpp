// Symbolizing call sites with libdwfl (docs/call-sites.md#names-and-lines). One Dwfl session per
// module, opened on the first address in it: modules recorded at overlapping addresses (one
// unloaded, another loaded there) never meet in one session.
#include "atp/symbols/symbolizer.h"

#include <cxxabi.h>
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

namespace perfmarker::symbols {
namespace {

std::string hexBytes(const uint8_t* bytes, size_t size) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    for (size_t i = 0; i < size; ++i) {
        out.push_back(kDigits[bytes[i] >> 4]);
        out.push_back(kDigits[bytes[i] & 0xf]);
    }
    return out;
}

std::string demangle(const char* name) {
    if (name == nullptr) return {};
    if (std::strncmp(name, "_Z", 2) != 0) return name;
    int status = 0;
    char* demangled = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    if (status != 0 || demangled == nullptr) return name;
    std::string out = demangled;
    std::free(demangled);
    return out;
}

// The name of a subprogram or inlined-subroutine DIE, its declaration's name when the DIE is
// an inlined or out-of-line instance (dwarf_attr_integrate follows the abstract origin).
std::string dieName(Dwarf_Die* die) {
    Dwarf_Attribute attr;
    const char* linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_linkage_name, &attr));
    if (linkage == nullptr)
        linkage = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &attr));
    if (linkage != nullptr) return demangle(linkage);
    const char* name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
    return name != nullptr ? name : std::string();
}

// The function whose code holds `pc` (in compile unit `cu`) as the debug information tells it:
// the innermost inlined subroutine or subprogram. `inlined` says which.
std::string dwarfFunction(Dwarf_Die* cu, Dwarf_Addr pc, Dwarf_Addr bias, bool& inlined) {
    inlined = false;
    Dwarf_Die* scopes = nullptr;
    const int count = dwarf_getscopes(cu, pc - bias, &scopes);
    std::string name;
    for (int i = 0; i < count; ++i) {
        const int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram) continue;
        inlined = tag == DW_TAG_inlined_subroutine;
        name = dieName(&scopes[i]);
        break;
    }
    std::free(scopes);
    return name;
}

// The symbol table's name: the function the code belongs to after inlining.
std::string symbolFunction(Dwfl_Module* module, Dwarf_Addr pc) {
    GElf_Off offset = 0;
    GElf_Sym symbol;
    return demangle(dwfl_module_addrinfo(module, pc, &offset, &symbol, nullptr, nullptr, nullptr));
}

// The address ranges of a module's compile units, sorted by their start (module addresses).
struct UnitRange {
    Dwarf_Addr low = 0;
    Dwarf_Addr high = 0;  // one past the end
    Dwarf_Die* unit = nullptr;
};

struct ModuleState {
    enum class Status : uint8_t { Unopened, Ready, Unusable };
    Status status = Status::Unopened;
    Dwfl* dwfl = nullptr;
    Dwfl_Module* module = nullptr;
    bool unitsListed = false;  // `units` built (at the first address .debug_aranges miss)
    Dwarf_Addr bias = 0;       // of every unit of the module
    std::vector<UnitRange> units;

    // The compile unit whose code holds `pc`. libdwfl finds it through .debug_aranges, which
    // Clang does not write unless asked (-gdwarf-aranges): without them, through the units'
    // own ranges, listed once (docs/call-sites.md#names-and-lines).
    Dwarf_Die* unitAt(Dwarf_Addr pc, Dwarf_Addr& unitBias) {
        if (Dwarf_Die* cu = dwfl_module_addrdie(module, pc, &unitBias)) return cu;
        if (!unitsListed) listUnits();
        unitBias = bias;
        auto after = std::upper_bound(units.begin(), units.end(), pc,
                                      [](Dwarf_Addr a, const UnitRange& r) { return a < r.low; });
        if (after == units.begin() || pc >= (after - 1)->high) return nullptr;
        return (after - 1)->unit;
    }

    void listUnits() {
        unitsListed = true;
        for (Dwarf_Die* cu = nullptr; (cu = dwfl_module_nextcu(module, cu, &bias)) != nullptr;) {
            Dwarf_Addr base = 0, start = 0, end = 0;
            for (ptrdiff_t at = 0; (at = dwarf_ranges(cu, at, &base, &start, &end)) > 0;) {
                if (start < end) units.push_back(UnitRange{start + bias, end + bias, cu});
            }
        }
        std::sort(units.begin(), units.end(),
                  [](const UnitRange& a, const UnitRange& b) { return a.low < b.low; });
    }
};

}  // namespace

struct Symbolizer::Impl {
    Impl(ModuleMap map, SymbolizerOptions options)
        : modules(std::move(map)), debugPath(std::move(options.debugPath)) {
        debugPathPointer = debugPath.data();
        callbacks.find_elf = dwfl_build_id_find_elf;
        callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
        callbacks.section_address = dwfl_offline_section_address;
        callbacks.debuginfo_path = debugPath.empty() ? nullptr : &debugPathPointer;
        states.resize(modules.size());
    }
    ~Impl() {
        for (ModuleState& state : states) {
            if (state.dwfl != nullptr) dwfl_end(state.dwfl);
        }
    }

    ModuleState& open(size_t index);
    bool matchesRecordedBuildId(const Module& module, Dwfl_Module* opened);
    void lookup(uint64_t returnAddress, CallSite& site);

    ModuleMap modules;
    std::string debugPath;
    char* debugPathPointer = nullptr;              // dwfl keeps a pointer to this pointer
    Dwfl_Callbacks callbacks{};                    // dwfl keeps a pointer to the callbacks
    std::vector<ModuleState> states;               // by module index
    std::unordered_map<uint64_t, CallSite> cache;  // by return address; nodes never move
    uint64_t lookups = 0;
    std::vector<std::string> warnings;
};

bool Symbolizer::Impl::matchesRecordedBuildId(const Module& module, Dwfl_Module* opened) {
    if (module.buildId.empty()) return true;  // nothing recorded to compare with
    const unsigned char* bits = nullptr;
    GElf_Addr vaddr = 0;
    const int size = dwfl_module_build_id(opened, &bits, &vaddr);
    if (size == static_cast<int>(module.buildId.size()) &&
        std::memcmp(bits, module.buildId.data(), module.buildId.size()) == 0) {
        return true;
    }
    const std::string found = size > 0 ? "build-id " + hexBytes(bits, size) : "no build-id";
    warnings.push_back("module " + module.path + ": the file has " + found + ", the run recorded " +
                       hexBytes(module.buildId.data(), module.buildId.size()) +
                       " (replaced after the run?): its call sites are not symbolized, they "
                       "show as " +
                       std::string(atp::moduleFileName(module.path)) + "+0x<offset>");
    return false;
}

ModuleState& Symbolizer::Impl::open(size_t index) {
    ModuleState& state = states[index];
    if (state.status != ModuleState::Status::Unopened) return state;
    state.status = ModuleState::Status::Unusable;
    const Module& module = modules.module(index);
    if (module.path.empty()) return state;
    Dwfl* dwfl = dwfl_begin(&callbacks);
    if (dwfl == nullptr) return state;
    dwfl_report_begin(dwfl);
    const std::string name(atp::moduleFileName(module.path));
    // add_p_vaddr: the file's addresses plus the bias are the addresses in memory (for a
    // fixed-address executable libdwfl ignores the bias, which the run recorded as 0).
    Dwfl_Module* opened =
        dwfl_report_elf(dwfl, name.c_str(), module.path.c_str(), -1, module.loadBias, true);
    dwfl_report_end(dwfl, nullptr, nullptr);
    if (opened == nullptr) {
        warnings.push_back("module " + module.path + ": cannot read it (" + dwfl_errmsg(-1) +
                           "): its call sites show as " + name + "+0x<offset>");
        dwfl_end(dwfl);
        return state;
    }
    if (!matchesRecordedBuildId(module, opened)) {
        dwfl_end(dwfl);
        return state;
    }
    state.status = ModuleState::Status::Ready;
    state.dwfl = dwfl;
    state.module = opened;
    return state;
}

void Symbolizer::Impl::lookup(uint64_t returnAddress, CallSite& site) {
    if (returnAddress == 0) return;
    // A return address points after the call: the call's own bytes end just before it (and a
    // call that ends a function or a segment returns past its end).
    const uint64_t pc = returnAddress - 1;
    const size_t index = modules.find(pc);
    if (index == ModuleMap::kNone) return;
    const Module& module = modules.module(index);
    site.module = module.path;
    site.offset = returnAddress - module.loadBias;
    ModuleState& state = open(index);
    if (state.status != ModuleState::Status::Ready) return;
    bool inlined = false;
    Dwarf_Addr bias = 0;
    Dwarf_Die* cu = state.unitAt(pc, bias);
    if (cu != nullptr) site.function = dwarfFunction(cu, pc, bias, inlined);
    if (!inlined) {
        std::string symbol = symbolFunction(state.module, pc);
        if (!symbol.empty()) site.function = std::move(symbol);
    }
    if (Dwarf_Line* line = cu != nullptr ? dwarf_getsrc_die(cu, pc - bias) : nullptr) {
        int number = 0;
        const char* file = dwarf_linesrc(line, nullptr, nullptr);
        if (dwarf_lineno(line, &number) == 0 && number > 0)
            site.line = static_cast<uint64_t>(number);
        if (file != nullptr) site.file = file;
    }
}

Symbolizer::Symbolizer(ModuleMap modules, SymbolizerOptions options)
    : m_impl(std::make_unique<Impl>(std::move(modules), std::move(options))) {}

Symbolizer::~Symbolizer() = default;

const CallSite& Symbolizer::resolve(uint64_t returnAddress) {
    auto [it, inserted] = m_impl->cache.try_emplace(returnAddress);
    if (inserted) {
        ++m_impl->lookups;
        m_impl->lookup(returnAddress, it->second);
    }
    return it->second;
}

void Symbolizer::appendStackLine(std::string& out, std::string_view api, uint64_t returnAddress) {
    atp::appendStackLine(out, api, resolve(returnAddress).text());
}

uint64_t Symbolizer::lookups() const { return m_impl->lookups; }

const std::vector<std::string>& Symbolizer::warnings() const { return m_impl->warnings; }

const ModuleMap& Symbolizer::modules() const { return m_impl->modules; }

}  // namespace perfmarker::symbols
