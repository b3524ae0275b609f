// The wrapper of every slot, expanded from hsa_api_table.inc, and the table patching.
#pragma once

#include <set>
#include <string>

#include "hsa_runtime.h"

namespace perfmarker::hsatrace {

// What OnLoad found in the runtime's table.
struct TableCheck {
    bool usable = false;          // false: refuse (message says why)
    unsigned coreSlots = 0;       // slots present in the runtime's CoreApiTable
    unsigned amdExtSlots = 0;     // and in its AmdExtTable (0: none)
    std::string message;          // why not usable, or what is left out
};

// Checks versions and sizes; touches nothing.
TableCheck checkTable(const HsaApiTable* table);

// Saves the originals of the slots the check found and writes the wrappers in their place.
void installWrappers(HsaApiTable* table, const TableCheck& check);

// Puts the originals back into the slots that still hold our wrappers (another tool may have
// wrapped ours since). Safe to call once after installWrappers.
void restoreOriginals();

// The wrapper function of a slot (for tests and the restore check).
void* wrapperOf(unsigned slot);

// The APIs of the session's filter (hooks::sessionApiFilter) are not recorded.
void applyApiFilter(const std::set<std::string>& names);

}  // namespace perfmarker::hsatrace
