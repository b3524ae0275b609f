// The per-thread recorder.
//
// Hot path (Recorder::threadLog + Recorder::append, inline below): the calling thread writes a
// fixed-size header and the copied string bytes at the cursor of a chunk it alone owns, then
// publishes the new cursor with a release store. No lock, no allocation, no system call.
//
// When a chunk is full the thread seals it, hands it to the writer through a lock-free queue
// (moodycamel, producer token) and takes a recycled chunk from the pool; a thread that ends
// hands its last chunk over the same way, so the pool gets it back at once. The writer thread
// converts tick timestamps to trace-clock nanoseconds in place and, in timeout mode, appends
// the bytes as one block to the recorder's fragment file (one file for all threads, so a crash
// keeps what was flushed), or in cached mode keeps them in memory. Every interval it also
// flushes the committed part of each thread's current chunk.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <concurrentqueue/blockingconcurrentqueue.h>

#include "record/clock.h"
#include "record/record_format.h"
#include "record/session.h"

#if defined(__GNUC__)
#define PERFMARKER_LIKELY(x) __builtin_expect(!!(x), 1)
#define PERFMARKER_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define PERFMARKER_LIKELY(x) (x)
#define PERFMARKER_UNLIKELY(x) (x)
#endif

namespace perfmarker::record {

// The name of every recorder's writer thread (at most 15 bytes, the kernel's limit).
inline constexpr char kWriterThreadName[] = "perfmarker-wr";
static_assert(sizeof(kWriterThreadName) <= 16, "thread names are at most 15 bytes");

struct RecorderOptions {
    FlushMode mode = FlushMode::Timeout;
    uint32_t intervalMs = 100;
    std::string fragmentDir;   // timeout mode: where per-thread fragments go
    std::string fragmentTag;   // fragment file tag, e.g. "clperfmarker"
    size_t chunkBytes = 64 * 1024;
    size_t maxMemoryBytes = size_t{1024} << 20;
    size_t preallocatedChunks = 8;
};

struct SharedState;
struct ThreadLog;

// A block of record bytes owned by one thread at a time. The header is padded to a cache line
// so the data never shares a line with another chunk's header.
struct alignas(64) Chunk {
    std::atomic<uint32_t> committed{0};  // bytes of whole records (release by the owner)
    uint32_t capacity = 0;
    uint64_t seq = 0;          // position in the owner's chunk sequence
    ThreadLog* owner = nullptr;
    bool oversize = false;     // not of the pool's size (one large record, or a thread's small
                               // first chunk at the cap): freed after use, not pooled
    bool last = false;         // the owner's last chunk: handed over as the thread ended
    uint32_t processed = 0;    // writer only: bytes already converted and flushed
    unsigned char* data() { return reinterpret_cast<unsigned char*>(this) + sizeof(Chunk); }
};

// One thread's log in one recorder. The first block is touched only by the owning thread.
struct ThreadLog {
    // -- owner thread only --
    unsigned char* base = nullptr;  // data of the current chunk
    uint32_t cursor = 0;
    uint32_t limit = 0;
    Chunk* chunk = nullptr;
    uint64_t nextSeq = 0;
    uint64_t userState = 0;  // free for the caller (the marker core keeps the nesting depth)
    bool sealed = false;     // the thread ended (not the main thread): no more records
    uint64_t recorderId = 0; // the recorder that registered the log (Recorder::m_id)
    uint64_t tickBase = 0;   // compact records' ticks are relative to it (SharedState::tickBase)
    std::unique_ptr<moodycamel::ProducerToken> token;  // for handing full chunks over
    SharedState* state = nullptr;
    // A slot's string as Recorder::sameShort() compares it: its words, zero from the terminator
    // on; the whole words before the one with the terminator; and the bytes of that word up to
    // the terminator, as a mask. Empty at first.
    struct SlotString {
        uint64_t lastMask = 0xff;
        uint64_t wholeWords = 0;
        uint64_t words[(compact::kMaxSlotString + 8) / 8] = {};
        void set(const char* s, size_t size);
    };
    // The name and group each compact Begin slot stands for (record_format.h, compact records),
    // as the writer will know them: empty until a Begin recorded with a kFill word before it
    // fills it.
    struct BeginSlot {
        SlotString name;
        SlotString group;
    };
    BeginSlot beginSlots[compact::kSlots];

    // -- shared --
    std::atomic<Chunk*> current{nullptr};  // published after the previous chunk was queued
    std::atomic<bool> exited{false};
    uint64_t tid = 0;
    uint64_t serial = 0;

    // -- writer only (under SharedState::flushMutex) --
    struct WriterSide;
    std::unique_ptr<WriterSide> writer;

