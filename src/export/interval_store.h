// Intervals with a payload each, grouped by location, in bounded memory (docs/export.md#memory):
// they are kept in memory up to a budget; past it, every location's intervals are sorted and
// written to an unnamed temporary file as one run. Reading a location merges its runs and what
// is still in memory into one stream in nesting order, the order a stable sort of all of them
// would give. The OTF2 export keeps its locations' intervals here, the Perfetto export its
// device commands.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "atp/format/safe_files.h"

namespace perfmarker::exporter {

struct Interval {
    uint64_t start = 0;
    uint64_t end = 0;  // >= start
    uint32_t region = 0;
    // At equal start and end the lower rank comes first (for OTF2, encloses the higher).
    uint32_t rank = 0;
    uint32_t payloadOffset = 0;  // where the store keeps its payload
    uint32_t payloadBytes = 0;
};

// The nesting order: by start, the longer first, then by rank. Intervals equal in all three
// keep the order they were added in.
inline bool nestsBefore(const Interval& a, const Interval& b) {
    if (a.start != b.start) return a.start < b.start;
    if (a.end != b.end) return a.end > b.end;
    return a.rank < b.rank;
}

class IntervalStore {
public:
    // `spillDir`: where the temporary file is made when the intervals and their payloads
    // outgrow `memoryBudget` bytes (at most 1 GiB; created only then, never named there).
    IntervalStore(std::string spillDir, size_t memoryBudget);
    ~IntervalStore();
    IntervalStore(const IntervalStore&) = delete;
    IntervalStore& operator=(const IntervalStore&) = delete;

    // Appends to the payload of the next interval added.
    void payload(const void* data, size_t bytes);
    // Adds an interval to `location` (a small number the caller chooses), with the payload
    // given since the last add(). Its payloadOffset and payloadBytes are ignored. After a
    // failure of the temporary file nothing more is kept.
    void add(uint32_t location, const Interval& interval);

    // A location's intervals in nesting order. Valid until the store is changed.
    class Reader {
    public:
        Reader(Reader&&) noexcept;
        ~Reader();
        // The next interval, nullptr after the last one or when the temporary file cannot be
        // read (the store's error() says so). Its payloadBytes of payload are at payload().
        const Interval* next();
        const unsigned char* payload() const;

    private:
        friend class IntervalStore;
        struct Source;
        Reader(IntervalStore& store, uint32_t location);
        bool advance(size_t source);
        void push(size_t source);
        bool later(size_t a, size_t b) const;
        IntervalStore* m_store;
        std::vector<Source> m_sources;  // the runs in the order written, then the memory's
        std::vector<size_t> m_heap;     // sources with an interval, the first one on top
        size_t m_current = SIZE_MAX;    // the source of the interval last returned
    };
    Reader read(uint32_t location);

    // Forgets every interval; the temporary file is emptied.
    void clear();

    // The first error of the temporary file (writing or reading it), with its errno's text.
    bool failed() const { return !m_error.empty(); }
    const std::string& error() const { return m_error; }
    // How many times the intervals were written out (for tests and the docs' figures).
    uint64_t spills() const { return m_spills; }

private:
    struct Run {
        uint64_t offset = 0;
        uint64_t bytes = 0;
    };
    void spill();
    void fail(const char* what, int error);

    std::string m_dir;
    size_t m_budget;
    int m_fd = -1;
    atp::BatchedWrites m_out;  // the temporary file: its size is where the next run starts
    uint64_t m_spills = 0;
    std::string m_error;
    std::vector<std::vector<Interval>> m_memory;  // by location, in the order added
    std::vector<unsigned char> m_payloads;        // of the intervals in m_memory, then pending
    size_t m_pending = 0;                         // payload bytes given since the last add()
    size_t m_bytes = 0;                           // of m_memory's intervals and m_payloads
    std::vector<std::vector<Run>> m_runs;         // by location
};

// Spreads a queue's commands, given in nesting order, over lanes: each goes to the first lane
// that is free at its start, a new lane when none is (docs/export.md#nesting-is-guaranteed). Each
// lane's commands stay in nesting order. The Perfetto and OTF2 exports both use it.
class LaneAssigner {
public:
    // The lane of the next command, 0 for the first.
    size_t lane(const Interval& command) {
        size_t lane = 0;
        while (lane < m_free.size() && m_free[lane] > command.start) ++lane;
        if (lane == m_free.size()) m_free.push_back(0);
        m_free[lane] = command.end;
        return lane;
    }
    size_t lanes() const { return m_free.size(); }

private:
    std::vector<uint64_t> m_free;  // per lane: where its last command ended
};

}  // namespace perfmarker::exporter
