#include "record/recorder.h"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <map>
#include <new>

#include "atp/format/safe_files.h"
#include "record/fragment.h"

namespace perfmarker::record {

// Everything a recorder shares between threads. Replaced wholesale in a fork child (the old
// one may have been mid-update by a thread that does not exist there), never freed while the
// recorder lives.
struct SharedState {
    SharedState(bool useTsc, uint32_t intervalMs)
        : converter(useTsc, std::max<uint64_t>(1000000, uint64_t{intervalMs} * 1000000 / 256)),
          pid(static_cast<uint64_t>(getpid())) {}

    // Guards `logs`, `nextSerial` and writer start-up. Taken on thread registration (not on the
    // hot path) and by the writer to snapshot the thread list.
    std::mutex registryMutex;
    std::vector<std::shared_ptr<ThreadLog>> logs;
    uint64_t nextSerial = 0;
    std::thread writer;
    bool writerStarted = false;

    moodycamel::BlockingConcurrentQueue<Chunk*> full;  // sealed chunks, producer -> writer
    moodycamel::ConcurrentQueue<Chunk*> pool;          // recycled chunks, writer -> producers
    std::atomic<size_t> allocated{0};
    std::atomic<bool> stopping{false};
    std::atomic<bool> stopped{false};
    std::atomic<size_t> threadCount{0};

    // Guards the writer side: converter, every ThreadLog::writer, `retired` and error state.
    std::mutex flushMutex;
    TickConverter converter;
    std::vector<std::shared_ptr<ThreadLog>> retired;  // exited threads, fully flushed
    // Every pooled-size chunk ever allocated (freed with the state). Its own lock: an owner
    // that allocates must never wait for the writer's flush, which holds flushMutex.
    std::mutex chunksMutex;
    std::vector<Chunk*> allChunks;
    bool degraded = false;
    std::string firstError;
    uint64_t pid;
};

struct ThreadLog::WriterSide {
    std::deque<Chunk*> pending;  // sealed chunks in sequence order
    uint64_t expectedSeq = 0;
    int fd = -1;
    std::string path;
    uint64_t fileBytes = 0;
    uint64_t fileRecords = 0;
    std::string memory;  // cached mode, or after a failed fragment write
    uint64_t memoryRecords = 0;
    uint64_t lastNs = 0;  // clamp: converted times never go backwards within a thread
    bool retired = false;
    // A sealed chunk already written out but maybe still the owner's `current` (the owner
    // queues a sealed chunk just before publishing its next one): recycled once it is not.
    Chunk* sealedCurrent = nullptr;
};

ThreadLog::ThreadLog() : writer(std::make_unique<WriterSide>()) {}
ThreadLog::~ThreadLog() {
    if (writer && writer->fd >= 0) close(writer->fd);
}

__thread Recorder::TlsCache Recorder::t_cache;

namespace {

std::atomic<uint64_t> g_nextRecorderId{1};

// Live recorders, for the fork handlers. g_liveMutex is held across fork() so the child
// never inherits it locked.
std::mutex g_liveMutex;
std::vector<Recorder*>& liveRecorders() {
    static auto* list = new std::vector<Recorder*>();
    return *list;
}

uint64_t currentTid() { return static_cast<uint64_t>(syscall(SYS_gettid)); }

// Marks this thread's logs as exited when the thread ends, so the writer can retire them.
struct ExitNotifier {
    std::vector<std::shared_ptr<ThreadLog>> logs;
    ~ExitNotifier() {
        for (auto& log : logs) log->exited.store(true, std::memory_order_release);
    }
};
thread_local ExitNotifier t_exitNotifier;

Chunk* allocateChunk(SharedState& s, size_t capacity, bool oversize) {
    void* mem = nullptr;
    if (posix_memalign(&mem, alignof(Chunk), sizeof(Chunk) + capacity) != 0) return nullptr;
    auto* c = new (mem) Chunk();
    c->capacity = static_cast<uint32_t>(capacity);
    c->oversize = oversize;
    // Touch every page now, off the owner's steady state: a page fault costs microseconds.
    std::memset(c->data(), 0, capacity);
    s.allocated.fetch_add(sizeof(Chunk) + capacity, std::memory_order_relaxed);
    return c;
}

void freeChunk(SharedState& s, Chunk* c) {
    s.allocated.fetch_sub(sizeof(Chunk) + c->capacity, std::memory_order_relaxed);
    c->~Chunk();
    std::free(c);
}

bool writeAll(int fd, const unsigned char* p, size_t n, std::string& error) {
    while (n > 0) {
        ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            error = std::strerror(errno);
            return false;
        }
        p += w;
        n -= static_cast<size_t>(w);
    }
    return true;
}

}  // namespace

