// What both agents' capture plans share (capture_plan_gen.cpp writes them at build time from
// the API catalogues): the rules of a plan, one per captured parameter, are in slot order, so a
// slot's rules are one consecutive run, found at compile time.
#pragma once

#include <cstddef>

namespace perfmarker::hooks {

// Index of the first rule of `slot` (or of the next slot's, when it has none). A Rule has a
// `slot` member.
template <typename Rule, size_t N>
constexpr unsigned firstRule(const Rule (&rules)[N], unsigned slot) {
    unsigned i = 0;
    while (i < N && rules[i].slot < slot) ++i;
    return i;
}

// Number of rules of `slot`.
template <typename Rule, size_t N>
constexpr unsigned ruleCount(const Rule (&rules)[N], unsigned slot) {
    const unsigned first = firstRule(rules, slot);
    unsigned n = 0;
    while (first + n < N && rules[first + n].slot == slot) ++n;
    return n;
}

template <typename Rule, size_t N>
constexpr bool isInSlotOrder(const Rule (&rules)[N]) {
    for (size_t i = 1; i < N; ++i) {
        if (rules[i - 1].slot > rules[i].slot) return false;
    }
    return true;
}

}  // namespace perfmarker::hooks