    ThreadLog();
    ~ThreadLog();
};

struct CollectPlan;  // record/collect.h

// What finalize hands to its consumer, one thread id at a time, in increasing tid order.
class RecordVisitor {
public:
    virtual ~RecordVisitor() = default;
    virtual void onThread(uint64_t tid, uint64_t recordCount) = 0;
    virtual void onRecord(const RecordView& record) = 0;
};

class Recorder {
public:
    explicit Recorder(RecorderOptions options);
    ~Recorder();  // only when no thread uses the recorder any more
    Recorder(const Recorder&) = delete;
    Recorder& operator=(const Recorder&) = delete;

    bool useTsc() const { return m_useTsc; }
    uint64_t now() const { return readTicks(m_useTsc); }

    // The calling thread's log when it has one already, else null (threadLog() registers it).
    ThreadLog* cachedThreadLog() const {
        return t_cache.recorderId == m_id.load(std::memory_order_relaxed) ? t_cache.log : nullptr;
    }

    // The calling thread's log (registered on first use). Null only when out of memory.
    ThreadLog* threadLog() {
        if (PERFMARKER_LIKELY(t_cache.recorderId == m_id.load(std::memory_order_relaxed))) {
            return t_cache.log;
        }
        return threadLogSlow();
    }

    // Appends one record. Returns false only when no memory can be had (or after stop()).
    bool append(ThreadLog* log, RecordKind kind, uint64_t ticks, std::string_view s0 = {},
                std::string_view s1 = {}, std::string_view s2 = {}) {
        const size_t need = recordSize(s0.size(), s1.size(), s2.size());
        if (PERFMARKER_UNLIKELY(log->cursor + need > log->limit)) {
            if (!rotate(log, need)) return false;
        }
        unsigned char* p = log->base + log->cursor;
        storeHeader(p, ticks, static_cast<uint32_t>(kind), static_cast<uint32_t>(s0.size()),
                    static_cast<uint32_t>(s1.size()), static_cast<uint32_t>(s2.size()));
        p += sizeof(RecordHeader);
        if (!s0.empty()) std::memcpy(p, s0.data(), s0.size());
        if (!s1.empty()) std::memcpy(p + s0.size(), s1.data(), s1.size());
        if (!s2.empty()) std::memcpy(p + s0.size() + s1.size(), s2.data(), s2.size());
        log->cursor += static_cast<uint32_t>(need);
        publish(log);
        return true;
    }

    // Two-step append of a record whose only string is a payload of `bytes` bytes, written in
    // place (no copy through a staging buffer): reserve() writes the header and returns where
    // the payload goes, or null when no memory can be had; the caller writes exactly `bytes`
    // bytes there and then calls commitReserved(). Nothing else may be appended in between.
    unsigned char* reserve(ThreadLog* log, RecordKind kind, uint64_t ticks, size_t bytes) {
        const size_t need = recordSize(bytes, 0, 0);
        if (PERFMARKER_UNLIKELY(log->cursor + need > log->limit)) {
            if (!rotate(log, need)) return nullptr;
        }
        unsigned char* p = log->base + log->cursor;
        storeHeader(p, ticks, static_cast<uint32_t>(kind), static_cast<uint32_t>(bytes), 0, 0);
        return p + sizeof(RecordHeader);
    }
    void commitReserved(ThreadLog* log, size_t bytes) {
        log->cursor += static_cast<uint32_t>(recordSize(bytes, 0, 0));
        publish(log);
    }

    // A marker's Begin (a MarkerBegin record; null group or user string means empty). When its
    // name and group are those of the Begin slot they pick (by address) and it has no user
    // string, it is one compact word; else a MarkerBegin record, which fills the slot when its
    // strings are short enough (appendBeginRecord).
    bool appendBegin(ThreadLog* log, uint64_t ticks, const char* name, const char* group,
                     const char* user) {
        return appendBeginWord(log, ticks, name, group, user) ||
               appendBeginRecord(log, ticks, name, group, user);
    }
    // appendBegin()'s two cases: the compact word, when it is one (false: nothing appended),
    // and the record.
    bool appendBeginWord(ThreadLog* log, uint64_t ticks, const char* name, const char* group,
                         const char* user) {
        const unsigned slot = beginSlotOf(name, group);
        const ThreadLog::BeginSlot& s = log->beginSlots[slot];
        if (PERFMARKER_LIKELY((user == nullptr || user[0] == '\0') &&
                              log->limit - log->cursor >= sizeof(uint64_t) &&
                              sameShort(s.name, name) && sameShort(s.group, group))) {
            storeWord(log, compact::kBegin | uint64_t{slot} << compact::kSlotShift |
                               ((ticks - log->tickBase) & compact::kTickMask));
            return true;
        }
        return false;
    }
    // After a kFill word for the slot of the name and group when there is no user string and
    // they fit a slot.
    bool appendBeginRecord(ThreadLog* log, uint64_t ticks, const char* name, const char* group,
                           const char* user);

