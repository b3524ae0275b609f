// Reading per-thread fragment files back (at finalize, and by the merge step after a crash).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "record/record_format.h"

namespace perfmarker::record {

struct FragmentInfo {
    std::string path;
    uint64_t pid = 0;
    uint64_t tid = 0;
    uint64_t serial = 0;  // distinguishes threads that reused a tid
};

// File name of a fragment: "<pid>_<tid>_<serial>.<tag>.frag".
std::string fragmentFileName(uint64_t pid, uint64_t tid, uint64_t serial, const std::string& tag);

// Lists the fragments of process `pid` with tag `tag` in `dir`, sorted by (tid, serial).
std::vector<FragmentInfo> listFragments(const std::string& dir, uint64_t pid,
                                        const std::string& tag);

// Calls `visit` for every whole record of the fragment. Returns false with `error` when the
// file cannot be read or is not a fragment; a truncated last record (a crash mid-write) is
// not an error: `truncated` is set and the records before it are delivered.
bool readFragment(const std::string& path, const std::function<void(const RecordView&)>& visit,
                  std::string& error, bool* truncated = nullptr);

}  // namespace perfmarker::record
