#include "api/api_filter.h"

#include <fstream>

namespace perfmarker::atp {
namespace {

std::string trimmed(const std::string& s) {
    const char* ws = " \t\r\n\f\v";
    const size_t first = s.find_first_not_of(ws);
    if (first == std::string::npos) return {};
    return s.substr(first, s.find_last_not_of(ws) - first + 1);
}

}  // namespace

bool readApiFilter(const std::string& path, std::set<std::string>& names, std::string& error) {
    std::ifstream in(path);
    if (!in) {
        error = "cannot read the API filter file " + path;
        return false;
    }
    for (std::string line; std::getline(in, line);) {
        std::string name = trimmed(line);
        if (!name.empty()) names.insert(std::move(name));
    }
    return true;
}

}  // namespace perfmarker::atp
