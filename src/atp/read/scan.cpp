// The run-time choice of the byte scanning's wide blocks (scan.h).
#include "atp/read/api_line_scan.h"

#include <cstdlib>

namespace perfmarker::atp::detail::scan {

bool cpuHasWideBlocks() {
#if PERFMARKER_SCAN_WIDE
    // (__builtin_cpu_supports also asks the operating system whether it saves the registers.)
    static const bool has = __builtin_cpu_supports("avx512f") &&
                            __builtin_cpu_supports("avx512bw") &&
                            std::getenv("PERFMARKER_NO_AVX512") == nullptr;
    return has;
#else
    return false;
#endif
}

#if PERFMARKER_SCAN_WIDE
[[PERFMARKER_SCAN_WIDE_TARGET]] const char* splitLineTokensWide(const char* p, const char* end,
                                                                Fields& fields) {
    return splitLineTokensIn<Wide64>(p, end, fields);
}

[[PERFMARKER_SCAN_WIDE_TARGET]] const char* splitApiLineWide(const char* p, const char* end,
                                                             ApiText& out,
                                                             std::vector<std::string_view>& params) {
    return splitApiLineIn<Wide64>(p, end, out, params);
}
#endif

}  // namespace perfmarker::atp::detail::scan
