#include "analysis/format.h"

#include <cstdio>

namespace perfmarker::analysis {
namespace {

std::string printed(const char* format, double value) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, format, value);
    return buffer;
}

}  // namespace

std::string formatMs(uint64_t ns) {
    if (ns == 0) return "0";
    // Integer arithmetic so that the text never depends on floating-point rounding.
    const uint64_t tensOfNs = ns / 10 + (ns % 10 >= 5 ? 1 : 0);
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%llu.%05llu",
                  static_cast<unsigned long long>(tensOfNs / 100000),
                  static_cast<unsigned long long>(tensOfNs % 100000));
    return buffer;
}

std::string formatMsMean(uint64_t totalNs, uint64_t count) {
    if (count == 0 || totalNs == 0) return "0";
    return printed("%.5f", static_cast<double>(totalNs) / static_cast<double>(count) * 1e-6);
}

std::string formatSize(uint64_t bytes) {
    static const char* const kUnits[] = {"Byte", "KB", "MB", "GB"};
    double value = static_cast<double>(bytes);
    size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < sizeof kUnits / sizeof kUnits[0]) {
        value /= 1024.0;
        ++unit;
    }
    return printed("%.2f", value) + " " + kUnits[unit];
}

std::string formatRate(uint64_t bytes, uint64_t ns, bool strictShort) {
    if (ns == 0 || (strictShort && ns < 1000)) return "NA";
    const double mib = static_cast<double>(bytes) / (1024.0 * 1024.0);
    return printed("%.3f", mib / (static_cast<double>(ns) * 1e-9));
}

std::string formatPercent(uint64_t part, uint64_t total) {
    if (total == 0) return "0.00";
    return printed("%.2f", static_cast<double>(part) * 100.0 / static_cast<double>(total));
}

}  // namespace perfmarker::analysis
