#include "record/recorder.h"

#include <fcntl.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <new>
#include <set>

#include "atp/format/safe_files.h"
#include "record/collect.h"
#include "record/fragments/fragment.h"
#include "record/recorder_state.h"
#include "record/recorder_writer.h"

namespace perfmarker::record {

ThreadLog::ThreadLog() : writer(std::make_unique<WriterSide>()) {}
ThreadLog::~ThreadLog() = default;

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

// The logs of running threads and of retired ones (the caller holds flushMutex).
std::vector<std::shared_ptr<ThreadLog>> everyLog(SharedState& s) {
    std::vector<std::shared_ptr<ThreadLog>> logs;
    {
        std::lock_guard<std::mutex> lock(s.registryMutex);
        logs = s.logs;
    }
    logs.insert(logs.end(), s.retired.begin(), s.retired.end());
    return logs;
}

// Hands this thread's chunks over when the thread ends, so the writer can retire its logs.
struct ExitNotifier {
    std::vector<std::shared_ptr<ThreadLog>> logs;
    ~ExitNotifier() {
        for (auto& log : logs) Recorder::threadEnded(log);
    }
};
thread_local ExitNotifier t_exitNotifier;

}  // namespace

// ---- construction, fork ------------------------------------------------------------------

Recorder::Recorder(RecorderOptions options)
    : m_options(std::move(options)),
      m_useTsc(ticksAreTsc()),
      m_id(g_nextRecorderId.fetch_add(1)),
      m_state(new SharedState(m_useTsc, m_options.intervalMs, m_id.load())) {
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
    // Oversize chunks first: telling them apart reads the pooled chunks, freed last. One can be
    // both queued and a log's current chunk (a thread that ended after the writer stopped).
    std::set<Chunk*> oversize;
    Chunk* c = nullptr;
    while (s->full.try_dequeue(c)) {
        if (c->oversize) oversize.insert(c);
    }
    for (auto& log : s->logs) {
        for (Chunk* p : log->writer->pending) {
            if (p->oversize) oversize.insert(p);
        }
        Chunk* cur = log->current.load();
        if (cur != nullptr && cur->oversize) oversize.insert(cur);
        Chunk* sealed = log->writer->sealedCurrent;
        if (sealed != nullptr && sealed->oversize) oversize.insert(sealed);
    }
    for (Chunk* chunk : oversize) freeChunk(*s, chunk);
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
    m_id.store(g_nextRecorderId.fetch_add(1));
    m_state.store(new SharedState(m_useTsc, m_options.intervalMs, m_id.load()));
}

// ---- registration and chunk hand-off (slow paths of the owner thread) --------------------