// ---- construction, fork ------------------------------------------------------------------

Recorder::Recorder(RecorderOptions options)
    : m_options(std::move(options)),
      m_useTsc(ticksAreTsc()),
      m_id(g_nextRecorderId.fetch_add(1)),
      m_state(new SharedState(m_useTsc, m_options.intervalMs)) {
    if (m_options.chunkBytes < 4096) m_options.chunkBytes = 4096;
    static std::once_flag once;
    std::call_once(once, [] { pthread_atfork(&forkPrepare, &forkParent, &forkChild); });
    SharedState* s = m_state.load();
    for (size_t i = 0; i < m_options.preallocatedChunks; ++i) {
        if (Chunk* c = allocateChunk(*s, m_options.chunkBytes, false)) {
            s->allChunks.push_back(c);
            s->pool.enqueue(c);
        }
    }
    std::lock_guard<std::mutex> lock(g_liveMutex);
    liveRecorders().push_back(this);
}

Recorder::~Recorder() {
    {
        std::lock_guard<std::mutex> lock(g_liveMutex);
        auto& list = liveRecorders();
        list.erase(std::remove(list.begin(), list.end(), this), list.end());
    }
    std::string ignored;
    stop(ignored);
    SharedState* s = m_state.load();
    // Oversize chunks first: telling them apart reads the pooled chunks, freed last.
    Chunk* c = nullptr;
    while (s->full.try_dequeue(c)) {
        if (c != nullptr && c->oversize) freeChunk(*s, c);
    }
    for (auto& log : s->logs) {
        for (Chunk* p : log->writer->pending) {
            if (p->oversize) freeChunk(*s, p);
        }
        Chunk* cur = log->current.load();
        if (cur != nullptr && cur->oversize) freeChunk(*s, cur);
        Chunk* sealed = log->writer->sealedCurrent;
        if (sealed != nullptr && sealed != cur && sealed->oversize) freeChunk(*s, sealed);
    }
    for (Chunk* chunk : s->allChunks) freeChunk(*s, chunk);
    delete s;
}

void Recorder::forkPrepare() { g_liveMutex.lock(); }
void Recorder::forkParent() { g_liveMutex.unlock(); }
void Recorder::forkChild() {
    for (Recorder* r : liveRecorders()) r->resetInChild();
    g_liveMutex.unlock();
}

void Recorder::resetInChild() {
    // The child starts clean: the parent's records are the parent's to write. The old state
    // is abandoned, not freed: other parent threads may have left it mid-update.
    m_state.store(new SharedState(m_useTsc, m_options.intervalMs));
    m_id.store(g_nextRecorderId.fetch_add(1));
}

// ---- registration and chunk hand-off (slow paths of the owner thread) --------------------

ThreadLog* Recorder::threadLogSlow() {
    SharedState* s = m_state.load(std::memory_order_acquire);
    const uint64_t id = m_id.load(std::memory_order_acquire);
    auto log = std::make_shared<ThreadLog>();
    log->state = s;
    log->tid = currentTid();
    log->token = std::make_unique<moodycamel::ProducerToken>(s->full);
    if (!rotate(log.get(), 0)) return nullptr;
    {
        std::lock_guard<std::mutex> lock(s->registryMutex);
        log->serial = s->nextSerial++;
        s->logs.push_back(log);
        if (!s->writerStarted) startWriter();
    }
    s->threadCount.fetch_add(1, std::memory_order_relaxed);
    t_exitNotifier.logs.push_back(log);
    t_cache = {id, log.get()};
    return log.get();
}

