// libFuzzer target: the kernel profile files (docs/summary.md#kernel-profile-files), read and
// summed up into their pages as `perfmarker summary` does (analysis/profile/profile_pages.h).
// The first byte picks the reader: even, the per-dispatch CSV; odd, the `.occupancy` file; the
// rest is the file. A file may be refused (false with a message naming its line) but must not
// crash the reader or the pages, and the pages it gives render in every output format.
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/profile/profile_pages.h"
#include "analysis/render.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using namespace perfmarker;
    if (size == 0) return 0;
    const bool occupancy = (data[0] & 1) != 0;
    std::istringstream in(std::string(reinterpret_cast<const char*>(data + 1), size - 1));
    analysis::ProfilePages pages;
    std::string error;
    const bool read =
        occupancy ? pages.addOccupancy(in, "input", error) : pages.addCsv(in, "input", error);
    // A refusal says where: the file's name, then the line when there is one.
    if (!read && error.rfind("input:", 0) != 0) std::abort();
    const std::vector<analysis::Table> tables = pages.tables();
    size_t bytes = 0;
    for (const analysis::OutputFormat format :
         {analysis::OutputFormat::Text, analysis::OutputFormat::Markdown,
          analysis::OutputFormat::Csv, analysis::OutputFormat::Json}) {
        bytes += analysis::render(tables, format).size();
    }
    (void)bytes;
    return 0;
}
