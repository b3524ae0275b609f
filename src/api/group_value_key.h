// A key of the API catalogues' hash maps: a value within a named group (an enum type, an info
// query's parameter group). Shared by the OpenCL and HSA catalogues.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace perfmarker::atp {

struct GroupValueKey {
    std::string_view group;
    int64_t value;
    bool operator==(const GroupValueKey& o) const { return value == o.value && group == o.group; }
};

struct GroupValueKeyHash {
    size_t operator()(const GroupValueKey& k) const {
        return std::hash<std::string_view>()(k.group) ^
               (static_cast<size_t>(k.value) * 0x9e3779b97f4a7c15ULL);
    }
};

}  // namespace perfmarker::atp
