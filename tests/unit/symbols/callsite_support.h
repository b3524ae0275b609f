// What the call-site tests share (tests/unit/symbols): the test library of the "application"
// loaded into this process, real return addresses captured at its call sites, and the modules
// of this process read back through the modules file.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "atp/symbols/module_map.h"

namespace perfmarker::symbols::test {

using Callee = void* (*)();
using Site = void* (*)(Callee);

// The library built with -g -O0 (callsite_app.c, callsite_wrapper.cpp), loaded with dlopen.
struct CallSiteLibrary {
    Site first = nullptr;    // pm_first_site
    Site second = nullptr;   // pm_second_site
    Site hidden = nullptr;   // pm_call_hidden -> the static pm_hidden_site
    Site wrapper = nullptr;  // pm_wrapper_site -> pmtest::Queue<int>::enqueue
    Site inlined = nullptr;  // pm_inline_site, with pm_inlined_call inlined into it
};
const CallSiteLibrary& callSiteLibrary();

// The return address of a call made at `site` (what an agent records for a traced call).
uint64_t returnAddressFrom(Site site);

// A function of this executable, for addresses in the main program.
extern "C" void* pmCaptureReturnAddress();

// The number of the line of `source` holding "SITE <name>".
uint64_t siteLine(const char* source, std::string_view name);

// The modules of this process now, written with atp::appendLoadedModules() and read back.
ModuleMap processModules();

// The module of `map` that holds `address` (fails the test when none does).
const Module& moduleAt(const ModuleMap& map, uint64_t address);

// The executable ranges of the module at `address` in this process (from dl_iterate_phdr).
std::vector<ExecRange> rangesAt(uint64_t address);

// The GNU build-id of an ELF file on disk (empty when it has none or cannot be read).
std::vector<uint8_t> fileBuildId(const std::string& path);

// Keeps the tests off the network: elfutils asks debuginfod servers when DEBUGINFOD_URLS is set.
void noDebuginfod();

}  // namespace perfmarker::symbols::test