ThreadLog* Recorder::threadLogSlow() {
    SharedState* s = m_state.load(std::memory_order_acquire);
    const uint64_t id = m_id.load(std::memory_order_acquire);
    auto log = std::make_shared<ThreadLog>();
    log->state = s;
    log->tid = currentTid();
    log->recorderId = id;
    log->tickBase = s->tickBase;
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

bool Recorder::appendBeginRecord(ThreadLog* log, uint64_t ticks, const char* name,
                                 const char* group, const char* user) {
    const unsigned slot = beginSlotOf(name, group);
    constexpr size_t kMax = compact::kMaxSlotString;
    const size_t nameSize = strnlen(name, kMax + 1);
    const size_t groupSize = group == nullptr ? 0 : strnlen(group, kMax + 1);
    if ((user != nullptr && user[0] != '\0') || nameSize > kMax || groupSize > kMax) {
        return appendCStrings(log, RecordKind::MarkerBegin, ticks, name, group, user);
    }
    const size_t need = sizeof(uint64_t) + recordSize(nameSize, groupSize, 0);
    if (log->cursor + need > log->limit && !rotate(log, need)) return false;
    unsigned char* p = log->base + log->cursor;
    const uint64_t fill = compact::kFill | uint64_t{slot} << compact::kSlotShift;
    std::memcpy(p, &fill, sizeof fill);
    p += sizeof fill;
    storeHeader(p, ticks, static_cast<uint32_t>(RecordKind::MarkerBegin),
                static_cast<uint32_t>(nameSize), static_cast<uint32_t>(groupSize), 0);
    p += sizeof(RecordHeader);
    std::memcpy(p, name, nameSize);
    if (groupSize != 0) std::memcpy(p + nameSize, group, groupSize);
    log->cursor += static_cast<uint32_t>(need);
    publish(log);
    ThreadLog::BeginSlot& s = log->beginSlots[slot];
    s.name.set(name, nameSize);
    s.group.set(group, groupSize);
    return true;
}

void ThreadLog::SlotString::set(const char* s, size_t size) {
    std::memset(words, 0, sizeof words);
    if (size != 0) std::memcpy(words, s, size);
    wholeWords = size / 8;
    const size_t bytes = size % 8 + 1;  // of the last word, the terminator's included
    lastMask = bytes == 8 ? ~uint64_t{0} : (uint64_t{1} << (8 * bytes)) - 1;
}

bool Recorder::rotate(ThreadLog* log, size_t need) {
    SharedState* s = log->state;
    if (log->sealed || s->stopped.load(std::memory_order_acquire)) return false;
    // Hands the full chunk to the writer. Before publishing the new one: a writer that sees the
    // new chunk as current can rely on the old one being in the queue. Not once the recorder
    // has stopped: the final flush has drained the queue, and the chunk stays current for it
    // (it holds records of calls that reported success). `notCurrent` first: at the cap.
    auto handOver = [log, s](bool notCurrent) {
        if (log->chunk == nullptr) return true;
        std::lock_guard<std::mutex> lock(s->handOverMutex);
        if (s->stopped.load(std::memory_order_acquire)) return false;
        if (notCurrent) log->current.store(nullptr, std::memory_order_release);
        s->full.enqueue(*log->token, log->chunk);
        log->chunk = nullptr;
        // At the cap (`notCurrent`) the owner waits for the writer to recycle a chunk.
        s->chunkQueued(notCurrent || s->pool.size_approx() <= kPoolLow);
        return true;
    };
    Chunk* fresh = nullptr;
    if (need > m_options.chunkBytes) {
        fresh = allocateChunk(*s, need, true);
    } else {
        const bool firstChunk = log->nextSeq == 0;
        while (!s->pool.try_dequeue(fresh)) {
            if (s->allocated.load(std::memory_order_relaxed) + m_options.chunkBytes <=
                m_options.maxMemoryBytes) {
                fresh = allocateChunk(*s, m_options.chunkBytes, false);
                if (fresh != nullptr) {
                    std::lock_guard<std::mutex> lock(s->chunksMutex);
                    s->allChunks.push_back(fresh);
                }
                break;
            }
            if (firstChunk) {
                // A thread's first chunk does not wait: the cap may be held entirely by other
                // threads' current chunks, which only those threads can release. It gets a
                // small one, freed after use, so that many threads pass the cap by little.
                fresh = allocateChunk(*s, std::max(need, kStarterBytes), true);
                break;
            }
            // At the memory cap: wait for the writer to recycle a chunk rather than drop data.
            // The full chunk goes to the writer first (and stops being current), so that every
            // thread waiting here gives one back: the wait ends for any number of threads.
            // Not current first, so the writer recycles the chunk as soon as it is written.
            if (!handOver(true)) return false;  // stopped: still current for the final flush
            if (s->stopped.load(std::memory_order_acquire)) {
                log->base = nullptr;
                log->cursor = log->limit = 0;
                return false;
            }
            std::this_thread::sleep_for(std::chrono::microseconds(50));
        }
    }
    if (fresh == nullptr) {
        if (log->chunk == nullptr) {  // handed over above: nothing of it may be written again
            log->base = nullptr;
            log->cursor = log->limit = 0;
        }
        return false;
    }
    fresh->seq = log->nextSeq++;
    fresh->owner = log;
    fresh->last = false;
    fresh->committed.store(0, std::memory_order_relaxed);
    fresh->processed = 0;
    if (!handOver(false)) {
        if (fresh->oversize) {
            freeChunk(*s, fresh);
        } else {
            s->pool.enqueue(fresh);
        }
        return false;
    }
    log->chunk = fresh;
    log->base = fresh->data();
    log->cursor = 0;
    log->limit = fresh->capacity;
    log->current.store(fresh, std::memory_order_release);
    return true;
}

void Recorder::threadEnded(const std::shared_ptr<ThreadLog>& log) {
    // The main thread's thread_local objects go first in exit(), before the atexit handlers and
    // static destructors, which may still record: its log stays open, and the exit flush (or
    // finalize) writes its chunk.
    if (log->tid == static_cast<uint64_t>(getpid())) return;
    // Under g_liveMutex: the recorder is not destroyed, nor reset by a fork, meanwhile. Its id
    // (never reused, unlike the address of a state) says the log is still its.
    std::lock_guard<std::mutex> lock(g_liveMutex);
    const auto& live = liveRecorders();
    const bool ours = std::any_of(live.begin(), live.end(), [&log](const Recorder* r) {
        return r->m_id.load(std::memory_order_acquire) == log->recorderId &&
               r->m_state.load(std::memory_order_acquire) == log->state;
    });
    // Under handOverMutex, against stop(): once the recorder has stopped, the final flush has
    // drained the queue, and the chunk stays current for it.
    std::unique_lock<std::mutex> handOverLock;
    if (ours) handOverLock = std::unique_lock<std::mutex>(log->state->handOverMutex);
    const bool handOver =
        ours && log->chunk != nullptr && !log->state->stopped.load(std::memory_order_acquire);
    if (handOver) {
        // The writer retires the log when it has written this chunk, and recycles it then.
        log->chunk->last = true;
        log->state->full.enqueue(*log->token, log->chunk);
        log->state->chunkQueued(true);  // its chunks go back to the pool at once
        log->chunk = nullptr;
    } else {
        // The writer retires the log at its next flush of all threads.
        log->exited.store(true, std::memory_order_release);
    }
    // Whatever this thread's later thread_local destructors record is refused: its chunk is
    // the writer's now.
    log->base = nullptr;
    log->cursor = log->limit = 0;
    log->sealed = true;
}

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
    // Named, so that top -H, perf and the benchmarks tell it from the application's threads.
    pthread_setname_np(pthread_self(), kWriterThreadName);
    moodycamel::ConsumerToken token(s->full);
    RecordWriter writer(*s, m_options);
    const auto interval = std::chrono::milliseconds(m_options.intervalMs);
    auto nextTick = std::chrono::steady_clock::now() + interval;
    Chunk* batch[64];
    while (!s->stopping.load(std::memory_order_acquire)) {
        auto now = std::chrono::steady_clock::now();
        auto wait = std::chrono::duration_cast<std::chrono::microseconds>(nextTick - now);
        s->wake.wait(std::max<int64_t>(wait.count(), 0));
        // Every chunk queued is taken below: the signals of the owners that queued them
        // meanwhile would only wake the writer again for nothing.
        s->wake.tryWaitMany(std::numeric_limits<int32_t>::max());
        s->unwoken.store(0, std::memory_order_relaxed);
        std::lock_guard<std::mutex> lock(s->flushMutex);
        size_t n = s->full.try_dequeue_bulk(token, batch, 64);
        if (n > 0) {
            s->converter.calibrate();
            do {
                writer.acceptSealed(batch, n);
            } while ((n = s->full.try_dequeue_bulk(token, batch, 64)) > 0);
            writer.topUpPool();
        }
        if (std::chrono::steady_clock::now() >= nextTick) {
            s->converter.calibrate();
            writer.flushAll();
            nextTick = std::chrono::steady_clock::now() + interval;
        }
    }
}