    // A marker's End (a MarkerEnd record) as one compact word.
    bool appendEnd(ThreadLog* log, uint64_t ticks) {
        if (PERFMARKER_UNLIKELY(log->limit - log->cursor < sizeof(uint64_t))) {
            if (!rotate(log, sizeof(uint64_t))) return false;
        }
        storeWord(log, compact::kEnd | ((ticks - log->tickBase) & compact::kTickMask));
        return true;
    }
    // The same when the chunk has room for it (false: nothing appended).
    bool appendEndWord(ThreadLog* log, uint64_t ticks) {
        if (PERFMARKER_UNLIKELY(log->limit - log->cursor < sizeof(uint64_t))) return false;
        storeWord(log, compact::kEnd | ((ticks - log->tickBase) & compact::kTickMask));
        return true;
    }

    // As append(), for C strings (null means empty). Strings of up to kShortString bytes are
    // measured and copied in one word-at-a-time pass; longer ones take append().
    bool appendCStrings(ThreadLog* log, RecordKind kind, uint64_t ticks, const char* s0,
                        const char* s1, const char* s2) {
        if (PERFMARKER_LIKELY(log->limit - log->cursor >= kFastSpace)) {
            unsigned char* p = log->base + log->cursor;
            unsigned char* d = p + sizeof(RecordHeader);
            const size_t n0 = copyShort(d, s0);
            const size_t n1 = n0 == kTooLong ? kTooLong : copyShort(d + n0, s1);
            const size_t n2 = n1 == kTooLong ? kTooLong : copyShort(d + n0 + n1, s2);
            if (PERFMARKER_LIKELY(n2 != kTooLong)) {
                storeHeader(p, ticks, static_cast<uint32_t>(kind), static_cast<uint32_t>(n0),
                            static_cast<uint32_t>(n1), static_cast<uint32_t>(n2));
                log->cursor += static_cast<uint32_t>(recordSize(n0, n1, n2));
                publish(log);
                return true;
            }
        }
        return append(log, kind, ticks, cview(s0), cview(s1), cview(s2));
    }

    // Makes every store another thread of the process did before now visible to the caller, and
    // every load another thread does after now see what the caller stored before: a full
    // memory barrier on every thread, paid by the caller alone (membarrier(2), or a page
    // protection change where that is not available). With it a thread's hot path needs no
    // fence to agree with a state change (docs/session.md#finalize-and-recording-threads).
    static void fenceAllThreads();

    // Called as a thread ends (a thread_local destructor) for every log it has: hands the
    // current chunk to its recorder's writer, which writes it out and returns it to the pool at
    // once. Nothing happens when the log's recorder is gone or was reset by a fork.
    static void threadEnded(const std::shared_ptr<ThreadLog>& log);

    // Stops the writer and flushes every committed record (into fragments or memory).
    // Records appended concurrently with or after stop() may be dropped; none is torn.
    // Returns false with `error` when a fragment could not be written (the data is then kept
    // in memory and still delivered by collect()).
    bool stop(std::string& error);

    // After stop(): delivers every record grouped by thread id (in increasing order) to
    // `visitor` (onThread, then onRecord for each of its records; a RecordVisitor or any class
    // with those members). Returns false with `error` when a fragment could not be read back.
    // Defined in record/collect.h.
    template <typename Visitor>
    bool collect(Visitor& visitor, std::string& error);
    // What collect() delivers, with the flush lock held; false with `error` when the fragment
    // file cannot be read (the records held in memory are still planned).
    bool planCollect(CollectPlan& plan, std::string& error);

    // After stop(): appends every record still held in memory (cached mode, or after a failed
    // write) to the threads' fragment files, so that another reader (the merge step) finds
    // them. False with `error` when a write failed; those records stay in memory.
    bool spillToFragments(std::string& error);

    // After a successful collect() and output: deletes this recorder's fragment file.
    void removeFragments();

    // Test hooks.
    size_t allocatedBytes() const;
    size_t heldBytes() const;  // records the writer holds in memory (cached mode), packed
    size_t threadCount() const;
    bool degraded() const;  // a fragment write failed; records are kept in memory

    // The writer's flush of all threads' committed records, as the interval timer does it.
    void flushNow() { flush(false); }

private:
    static constexpr size_t kShortString = 64;
    static constexpr size_t kTooLong = ~size_t{0};
    // Room for a header and three short strings written as whole words.
    static constexpr uint32_t kFastSpace = sizeof(RecordHeader) + 3 * kShortString + 8;

    static std::string_view cview(const char* s) {
        return s == nullptr ? std::string_view() : std::string_view(s, std::strlen(s));
    }

