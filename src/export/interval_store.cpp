#include "export/interval_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "atp/format/safe_files.h"

namespace perfmarker::exporter {
namespace {

// An interval in the temporary file: this, then its payload.
struct StoredInterval {
    uint64_t start;
    uint64_t end;
    uint32_t region;
    uint32_t rank;
    uint32_t payloadBytes;
    uint32_t unused;
};
static_assert(sizeof(StoredInterval) == 32, "the temporary file's layout");

constexpr size_t kReadPiece = size_t{64} << 10;  // per run being merged
// Payload offsets are 32 bits: the memory kept stays well below 4 GiB.
constexpr size_t kMaxBudget = size_t{1} << 30;

void sortForNesting(std::vector<Interval>& intervals) {
    std::stable_sort(intervals.begin(), intervals.end(), nestsBefore);
}

}  // namespace

struct IntervalStore::Reader::Source {
    // A run of the temporary file (memory == nullptr): the bytes not read yet, and a piece.
    uint64_t offset = 0;
    uint64_t left = 0;
    std::vector<unsigned char> piece;
    size_t pos = 0;
    // The intervals still in memory, sorted.
    const std::vector<Interval>* memory = nullptr;
    size_t index = 0;
    // The interval this source gives next.
    Interval head;
    const unsigned char* headPayload = nullptr;
    std::vector<unsigned char> copied;  // a run's payload
};

IntervalStore::IntervalStore(std::string spillDir, size_t memoryBudget)
    : m_dir(std::move(spillDir)), m_budget(std::min(memoryBudget, kMaxBudget)) {}

IntervalStore::~IntervalStore() {
    if (m_fd >= 0) ::close(m_fd);
}

void IntervalStore::fail(const char* what, int error) {
    if (m_error.empty()) {
        m_error = std::string("cannot ") + what + " the temporary file of intervals in " + m_dir +
                  ": " + std::strerror(error);
    }
}

void IntervalStore::payload(const void* data, size_t bytes) {
    const auto* p = static_cast<const unsigned char*>(data);
    m_payloads.insert(m_payloads.end(), p, p + bytes);
    m_pending += bytes;
}

void IntervalStore::add(uint32_t location, const Interval& interval) {
    if (failed()) {  // the export fails: keep nothing more
        m_payloads.resize(m_payloads.size() - m_pending);
        m_pending = 0;
        return;
    }
    if (location >= m_memory.size()) {
        m_memory.resize(location + 1);
        m_runs.resize(location + 1);
    }
    Interval& added = m_memory[location].emplace_back(interval);
    added.payloadOffset = static_cast<uint32_t>(m_payloads.size() - m_pending);
    added.payloadBytes = static_cast<uint32_t>(m_pending);
    m_bytes += sizeof(Interval) + m_pending;
    m_pending = 0;
    if (m_bytes > m_budget) spill();
}

// Writes every location's intervals as one sorted run (docs/export.md#memory).
void IntervalStore::spill() {
    if (m_fd < 0) {
        // Unnamed where the system can; else named only until it is unlinked.
        m_fd = ::open(m_dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        if (m_fd < 0) {
            std::string path;
            m_fd = atp::createTempNextTo(m_dir + "/intervals", 0600, path);
            if (m_fd < 0) return fail("create", errno);
            ::unlink(path.c_str());
        }
        m_out = atp::BatchedWrites(m_fd);
    }
    int error = 0;
    for (size_t location = 0; location < m_memory.size() && error == 0; ++location) {
        std::vector<Interval>& intervals = m_memory[location];
        if (intervals.empty()) continue;
        sortForNesting(intervals);
        const uint64_t start = m_out.size();
        for (const Interval& interval : intervals) {
            const StoredInterval stored{interval.start, interval.end,          interval.region,
                                        interval.rank,  interval.payloadBytes, 0};
            error = m_out.write({reinterpret_cast<const char*>(&stored), sizeof stored});
            if (error == 0 && interval.payloadBytes > 0) {
                error =
                    m_out.write({reinterpret_cast<const char*>(&m_payloads[interval.payloadOffset]),
                                 interval.payloadBytes});
            }
            if (error != 0) break;
        }
        m_runs[location].push_back({start, m_out.size() - start});
        // Freed, not kept: locations that take turns would otherwise each keep a budget's worth.
        std::vector<Interval>().swap(intervals);
    }
    if (error == 0) error = m_out.flush();  // the runs are read back with pread
    if (error != 0) return fail("write", error);
    m_payloads.clear();
    m_bytes = 0;
    ++m_spills;
}

void IntervalStore::clear() {
    m_memory.clear();
    m_runs.clear();
    m_payloads.clear();
    m_pending = 0;
    m_bytes = 0;
    if (m_fd >= 0 && m_out.size() > 0) {
        if (::ftruncate(m_fd, 0) != 0 || ::lseek(m_fd, 0, SEEK_SET) != 0) fail("empty", errno);
        m_out = atp::BatchedWrites(m_fd);
    }
}

IntervalStore::Reader IntervalStore::read(uint32_t location) { return Reader(*this, location); }

IntervalStore::Reader::Reader(IntervalStore& store, uint32_t location) : m_store(&store) {
    if (location < store.m_runs.size()) {
        for (const Run& run : store.m_runs[location]) {
            Source& source = m_sources.emplace_back();
            source.offset = run.offset;
            source.left = run.bytes;
        }
        std::vector<Interval>& memory = store.m_memory[location];
        if (!memory.empty()) {
            sortForNesting(memory);
            m_sources.emplace_back().memory = &memory;
        }
    }
    for (size_t source = 0; source < m_sources.size(); ++source) push(source);
}

// Ties go to the source written first: the order a stable sort of all of them would give.
bool IntervalStore::Reader::later(size_t a, size_t b) const {
    const Interval& x = m_sources[a].head;
    const Interval& y = m_sources[b].head;
    if (nestsBefore(y, x)) return true;
    return !nestsBefore(x, y) && a > b;
}

// Takes the source's next interval as its head and puts it in the heap; a source at its end
// (or that cannot be read) is left out.
void IntervalStore::Reader::push(size_t source) {
    if (!advance(source)) return;
    m_heap.push_back(source);
    std::push_heap(m_heap.begin(), m_heap.end(),
                   [this](size_t a, size_t b) { return later(a, b); });
}

const Interval* IntervalStore::Reader::next() {
    if (m_current != SIZE_MAX) push(m_current);
    m_current = SIZE_MAX;
    if (m_heap.empty() || m_store->failed()) return nullptr;
    std::pop_heap(m_heap.begin(), m_heap.end(), [this](size_t a, size_t b) { return later(a, b); });
    m_current = m_heap.back();
    m_heap.pop_back();
    return &m_sources[m_current].head;
}

const unsigned char* IntervalStore::Reader::payload() const {
    return m_current == SIZE_MAX ? nullptr : m_sources[m_current].headPayload;
}

bool IntervalStore::Reader::advance(size_t index) {
    Source& source = m_sources[index];
    if (source.memory != nullptr) {
        if (source.index == source.memory->size()) return false;
        source.head = (*source.memory)[source.index++];
        source.headPayload = m_store->m_payloads.data() + source.head.payloadOffset;
        return true;
    }
    // A run: make sure the piece holds the next whole interval, reading more where it does not.
    const auto available = [&source] { return source.piece.size() - source.pos; };
    const auto fill = [&](size_t need) {
        if (available() >= need) return true;
        if (need - available() > source.left) {
            m_store->fail("read", EIO);  // a run ends inside an interval: not what was written
            return false;
        }
        source.piece.erase(source.piece.begin(),
                           source.piece.begin() + static_cast<std::ptrdiff_t>(source.pos));
        source.pos = 0;
        const size_t kept = source.piece.size();
        const size_t more =
            static_cast<size_t>(std::min<uint64_t>(source.left, std::max(kReadPiece, need) - kept));
        source.piece.resize(kept + more);
        size_t done = 0;
        while (done < more) {
            const ssize_t got = ::pread(m_store->m_fd, source.piece.data() + kept + done,
                                        more - done, static_cast<off_t>(source.offset + done));
            if (got < 0 && errno == EINTR) continue;
            if (got <= 0) {
                m_store->fail("read", got < 0 ? errno : EIO);
                return false;
            }
            done += static_cast<size_t>(got);
        }
        source.offset += more;
        source.left -= more;
        return true;
    };
    if (source.left == 0 && available() == 0) return false;
    if (!fill(sizeof(StoredInterval))) return false;
    StoredInterval stored;
    std::memcpy(&stored, source.piece.data() + source.pos, sizeof stored);
    if (!fill(sizeof stored + stored.payloadBytes)) return false;
    source.head =
        Interval{stored.start, stored.end, stored.region, stored.rank, 0, stored.payloadBytes};
    const unsigned char* payload = source.piece.data() + source.pos + sizeof stored;
    source.copied.assign(payload, payload + stored.payloadBytes);
    source.headPayload = source.copied.data();
    source.pos += sizeof stored + stored.payloadBytes;
    return true;
}

IntervalStore::Reader::Reader(Reader&&) noexcept = default;
IntervalStore::Reader::~Reader() = default;

}  // namespace perfmarker::exporter
