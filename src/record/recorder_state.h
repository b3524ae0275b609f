// The recorder's internals shared by recorder.cpp (the owner threads' slow paths, lifecycle)
// and recorder_writer.cpp (the writer thread): not part of the recorder's interface.
#pragma once

#include <sched.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "record/fragments/packed_block.h"
#include "record/recorder.h"

namespace perfmarker::record {

// Where the process may run on one core only, sealed chunks wake the writer kWakeEvery at a time
// (docs/architecture.md, the writer): each wake is then two switches of threads. With more cores
// every chunk wakes it: fewer, longer runs of the writer made two recording threads on two cores
// wait longer (docs/performance-history.md).
inline constexpr uint32_t kWakeEvery = 8;
inline uint32_t wakeEveryForThisProcess() {
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    return sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) == 1 ? kWakeEvery : 1;
}
// An owner that leaves at most this many chunks in the pool wakes the writer at once, to refill
// it before the owner has to allocate one.
inline constexpr size_t kPoolLow = 2;

// Everything a recorder shares between threads. Replaced wholesale in a fork child (the old
// one may have been mid-update by a thread that does not exist there), never freed while the
// recorder lives.
struct SharedState {
    SharedState(bool useTsc, uint32_t intervalMs, uint64_t fileIndex)
        : tickBase(baseOf(readTicks(useTsc))),
          converter(useTsc, std::max<uint64_t>(1000000, uint64_t{intervalMs} * 1000000 / 256)),
          pid(static_cast<uint64_t>(getpid())),
          index(fileIndex) {}
    ~SharedState() {
        if (fd >= 0) close(fd);
    }

    // Guards `logs`, `nextSerial` and writer start-up. Taken on thread registration (not on the
    // hot path) and by the writer to snapshot the thread list.
    std::mutex registryMutex;
    std::vector<std::shared_ptr<ThreadLog>> logs;
    uint64_t nextSerial = 0;
    std::thread writer;
    bool writerStarted = false;

    moodycamel::ConcurrentQueue<Chunk*> full;  // sealed chunks
    // The writer waits on it without spinning first (the semaphore's default spins 10,000
    // times): a chunk takes tens of microseconds to fill, so a spin of a few microseconds
    // almost never finds one, and where the writer shares a core with the recording thread (a
    // process pinned to one core) the spin holds the core that would fill it
    // (docs/performance.md#where-the-time-goes).
    moodycamel::LightweightSemaphore wake{0, 0};
    std::atomic<uint32_t> unwoken{0};  // chunks queued since the writer was last woken
    const uint32_t wakeEvery = wakeEveryForThisProcess();
    // After a chunk was queued: wakes the writer every `wakeEvery` chunks, or at once (`now`).
    void chunkQueued(bool now) {
        if (now || unwoken.fetch_add(1, std::memory_order_relaxed) + 1 >= wakeEvery) {
            unwoken.store(0, std::memory_order_relaxed);
            wake.signal();
        }
    }
    moodycamel::ConcurrentQueue<Chunk*> pool;          // recycled chunks, writer -> producers
    std::atomic<size_t> allocated{0};
    // Compact records' ticks are relative to this (record_format.h): a little before the
    // state was made, so that a thread whose TSC lags another's by up to 2^32 ticks (about a
    // second) still reads ticks above it.
    static uint64_t baseOf(uint64_t now) {
        return now > (uint64_t{1} << 32) ? now - (uint64_t{1} << 32) : 0;
    }
    const uint64_t tickBase;

    std::atomic<bool> stopping{false};
    std::atomic<bool> stopped{false};  // set under handOverMutex
    // Orders an owner's hand-over of a full chunk with stop(): a chunk is either queued before
    // the final flush drains the queue, or stays its owner's current chunk for that flush.
    std::mutex handOverMutex;
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
    // The recorder's fragment file (under flushMutex): every thread's blocks, in writing order.
    uint64_t index;
    int fd = -1;
    std::string path;
    uint64_t fileBytes = 0;
    // The writer's block being packed (under flushMutex), header first.
    BlockPacker packer;
    // Timeout mode (under flushMutex): packed blocks not yet in the fragment file, appended in
    // one write when they reach RecordWriter's batch size and at every flushAll (each interval,
    // stop), so a crash still loses at most the last interval (docs/session.md#modes).
    struct StagedBlock {
        ThreadLog* log;
        size_t bytes;
        uint32_t records;
    };
    std::vector<unsigned char> staged;
    std::vector<StagedBlock> stagedBlocks;
};

struct ThreadLog::WriterSide {
    std::vector<Chunk*> pending;  // sealed chunks in sequence order (usually none or one)
    uint64_t expectedSeq = 0;
    uint64_t fileRecords = 0;  // records in the fragment file's blocks of this thread
    // Cached mode, or after a failed fragment write: whole blocks, headers included, as they
    // would be in the file.
    std::string memory;
    uint64_t memoryRecords = 0;
    uint64_t lastNs = 0;  // clamp: converted times never go backwards within a thread
    // The strings of the thread's compact Begin slots (record_format.h), empty until filled:
    // views into the chunk being flushed when a slot was filled in it (bit set in
    // `slotsInChunk`), else into the slot's own copy, made at the end of that flush.
    struct BeginSlot {
        std::string_view name, group;
        std::string nameBytes, groupBytes;
    };
    BeginSlot slots[compact::kSlots];
    uint32_t slotsInChunk = 0;
    bool retired = false;
    // A sealed chunk already written out but maybe still the owner's `current` (the owner
    // queues a sealed chunk just before publishing its next one): recycled once it is not.
    Chunk* sealedCurrent = nullptr;
};

// The first chunk of a thread that starts while the memory cap is reached.
constexpr size_t kStarterBytes = 4096 - sizeof(Chunk);

// A chunk of `capacity` data bytes, its pages touched; counted in SharedState::allocated.
Chunk* allocateChunk(SharedState& s, size_t capacity, bool oversize);
void freeChunk(SharedState& s, Chunk* c);

}  // namespace perfmarker::record
