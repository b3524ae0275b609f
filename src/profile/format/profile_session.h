// The environment contract of the profile mode (docs/profile.md#session): what `perfmarker
// profile` sets for the application and the profile agents read. Kept apart from the trace
// session's options (record/session_options.inc): a profile run records no trace.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace perfmarker::profile {

// Path of the process's `.csv`; its presence is what makes a profile session. `___PID___` in it
// becomes the process id (expandPidToken).
inline constexpr char kProfileOutputVariable[] = "PERFMARKER_PROFILE_OUTPUT";
// Comma-separated counter names (docs/profile.md#counters); absent or empty: no counters.
inline constexpr char kProfileCountersVariable[] = "PERFMARKER_COUNTERS";

inline constexpr std::string_view kPidToken = "___PID___";

// `path` with every `___PID___` replaced by `pid`.
inline std::string expandPidToken(std::string path, long pid) {
    const std::string value = std::to_string(pid);
    for (size_t at = path.find(kPidToken); at != std::string::npos;
         at = path.find(kPidToken, at + value.size())) {
        path.replace(at, kPidToken.size(), value);
    }
    return path;
}

// The names of a comma-separated list, blanks around each trimmed; empty entries are kept (as
// "") so that the caller can refuse them.
inline std::vector<std::string> splitCounterList(std::string_view list) {
    std::vector<std::string> names;
    if (list.empty()) return names;
    size_t start = 0;
    while (true) {
        const size_t comma = list.find(',', start);
        std::string_view name = list.substr(
            start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
        while (!name.empty() && (name.front() == ' ' || name.front() == '\t'))
            name.remove_prefix(1);
        while (!name.empty() && (name.back() == ' ' || name.back() == '\t')) name.remove_suffix(1);
        names.emplace_back(name);
        if (comma == std::string_view::npos) break;
        start = comma + 1;
    }
    return names;
}

// The path of the `.occupancy` file that goes with a `.csv` path: the extension replaced.
inline std::string occupancyPathFor(const std::string& csvPath) {
    const size_t slash = csvPath.rfind('/');
    const size_t dot = csvPath.rfind('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) {
        return csvPath + ".occupancy";
    }
    return csvPath.substr(0, dot) + ".occupancy";
}

}  // namespace perfmarker::profile
