// The reader of the per-dispatch kernel profile CSV (docs/summary.md#kernel-profile-files): ours
// (profile/format/profile_csv.h: the original's columns plus `PrivateMemSize`) and the original's,
// with any list separator (`#ListSeparator=`, else the character after `Method` in the column
// line), the OpenCL and the HSA column sets, counter columns of any name after the fixed ones,
// `NA` values, `NULL` work-group sizes and `{  1024       1       1}` sizes. Rows are announced one
// at a time, so memory does not grow with the file; loadProfileCsv() keeps them all.
#pragma once

#include <cstdint>
#include <functional>
#include <istream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "profile/format/profile_csv.h"

namespace perfmarker::profile {

// What a profile CSV says besides its rows.
struct ProfileCsvInfo {
    std::string file;  // as given to the reader
    // The `#Key=Value` lines in file order (`#Device <name> Platform Vendor` is one key).
    std::vector<std::pair<std::string, std::string>> header;
    ProfileApi api = ProfileApi::OpenCL;
    char listSeparator = ',';
    std::vector<std::string> columns;  // as in the column line
    // The columns that are no fixed column, in file order. A counter is Integer when every value
    // of it is a whole number written without a decimal point, exponent or sign; its kind is
    // final once the last row was read.
    std::vector<CounterColumn> counters;
    bool hasTime = false;  // the column is absent in HSA files and with the original's -G
    uint64_t rowCount = 0;

    // The value of the first header line with `key`; nullptr when none.
    const std::string* headerValue(std::string_view key) const;
};

// Called with every row in file order; `line` is its line number. DispatchRow::counters holds
// one value per ProfileCsvInfo::counters entry, NaN for `NA`. Fixed columns the file does not
// have are left at their defaults (empty optionals, 0).
using DispatchRowHandler = std::function<void(const DispatchRow& row, uint64_t line)>;

// Reads the CSV from `in`; `file` names it in messages. False with `error` = "<file>:<line>:
// <what>" (or "<file>: <what>") on the first problem: no column line, a column line without
// Method, ExecutionOrder, ThreadID, GlobalWorkSize or WorkGroupSize, a row with another number
// of values than columns, a value that is no number, `NA` or size where one is expected. A file
// with a column line and no rows is valid (zero dispatches).
bool readProfileCsv(std::istream& in, const std::string& file, ProfileCsvInfo& info,
                    const DispatchRowHandler& onRow, std::string& error);
// The same for a file; an error names the file when it cannot be opened or read.
bool readProfileCsvFile(const std::string& path, ProfileCsvInfo& info,
                        const DispatchRowHandler& onRow, std::string& error);

// A whole profile: what it says and every row, in file order.
struct ProfileCsv {
    ProfileCsvInfo info;
    std::vector<DispatchRow> rows;
};
bool loadProfileCsv(const std::string& path, ProfileCsv& profile, std::string& error);

// A `Method` value taken apart: `reduce__k1_Fiji1` is kernel `reduce`, kernel id 1, device
// `Fiji1` (the device name and its 1-based number, as written); `mul__k3_CPU` is device `CPU`.
// A method without the `__k<id>_<device>` suffix is the kernel's name alone.
struct MethodName {
    std::string kernel;
    std::string device;  // "" when the method has no suffix
    bool hasKernelId = false;
    uint64_t kernelId = 0;
};
MethodName splitMethod(std::string_view method);

}  // namespace perfmarker::profile