    // True when the kShortString bytes at `src` lie within its page, so that they can be read as
    // whole words past its terminator (a page is mapped or not as a whole).
    static bool wordsReadable(const char* src) {
        return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&
               (reinterpret_cast<uintptr_t>(src) & 4095) <= 4096 - kShortString;
    }
    // The high bit of each zero byte of `w` set: the lowest one set is the first zero byte (bits
    // above it may be set for bytes that are not zero).
    static uint64_t zeroBytes(uint64_t w) {
        return (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;
    }

    // Copies the NUL-terminated `src` to `dst` (which has kShortString + 8 writable bytes) and
    // returns its length, or kTooLong when it is longer than kShortString. Reads whole 8-byte
    // words, possibly past the terminator but never past the 64-byte window when that window
    // lies within src's page (a page is mapped or not as a whole), else byte by byte.
    __attribute__((no_sanitize("address", "thread"))) static size_t copyShort(unsigned char* dst,
                                                                         const char* src) {
        if (src == nullptr) return 0;
        // Hide the object's bounds from the optimizer: the word reads below may pass the
        // terminator on purpose (within the page), which is fine for the hardware.
        asm("" : "+r"(src));
        if (wordsReadable(src)) {
            for (size_t i = 0; i < kShortString; i += 8) {
                uint64_t w;
                std::memcpy(&w, src + i, 8);
                std::memcpy(dst + i, &w, 8);
                const uint64_t zero = zeroBytes(w);
                if (zero != 0) return i + static_cast<size_t>(__builtin_ctzll(zero)) / 8;
            }
            return kTooLong;
        }
        for (size_t i = 0; i < kShortString; ++i) {
            if (src[i] == '\0') return i;
            dst[i] = static_cast<unsigned char>(src[i]);
        }
        return kTooLong;
    }

    // The Begin slot of a name and group: by their addresses (a marker's strings are mostly
    // literals); the strings are compared all the same.
    static unsigned beginSlotOf(const char* name, const char* group) {
        const uint64_t key =
            reinterpret_cast<uintptr_t>(name) + 3 * reinterpret_cast<uintptr_t>(group);
        return static_cast<unsigned>((key * 0x9e3779b97f4a7c15ull) >> 61);
    }
    static_assert(compact::kSlots == 8, "beginSlotOf() gives 3 bits");

    // True when the NUL-terminated `src` (null: empty) is the string `cached`. Reads words as
    // copyShort() does, as many as hold `cached` and its terminator: the bytes up to the
    // terminator's place are equal only where src ends there too.
    __attribute__((no_sanitize("address", "thread"))) static bool sameShort(
        const ThreadLog::SlotString& cached, const char* src) {
        if (src == nullptr) return cached.words[0] == 0;
        asm("" : "+r"(src));
        static_assert(sizeof cached.words <= kShortString);
        if (PERFMARKER_LIKELY(wordsReadable(src))) {
            const uint64_t whole = cached.wholeWords;
            for (uint64_t i = 0; i < whole; ++i) {
                uint64_t w;
                std::memcpy(&w, src + 8 * i, 8);
                if (w != cached.words[i]) return false;
            }
            uint64_t w;
            std::memcpy(&w, src + 8 * whole, 8);
            return (w & cached.lastMask) == cached.words[whole];
        }
        const auto* bytes = reinterpret_cast<const unsigned char*>(cached.words);
        for (size_t i = 0; i < sizeof cached.words; ++i) {
            const auto b = static_cast<unsigned char>(src[i]);
            if (b != bytes[i]) return false;
            if (b == 0) return true;
        }
        return false;
    }

    static void storeWord(ThreadLog* log, uint64_t word) {
        std::memcpy(log->base + log->cursor, &word, sizeof word);
        log->cursor += static_cast<uint32_t>(sizeof word);
        publish(log);
    }

    struct TlsCache {
        uint64_t recorderId;
        ThreadLog* log;
    };
    // __thread (not thread_local): a POD with no dynamic initialization, so access is a
    // single %fs-relative load with no TLS wrapper call.
    static __thread TlsCache t_cache __attribute__((tls_model("initial-exec")));

    void flush(bool final);
    ThreadLog* threadLogSlow();
    bool rotate(ThreadLog* log, size_t need);
    static void publish(ThreadLog* log) {
        log->chunk->committed.store(log->cursor, std::memory_order_release);
    }
    void startWriter();
    void writerLoop(SharedState* state);
    void resetInChild();
    static void forkPrepare();
    static void forkParent();
    static void forkChild();

    RecorderOptions m_options;
    bool m_useTsc;
    std::atomic<uint64_t> m_id;
    std::atomic<SharedState*> m_state;
};

}  // namespace perfmarker::record
