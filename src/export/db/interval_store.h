// The intervals of an export's locations, with their attributes, in bounded memory
// (docs/otf2.md#memory): they are kept in memory up to a budget; past it, every location's
// intervals are sorted and written to an unnamed temporary file as one run. Reading a location
// merges its runs and what is still in memory into one stream in nesting order
// (interval_nesting.h), the order a stable sort of all of them would give.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "atp/format/safe_files.h"
#include "export/db/interval_nesting.h"

namespace perfmarker::exporter::db {

// One attribute of an interval, as the exporter defines it (`type` is the exporter's).
struct IntervalAttribute {
    uint32_t attribute = 0;
    uint32_t type = 0;
    uint64_t value = 0;
};

class IntervalStore {
public:
    // `spillDir`: where the temporary file is made when the intervals and their attributes
    // outgrow `memoryBudget` bytes (created only then, and never named in the directory).
    IntervalStore(std::string spillDir, size_t memoryBudget);
    ~IntervalStore();
    IntervalStore(const IntervalStore&) = delete;
    IntervalStore& operator=(const IntervalStore&) = delete;

    // An attribute of the next interval added.
    void attribute(uint32_t attribute, uint32_t type, uint64_t value);
    // Adds an interval to `location` (a small number the caller chooses), with the attributes
    // given since the last add(). Its firstAttribute and attributeCount are ignored. After a
    // failure of the temporary file nothing more is kept.
    void add(uint32_t location, const Interval& interval);

    // A location's intervals in nesting order. Valid until the store is changed.
    class Reader {
    public:
        Reader(Reader&&) noexcept;
        ~Reader();
        // The next interval, nullptr after the last one or when the temporary file cannot be
        // read (the store's error() says so). Its attributeCount attributes are attributes().
        const Interval* next();
        const IntervalAttribute* attributes() const;

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
    std::vector<IntervalAttribute> m_attributes;  // of the intervals in m_memory, then pending
    uint32_t m_pending = 0;                       // attributes given since the last add()
    size_t m_bytes = 0;                           // of m_memory's intervals and m_attributes
    std::vector<std::vector<Run>> m_runs;         // by location
};

}  // namespace perfmarker::exporter::db