bool Recorder::rotate(ThreadLog* log, size_t need) {
    SharedState* s = log->state;
    if (s->stopped.load(std::memory_order_acquire)) return false;
    Chunk* fresh = nullptr;
    if (need > m_options.chunkBytes) {
        fresh = allocateChunk(*s, need, true);
    } else {
        // A thread's first chunk ignores the cap: the cap may be held entirely by other threads'
        // current chunks, which only those threads can release.
        const bool firstChunk = log->chunk == nullptr;
        while (!s->pool.try_dequeue(fresh)) {
            if (firstChunk || s->allocated.load(std::memory_order_relaxed) + m_options.chunkBytes <=
                                  m_options.maxMemoryBytes) {
                fresh = allocateChunk(*s, m_options.chunkBytes, false);
                if (fresh != nullptr) {
                    std::lock_guard<std::mutex> lock(s->chunksMutex);
                    s->allChunks.push_back(fresh);
                }
                break;
            }
            // At the memory cap: wait for the writer to recycle a chunk rather than drop data.
            if (s->stopped.load(std::memory_order_acquire)) return false;
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
    }
    if (fresh == nullptr) return false;
    fresh->seq = log->nextSeq++;
    fresh->owner = log;
    fresh->committed.store(0, std::memory_order_relaxed);
    fresh->processed = 0;
    // Hand the old chunk over before publishing the new one: a writer that sees the new chunk
    // as current can rely on the old one being in the queue.
    if (log->chunk != nullptr) s->full.enqueue(*log->token, log->chunk);
    log->chunk = fresh;
    log->base = fresh->data();
    log->cursor = 0;
    log->limit = fresh->capacity;
    log->current.store(fresh, std::memory_order_release);
    return true;
}

// ---- the writer --------------------------------------------------------------------------

namespace {

class Writer {
public:
    Writer(SharedState& s, const RecorderOptions& o) : m_s(s), m_o(o) {}

    // Routes sealed chunks to their owners' pending lists and flushes what is in order.
    void acceptSealed(Chunk* const* chunks, size_t n) {
        for (size_t i = 0; i < n; ++i) {
            if (chunks[i] == nullptr) continue;  // wake-up sentinel
            ThreadLog* owner = chunks[i]->owner;
            // The writer thread dequeues outside flushMutex, so a concurrent flushNow() can
            // route a later chunk of the same thread first: keep pending in sequence order.
            auto& pending = owner->writer->pending;
            pending.insert(
                std::upper_bound(pending.begin(), pending.end(), chunks[i]->seq,
                                 [](uint64_t seq, const Chunk* c) { return seq < c->seq; }),
                chunks[i]);
            processSealed(*owner);
        }
    }

    // Flushes every thread's committed records and retires exited threads.
    void flushAll() {
        Chunk* batch[64];
        while (size_t n = m_s.full.try_dequeue_bulk(batch, 64)) acceptSealed(batch, n);
        std::vector<std::shared_ptr<ThreadLog>> logs;
        {
            std::lock_guard<std::mutex> lock(m_s.registryMutex);
            logs = m_s.logs;
        }
        for (auto& log : logs) {
            const bool exited = log->exited.load(std::memory_order_acquire);
            processSealed(*log);
            Chunk* cur = log->current.load(std::memory_order_acquire);
            if (cur != nullptr && cur->seq != log->writer->expectedSeq) {
                // Earlier chunks queued after the drain above (rotate queues, then publishes).
                while (size_t n = m_s.full.try_dequeue_bulk(batch, 64)) acceptSealed(batch, n);
                processSealed(*log);
                cur = log->current.load(std::memory_order_acquire);  // the old one may be reused
            }
            if (cur == nullptr || cur->seq != log->writer->expectedSeq) continue;
            flushSpan(*log, *cur, cur->committed.load(std::memory_order_acquire));
            if (exited) retire(log, cur);
        }
        topUpPool();
    }

    // Keeps chunks ready so owners rarely allocate (and page-fault) themselves. The target
    // starts at one per thread (at least 4) and doubles whenever the writer finds the pool
    // drained, up to kMaxPoolTarget chunks (16 MB of 64 KB chunks) and half the memory cap: a
    // bursty producer gets a deeper pool, one that outruns the writer for good does not get
    // more memory, since more would not help.
    void topUpPool() {
        constexpr size_t kMaxPoolTarget = 256;
        const size_t floor = std::max<size_t>(4, m_s.threadCount.load(std::memory_order_relaxed));
        size_t have = m_s.pool.size_approx();
        if (have == 0 && m_poolTarget >= floor) {
            m_poolTarget = std::min(m_poolTarget * 2, std::max(kMaxPoolTarget, floor));
        }
        m_poolTarget = std::max(m_poolTarget, floor);
        while (have < m_poolTarget &&
               m_s.allocated.load(std::memory_order_relaxed) + m_o.chunkBytes <=
                   m_o.maxMemoryBytes / 2) {
            Chunk* c = allocateChunk(m_s, m_o.chunkBytes, false);
            if (c == nullptr) break;
            {
                std::lock_guard<std::mutex> lock(m_s.chunksMutex);
                m_s.allChunks.push_back(c);
            }
            m_s.pool.enqueue(c);
            ++have;
        }
    }

    // Appends the records a thread holds in memory to its fragment file (see
    // Recorder::spillToFragments). False when the write failed; the records stay in memory.
    bool spill(ThreadLog& log) {
        auto& w = *log.writer;
        if (w.memory.empty()) return true;
        if (!writeFragment(log, reinterpret_cast<const unsigned char*>(w.memory.data()),
                           w.memory.size())) {
            return false;
        }
        w.fileRecords += w.memoryRecords;
        w.memory.clear();
        w.memory.shrink_to_fit();
        w.memoryRecords = 0;
        return true;
    }

private:
    void processSealed(ThreadLog& log) {
        auto& w = *log.writer;
        releaseSealedCurrent(log);
        while (!w.pending.empty() && w.pending.front()->seq == w.expectedSeq) {
            Chunk* c = w.pending.front();
            w.pending.pop_front();
            flushSpan(log, *c, c->committed.load(std::memory_order_acquire));
            ++w.expectedSeq;
            // Recycled now, another thread could take it while this writer still reads it as
            // the owner's current chunk.
            if (log.current.load(std::memory_order_acquire) == c) {
                w.sealedCurrent = c;
            } else {
                recycle(c);
            }
        }
    }

    void releaseSealedCurrent(ThreadLog& log) {
        auto& w = *log.writer;
        if (w.sealedCurrent != nullptr &&
            log.current.load(std::memory_order_acquire) != w.sealedCurrent) {
            recycle(w.sealedCurrent);
            w.sealedCurrent = nullptr;
        }
    }

    void retire(const std::shared_ptr<ThreadLog>& log, Chunk* cur) {
        {
            std::lock_guard<std::mutex> lock(m_s.registryMutex);
            auto& v = m_s.logs;
            v.erase(std::remove(v.begin(), v.end(), log), v.end());
        }
        log->current.store(nullptr, std::memory_order_relaxed);
        releaseSealedCurrent(*log);
        recycle(cur);
        if (log->writer->fd >= 0) {
            close(log->writer->fd);
            log->writer->fd = -1;
        }
        log->writer->retired = true;
        m_s.retired.push_back(log);
        m_s.threadCount.fetch_sub(1, std::memory_order_relaxed);
    }

    void recycle(Chunk* c) {
        if (c->oversize) {
            freeChunk(m_s, c);
            return;
        }
        c->owner = nullptr;
        m_s.pool.enqueue(c);
    }

    // Converts records [c.processed, end) to nanoseconds in place and writes them out.
    void flushSpan(ThreadLog& log, Chunk& c, uint32_t end) {
        if (end <= c.processed) return;
        unsigned char* begin = c.data() + c.processed;
        const size_t bytes = end - c.processed;
        uint64_t records = 0;
        for (size_t pos = 0; pos < bytes;) {
            RecordHeader h;
            std::memcpy(&h, begin + pos, sizeof h);
            h.time = m_s.converter.toNs(h.time);
            // Markers keep their thread's order on the trace clock (the conversion may step
            // back by a few ns between calibration points). Agent records are appended after
            // the call they describe and their payloads nest (an API record follows the object
            // and device-time records made inside the call), so their times are left alone.
            if (h.kind <= static_cast<uint32_t>(RecordKind::MarkerEndEx)) {
                h.time = std::max(h.time, log.writer->lastNs);
                log.writer->lastNs = h.time;
            }
            std::memcpy(begin + pos, &h, sizeof h);
            if (recordHasEndTime(h.kind) && h.len0 >= sizeof(uint64_t)) {
                unsigned char* endField = begin + pos + sizeof h;
                uint64_t endTime;
                std::memcpy(&endTime, endField, sizeof endTime);
                endTime = std::max(m_s.converter.toNs(endTime), h.time);
                std::memcpy(endField, &endTime, sizeof endTime);
            }
            pos += recordSize(h.len0, h.len1, h.len2);
            ++records;
        }
        c.processed = end;
        auto& w = *log.writer;
        if (m_o.mode == FlushMode::Timeout && !m_s.degraded && writeFragment(log, begin, bytes)) {
            w.fileRecords += records;
            return;
        }
        w.memory.append(reinterpret_cast<const char*>(begin), bytes);
        w.memoryRecords += records;
    }

    bool writeFragment(ThreadLog& log, const unsigned char* p, size_t n) {
        auto& w = *log.writer;
        std::string error;
        if (w.fd < 0 && !openFragment(log, error)) return fail(w.path, error);
        if (!writeAll(w.fd, p, n, error)) {
            // Cut the partial write so the fragment holds whole records only; the caller keeps
            // this span in memory.
            if (ftruncate(w.fd, static_cast<off_t>(w.fileBytes)) != 0) {
                error += std::string(" (and truncating failed: ") + std::strerror(errno) + ")";
            }
            return fail(w.path, error);
        }
        w.fileBytes += n;
        return true;
    }

    bool openFragment(ThreadLog& log, std::string& error) {
        auto& w = *log.writer;
        w.path = m_o.fragmentDir + "/" +
                 fragmentFileName(m_s.pid, log.tid, log.serial, m_o.fragmentTag);
        // New files only, never through a link (atp/format/safe_files.h). The directory is the
        // process's own: a file already there is a dead process's with the same pid and tid.
        w.fd = atp::createNewFile(w.path, 0600);
        if (w.fd < 0 && errno == EEXIST && unlink(w.path.c_str()) == 0) {
            w.fd = atp::createNewFile(w.path, 0600);
        }
        if (w.fd < 0) {
            error = std::strerror(errno);
            return false;
        }
        FragmentHeader h{};
        std::memcpy(h.magic, kFragmentMagic, sizeof h.magic);
        h.pid = m_s.pid;
        h.tid = log.tid;
        if (!writeAll(w.fd, reinterpret_cast<const unsigned char*>(&h), sizeof h, error)) {
            return false;
        }
        w.fileBytes = sizeof h;
        return true;
    }

    bool fail(const std::string& path, const std::string& error) {
        if (!m_s.degraded) {
            m_s.degraded = true;
            m_s.firstError = "cannot write fragment " + path + ": " + error;
            std::fprintf(stderr, "perfmarker: %s; keeping records in memory\n",
                         m_s.firstError.c_str());
        }
        return false;
    }

    SharedState& m_s;
    const RecorderOptions& m_o;
    size_t m_poolTarget = 0;
};

}  // namespace

void Recorder::startWriter() {
    SharedState* s = m_state.load();
    s->writerStarted = true;
    // The writer must not take the application's signals.
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    s->writer = std::thread([this, s] { writerLoop(s); });
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

void Recorder::writerLoop(SharedState* s) {
    moodycamel::ConsumerToken token(s->full);
    Writer writer(*s, m_options);
    const auto interval = std::chrono::milliseconds(m_options.intervalMs);
    auto nextTick = std::chrono::steady_clock::now() + interval;
    Chunk* batch[64];
    while (!s->stopping.load(std::memory_order_acquire)) {
        auto now = std::chrono::steady_clock::now();
        auto wait = std::chrono::duration_cast<std::chrono::microseconds>(nextTick - now);
        size_t n = s->full.wait_dequeue_bulk_timed(token, batch, 64,
                                                   std::max<int64_t>(wait.count(), 0));
        std::lock_guard<std::mutex> lock(s->flushMutex);
        if (n > 0) {
            s->converter.calibrate();
            writer.acceptSealed(batch, n);
            writer.topUpPool();
        }
        if (std::chrono::steady_clock::now() >= nextTick) {
            s->converter.calibrate();
            writer.flushAll();
            nextTick = std::chrono::steady_clock::now() + interval;
        }
    }
}

void Recorder::flushNow() {
    SharedState* s = m_state.load();
    std::lock_guard<std::mutex> lock(s->flushMutex);
    s->converter.calibrate();
    Writer(*s, m_options).flushAll();
}

namespace {

// MEMBARRIER_CMD_PRIVATE_EXPEDITED needs the process registered once (Linux 4.14+). Without it
// (an older kernel, a seccomp filter) a page's protection is narrowed instead: the kernel then
// interrupts every CPU running the process to flush its TLB, which serializes each of them.
std::once_flag g_membarrierOnce;
bool g_membarrierRegistered = false;

void registerMembarrier() {
    g_membarrierRegistered =
        syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}

void fenceByProtectionChange() {
    static std::mutex mutex;
    static void* page = nullptr;
    const std::lock_guard<std::mutex> lock(mutex);
    const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    if (page == nullptr) {
        page = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (page == MAP_FAILED) {
            page = nullptr;
            return;
        }
    }
    mprotect(page, size, PROT_READ | PROT_WRITE);
    __atomic_add_fetch(static_cast<int*>(page), 1, __ATOMIC_SEQ_CST);  // the page is mapped in
    mprotect(page, size, PROT_NONE);
}

}  // namespace

void Recorder::fenceAllThreads() {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    std::call_once(g_membarrierOnce, registerMembarrier);
    if (g_membarrierRegistered &&
        syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0) {
        return;
    }
    fenceByProtectionChange();
}

bool Recorder::stop(std::string& error) {
    SharedState* s = m_state.load();
    if (!s->stopping.exchange(true)) {
        s->full.enqueue(nullptr);  // wake the writer
        std::thread writer;
        {
            std::lock_guard<std::mutex> lock(s->registryMutex);
            writer = std::move(s->writer);
        }
        if (writer.joinable()) writer.join();
        s->stopped.store(true, std::memory_order_release);
        flushNow();
    }
    std::lock_guard<std::mutex> lock(s->flushMutex);
    if (s->degraded) error = s->firstError;
    return !s->degraded;
}

bool Recorder::spillToFragments(std::string& error) {
    SharedState* s = m_state.load();
    std::lock_guard<std::mutex> flushLock(s->flushMutex);
    if (!s->stopped.load(std::memory_order_acquire)) {
        error = "the recorder is still running";
        return false;
    }
    std::vector<std::shared_ptr<ThreadLog>> logs;
    {
        std::lock_guard<std::mutex> lock(s->registryMutex);
        logs = s->logs;
    }
    logs.insert(logs.end(), s->retired.begin(), s->retired.end());
    // A fresh attempt to reach the disk: a failure sets degraded and firstError again.
    s->degraded = false;
    Writer writer(*s, m_options);
    bool ok = true;
    for (auto& log : logs) ok = writer.spill(*log) && ok;
    if (!ok) error = s->firstError;
    return ok;
}

// ---- read-back ---------------------------------------------------------------------------

bool Recorder::collect(RecordVisitor& visitor, std::string& error) {
    SharedState* s = m_state.load();
    std::lock_guard<std::mutex> flushLock(s->flushMutex);
    std::map<uint64_t, std::vector<ThreadLog*>> byTid;  // ordered by tid, then serial
    {
        std::lock_guard<std::mutex> lock(s->registryMutex);
        for (auto& log : s->logs) byTid[log->tid].push_back(log.get());
    }
    for (auto& log : s->retired) byTid[log->tid].push_back(log.get());
    bool ok = true;
    for (auto& [tid, logs] : byTid) {
        std::sort(logs.begin(), logs.end(),
                  [](const ThreadLog* a, const ThreadLog* b) { return a->serial < b->serial; });
        uint64_t count = 0;
        for (ThreadLog* log : logs) count += log->writer->fileRecords + log->writer->memoryRecords;
        if (count == 0) continue;
        visitor.onThread(tid, count);
        for (ThreadLog* log : logs) {
            auto& w = *log->writer;
            if (w.fileRecords > 0) {
                if (w.fd >= 0) {
                    close(w.fd);
                    w.fd = -1;
                }
                auto visit = [&visitor](const RecordView& r) { visitor.onRecord(r); };
                if (!readFragment(w.path, visit, error)) ok = false;
            }
            const auto* p = reinterpret_cast<const unsigned char*>(w.memory.data());
            RecordView view;
            for (size_t pos = 0, n = 0; pos < w.memory.size(); pos += n) {
                n = decodeRecord(p + pos, w.memory.size() - pos, view);
                if (n == 0) break;
                visitor.onRecord(view);
            }
        }
    }
    return ok;
}

void Recorder::removeFragments() {
    SharedState* s = m_state.load();
    std::lock_guard<std::mutex> flushLock(s->flushMutex);
    auto removeOne = [](ThreadLog& log) {
        if (log.writer->fd >= 0) {
            close(log.writer->fd);
            log.writer->fd = -1;
        }
        if (!log.writer->path.empty()) unlink(log.writer->path.c_str());
    };
    std::lock_guard<std::mutex> lock(s->registryMutex);
    for (auto& log : s->logs) removeOne(*log);
    for (auto& log : s->retired) removeOne(*log);
}

size_t Recorder::allocatedBytes() const { return m_state.load()->allocated.load(); }
size_t Recorder::threadCount() const { return m_state.load()->threadCount.load(); }
bool Recorder::degraded() const {
    SharedState* s = m_state.load();
    std::lock_guard<std::mutex> lock(s->flushMutex);
    return s->degraded;
}

}  // namespace perfmarker::record