void Recorder::flush(bool final) {
    SharedState* s = m_state.load();
    std::lock_guard<std::mutex> lock(s->flushMutex);
    s->converter.calibrate();
    RecordWriter(*s, m_options).flushAll(final);
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
        s->wake.signal();
        std::thread writer;
        {
            std::lock_guard<std::mutex> lock(s->registryMutex);
            writer = std::move(s->writer);
        }
        if (writer.joinable()) writer.join();
        {
            // A chunk handed over from here on would miss the final flush: rotate() and
            // threadEnded() check `stopped` under the same lock, and keep it current instead.
            std::lock_guard<std::mutex> lock(s->handOverMutex);
            s->stopped.store(true, std::memory_order_release);
        }
        flush(true);
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
    const std::vector<std::shared_ptr<ThreadLog>> logs = everyLog(*s);
    // A fresh attempt to reach the disk: a failure sets degraded and firstError again.
    s->degraded = false;
    RecordWriter writer(*s, m_options);
    bool ok = true;
    for (auto& log : logs) ok = writer.spill(*log) && ok;
    if (!ok) error = s->firstError;
    return ok;
}

// ---- read-back ---------------------------------------------------------------------------

std::string countMismatch(const std::string& path, uint64_t tid, uint64_t read, uint64_t written) {
    return path + ": thread " + std::to_string(tid) + " has " + std::to_string(read) +
           " records in the fragment, " + std::to_string(written) + " were written";
}

