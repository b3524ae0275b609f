// The receipt a marker library's finalize leaves on the file it wrote (`<base>.clperfmarker`,
// docs/format.md#the-finished-files-receipt): an extended attribute that says how large the file
// was, when it was last written, how many thread blocks it holds and where they start. The merge
// takes a file whose receipt still matches as it is, with one in-kernel copy, instead of parsing
// every line to check it. A file without one (another library's, a filesystem without user
// attributes, a file changed since) is checked line by line as before.
#pragma once

#include <cstdint>

namespace perfmarker::atp {

inline constexpr char kFinishedReceiptName[] = "user.perfmarker.finished";

struct FinishedReceipt {
    uint64_t threads = 0;     // thread blocks in the file
    uint64_t bodyOffset = 0;  // where the first thread block starts (after the section line)
    uint64_t size = 0;        // the file's size when the receipt was written
};

// Sets the receipt on `fd`, a finished file whose last byte is written: its size and
// modification time now, `threads` and `bodyOffset`. 0, or the errno (ENOTSUP where the
// filesystem keeps no user attributes); a file without a receipt is only checked the slow way.
int writeFinishedReceipt(int fd, uint64_t threads, uint64_t bodyOffset);

// Reads the receipt of `fd`: true when it is there, well formed, and the file's size and
// modification time are still the ones it names.
bool readFinishedReceipt(int fd, FinishedReceipt& receipt);

}  // namespace perfmarker::atp
