// Number formatting of the summary pages (docs/summary.md#pages) and a bounded "top N" list.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace perfmarker::analysis {

// ns as milliseconds with 5 decimals ("0" for exactly 0), rounded half up to 10 ns.
std::string formatMs(uint64_t ns);
// The same for a mean, which need not be a whole number of ns.
std::string formatMsMean(uint64_t totalNs, uint64_t count);
// "x.xx Byte", "x.xx KB", "x.xx MB", "x.xx GB" (1024-based, 2 decimals). The original also
// left-padded to 15 characters; the renderers align columns instead.
std::string formatSize(uint64_t bytes);
// MiB per second with 3 decimals; "NA" when the duration is 0, or below 1000 ns for image and
// map commands (`strictShort`), whose device times are too coarse for a rate.
std::string formatRate(uint64_t bytes, uint64_t ns, bool strictShort = false);
// part / total as a percentage with 2 decimals ("0.00" when total is 0).
std::string formatPercent(uint64_t part, uint64_t total);

// Duration of an interval: end - start, 0 when end <= start (docs/summary.md#pages).
inline uint64_t durationNs(uint64_t start, uint64_t end) { return end > start ? end - start : 0; }

// The `capacity` largest items by key seen so far; among equal keys the earliest stays. Memory
// is O(capacity) whatever the number of offers.
template <typename T>
class TopList {
public:
    explicit TopList(size_t capacity) : m_capacity(capacity) {}

    void offer(uint64_t key, T item) {
        if (m_capacity == 0) return;
        Entry entry{key, m_sequence++, std::move(item)};
        if (m_entries.size() < m_capacity) {
            m_entries.push_back(std::move(entry));
            return;
        }
        auto smallest = std::min_element(m_entries.begin(), m_entries.end(), ranksBelow);
        if (ranksBelow(*smallest, entry)) *smallest = std::move(entry);
    }

    // Largest key first; ties in arrival order.
    std::vector<T> sorted() const {
        std::vector<Entry> entries = m_entries;
        std::sort(entries.begin(), entries.end(),
                  [](const Entry& a, const Entry& b) { return ranksBelow(b, a); });
        std::vector<T> out;
        out.reserve(entries.size());
        for (Entry& entry : entries) out.push_back(std::move(entry.item));
        return out;
    }

    bool empty() const { return m_entries.empty(); }

    // Whether offer(key, ...) would keep the item: lets callers skip building rows that lose.
    bool wouldKeep(uint64_t key) const {
        if (m_entries.size() < m_capacity) return true;
        return std::any_of(m_entries.begin(), m_entries.end(),
                           [key](const Entry& e) { return e.key < key; });
    }

private:
    struct Entry {
        uint64_t key;
        uint64_t sequence;
        T item;
    };
    // a ranks below b: smaller key, or the same key and later arrival.
    static bool ranksBelow(const Entry& a, const Entry& b) {
        return a.key != b.key ? a.key < b.key : a.sequence > b.sequence;
    }

    size_t m_capacity;
    uint64_t m_sequence = 0;
    std::vector<Entry> m_entries;
};

// Count, total, min (ignoring zero durations) and max of a set of durations.
struct DurationStats {
    uint64_t count = 0;
    uint64_t totalNs = 0;
    uint64_t maxNs = 0;
    uint64_t minNs = 0;  // smallest non-zero duration, 0 when all were zero
    // `times` > 1: that many calls sharing `ns` (a collapsed clGetEventInfo line); each counts
    // with its share for the min and max.
    void add(uint64_t ns, uint64_t times = 1) {
        count += times;
        totalNs += ns;
        const uint64_t each = times > 1 ? ns / times : ns;
        maxNs = std::max(maxNs, each);
        if (each != 0 && (minNs == 0 || each < minNs)) minNs = each;
    }
};

}  // namespace perfmarker::analysis