bool Recorder::planCollect(CollectPlan& plan, std::string& error) {
    SharedState* s = m_state.load();
    plan.lock = std::unique_lock<std::mutex>(s->flushMutex);
    std::map<uint64_t, std::vector<ThreadLog*>> byTid;  // ordered by tid, then serial
    {
        std::lock_guard<std::mutex> lock(s->registryMutex);
        for (auto& log : s->logs) byTid[log->tid].push_back(log.get());
    }
    for (auto& log : s->retired) byTid[log->tid].push_back(log.get());
    // The fragment file's blocks, by thread.
    plan.path = s->path;
    bool ok = true;
    if (s->fd >= 0) {
        ok = plan.file.open(s->path, error);
        if (ok) plan.streams = plan.file.streams();
    }
    std::map<std::pair<uint64_t, uint64_t>, const FragmentStream*> streams;
    for (const FragmentStream& stream : plan.streams)
        streams[{stream.tid, stream.serial}] = &stream;
    for (auto& [tid, logs] : byTid) {
        std::sort(logs.begin(), logs.end(),
                  [](const ThreadLog* a, const ThreadLog* b) { return a->serial < b->serial; });
        CollectPlan::Thread thread;
        thread.tid = tid;
        for (ThreadLog* log : logs) {
            const auto& w = *log->writer;
            thread.records += w.fileRecords + w.memoryRecords;
            const auto stream = streams.find({log->tid, log->serial});
            thread.parts.push_back(
                {stream == streams.end() ? nullptr : stream->second, w.fileRecords, w.memory});
        }
        if (thread.records > 0) plan.threads.push_back(std::move(thread));
    }
    return ok;
}

void Recorder::removeFragments() {
    SharedState* s = m_state.load();
    std::lock_guard<std::mutex> flushLock(s->flushMutex);
    if (s->fd >= 0) {
        close(s->fd);
        s->fd = -1;
    }
    if (!s->path.empty()) unlink(s->path.c_str());
}

size_t Recorder::allocatedBytes() const { return m_state.load()->allocated.load(); }
size_t Recorder::heldBytes() const {
    SharedState* s = m_state.load();
    std::lock_guard<std::mutex> flushLock(s->flushMutex);
    const std::vector<std::shared_ptr<ThreadLog>> logs = everyLog(*s);
    size_t bytes = 0;
    for (const auto& log : logs) bytes += log->writer->memory.size();
    return bytes;
}

size_t Recorder::threadCount() const { return m_state.load()->threadCount.load(); }
bool Recorder::degraded() const {
    SharedState* s = m_state.load();
    std::lock_guard<std::mutex> lock(s->flushMutex);
    return s->degraded;
}

}  // namespace perfmarker::record
