#include "record/recorder_writer.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "atp/format/safe_files.h"
#include "record/fragments/fragment.h"

namespace perfmarker::record {

// A compact record's tag and slot bits are its marker word's: packWords() keeps them.
static_assert(compact::kSlots == packed::kWordSlots && compact::kEnd == packed::kWordEnd &&
                  compact::kBegin == packed::kWordBegin &&
                  compact::kSlotShift == packed::kWordSlotShift,
              "compact records and marker words share their layout");

namespace {

// The bit of a compact word's top five bits (its tag and slot) in packableWords(): the word
// can be packed as it is when that bit is set.
inline unsigned topBits(uint64_t word) {
    return static_cast<unsigned>(word >> compact::kSlotShift);
}

// The top five bits of the words packWords() packs: an End (its slot bits zero) and a Begin of a
// slot the block defines.
inline uint32_t packableWords(uint32_t definedSlots) {
    return uint32_t{1} << topBits(compact::kEnd) | definedSlots << topBits(compact::kBegin);
}

// packWords()'s loop, for the converter's current segment (`Identity`: ticks are nanoseconds).
// Ends before a word that is not packable, whose time is outside the segment or past a marker
// word's 59 bits; returns where.
template <bool Identity>
size_t packWordLoop(const unsigned char* p, size_t pos, size_t end, unsigned char*& out,
                    uint64_t& last, uint32_t packable, uint64_t base,
                    const TickConverter::Fast convert) {
    unsigned char* o = out;
    uint64_t l = last;
    for (; pos < end; pos += 8) {
        uint64_t word;
        std::memcpy(&word, p + pos, sizeof word);
        if (((packable >> topBits(word)) & 1) == 0) break;
        const uint64_t ticks = base + (word & compact::kTickMask);
        uint64_t ns = ticks;
        if (!Identity && !convert.convertInSegment(ticks, ns)) break;
        ns = std::max(ns, l);
        if (ns > packed::kWordTimeMask) break;
        l = ns;
        const uint64_t packedWord = (word & ~compact::kTickMask) | ns;
        std::memcpy(o, &packedWord, sizeof packedWord);
        o += sizeof packedWord;
    }
    out = o;
    last = l;
    return pos;
}

}  // namespace

size_t RecordWriter::packWords(ThreadLog::WriterSide& w, const unsigned char* p, size_t pos,
                               size_t end) {
    BlockPacker& block = m_s.packer;
    const TickConverter::Fast convert = m_s.converter.fast();
    const uint32_t packable = packableWords(block.definedSlots());
    uint64_t last = w.lastNs;
    unsigned char* out = block.openWords((end - pos) / 8);
    pos = convert.identity
              ? packWordLoop<true>(p, pos, end, out, last, packable, m_s.tickBase, convert)
              : packWordLoop<false>(p, pos, end, out, last, packable, m_s.tickBase, convert);
    block.closeWords(out, last);
    w.lastNs = last;
    return pos;
}

size_t RecordWriter::packApiRun(unsigned char* p, size_t pos, size_t end, uint64_t kindAndLen0) {
    const size_t len0 = kindAndLen0 >> 32;
    const size_t stride = sizeof(RecordHeader) + len0;
    size_t at = pos + stride;
    if (!packed::packsInLine(len0) || end - at < stride) return at;
    BlockPacker& block = m_s.packer;
    const TickConverter::Fast convert = m_s.converter.fast();
    const auto kind = static_cast<uint32_t>(RecordKind::ApiCall);
    const unsigned char tag = packed::payloadTag(kind);
    unsigned char* out = block.openRecords((end - at) / stride * packed::kMostEndRecord);
    uint64_t last = block.lastTime();
    uint32_t records = 0;
    char* const chunk = reinterpret_cast<char*>(p);
    for (; end - at >= stride; at += stride) {
        const char* const h = chunk + at;
        char* const payload = chunk + at + sizeof(RecordHeader);
        const uint64_t ticks = atp::load8(h);
        uint64_t start, endNs;
        if ((ticks & compact::kTagMask) != 0 || atp::load8(h + 8) != kindAndLen0 ||
            atp::load8(h + 16) != 0 || !convert.convert(ticks, start) ||
            !convert.convert(atp::load8(payload), endNs)) {
            break;
        }
        endNs = std::max(endNs, start);
        const char* const before = payload - stride;  // the previous call's, converted
        if (endNs == atp::load8(before) || !packed::sameAfterFirstWord(payload, before, len0)) {
            break;
        }
        std::memcpy(payload, &endNs, sizeof endNs);  // converted, as flushSpan stores it
        *out = tag;
        out = packed::putEndPayload(packed::putVarint(out + 1, packed::zigzag(start - last)), start,
                                    endNs);
        last = start;
        ++records;
    }
    block.closeRecords(out, records, last, kind, chunk + at - stride + sizeof(RecordHeader));
    return at;
}

void RecordWriter::acceptSealed(Chunk* const* chunks, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        ThreadLog* owner = chunks[i]->owner;
        // The writer thread dequeues outside flushMutex, so a concurrent flushNow() can
        // route a later chunk of the same thread first: keep pending in sequence order.
        auto& pending = owner->writer->pending;
        pending.insert(std::upper_bound(pending.begin(), pending.end(), chunks[i]->seq,
                                        [](uint64_t seq, const Chunk* c) { return seq < c->seq; }),
                       chunks[i]);
        processSealed(*owner);
    }
}

void RecordWriter::flushAll(bool final) {
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
        if (cur == nullptr || cur->seq != log->writer->expectedSeq) {
            if (final) flushPastGap(*log);
            continue;
        }
        flushSpan(*log, *cur, cur->committed.load(std::memory_order_acquire));
        if (exited) retire(log, cur);
    }
    writeStaged();
    topUpPool();
}

void RecordWriter::flushPastGap(ThreadLog& log) {
    auto& w = *log.writer;
    Chunk* cur = log.current.load(std::memory_order_acquire);
    // A current chunk behind the expected one is a chunk its owner queued (and the writer
    // wrote) just before the owner could publish the next one: no gap.
    if (w.pending.empty() && (cur == nullptr || cur->seq <= w.expectedSeq)) return;
    const uint64_t missing = w.expectedSeq;
    std::fprintf(stderr,
                 "perfmarker: internal error: chunk %llu of thread %llu never reached the writer; "
                 "the records after it are written all the same\n",
                 static_cast<unsigned long long>(missing),
                 static_cast<unsigned long long>(log.tid));
    while (!w.pending.empty()) {
        Chunk* c = w.pending.front();
        w.pending.erase(w.pending.begin());
        flushSpan(log, *c, c->committed.load(std::memory_order_acquire));
        w.expectedSeq = c->seq + 1;
        if (c != cur) recycle(c);
    }
    if (cur != nullptr && cur->seq >= w.expectedSeq) {
        w.expectedSeq = cur->seq;
        flushSpan(log, *cur, cur->committed.load(std::memory_order_acquire));
    }
}

void RecordWriter::topUpPool() {
    constexpr size_t kMaxPoolTarget = 256;
    const size_t floor = std::max<size_t>(4, m_s.threadCount.load(std::memory_order_relaxed));
    size_t have = m_s.pool.size_approx();
    if (have == 0 && m_poolTarget >= floor) {
        m_poolTarget = std::min(m_poolTarget * 2, std::max(kMaxPoolTarget, floor));
    }
    m_poolTarget = std::max(m_poolTarget, floor);
    while (have < m_poolTarget && m_s.allocated.load(std::memory_order_relaxed) + m_o.chunkBytes <=
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

bool RecordWriter::spill(ThreadLog& log) {
    auto& w = *log.writer;
    if (w.memory.empty()) return true;
    // The memory holds whole blocks: one write, cut back on failure, and nothing kept twice.
    if (!writeBlocks(reinterpret_cast<const unsigned char*>(w.memory.data()), w.memory.size())) {
        return false;
    }
    w.fileRecords += w.memoryRecords;
    w.memoryRecords = 0;
    w.memory.clear();
    w.memory.shrink_to_fit();
    return true;
}

void RecordWriter::processSealed(ThreadLog& log) {
    auto& w = *log.writer;
    releaseSealedCurrent(log);
    while (!w.pending.empty() && w.pending.front()->seq == w.expectedSeq) {
        Chunk* c = w.pending.front();
        w.pending.erase(w.pending.begin());
        flushSpan(log, *c, c->committed.load(std::memory_order_acquire));
        ++w.expectedSeq;
        if (c->last) {
            retireEnded(log, c);
            return;
        }
        // Recycled now, another thread could take it while this writer still reads it as
        // the owner's current chunk.
        if (log.current.load(std::memory_order_acquire) == c) {
            w.sealedCurrent = c;
        } else {
            recycle(c);
        }
    }
}

void RecordWriter::releaseSealedCurrent(ThreadLog& log) {
    auto& w = *log.writer;
    if (w.sealedCurrent != nullptr &&
        log.current.load(std::memory_order_acquire) != w.sealedCurrent) {
        recycle(w.sealedCurrent);
        w.sealedCurrent = nullptr;
    }
}

void RecordWriter::retire(const std::shared_ptr<ThreadLog>& log, Chunk* cur) {
    {
        std::lock_guard<std::mutex> lock(m_s.registryMutex);
        auto& v = m_s.logs;
        v.erase(std::remove(v.begin(), v.end(), log), v.end());
    }
    log->current.store(nullptr, std::memory_order_relaxed);
    releaseSealedCurrent(*log);
    recycle(cur);
    finishRetiring(log);
}

void RecordWriter::retireEnded(ThreadLog& log, Chunk* last) {
    std::shared_ptr<ThreadLog> owned;
    {
        std::lock_guard<std::mutex> lock(m_s.registryMutex);
        auto& v = m_s.logs;
        auto it =
            std::find_if(v.begin(), v.end(), [&log](const auto& l) { return l.get() == &log; });
        if (it == v.end()) return;  // cannot happen: a log is retired once
        owned = *it;
        v.erase(it);
    }
    log.current.store(nullptr, std::memory_order_relaxed);
    releaseSealedCurrent(log);
    recycle(last);
    finishRetiring(owned);
}

void RecordWriter::finishRetiring(const std::shared_ptr<ThreadLog>& log) {
    log->writer->retired = true;
    log->writer->pending = {};
    log->token.reset();  // the queue reuses the producer for a new thread
    m_s.retired.push_back(log);
    m_s.threadCount.fetch_sub(1, std::memory_order_relaxed);
}

void RecordWriter::recycle(Chunk* c) {
    if (c->oversize) {
        freeChunk(m_s, c);
        return;
    }
    c->owner = nullptr;
    c->last = false;
    m_s.pool.enqueue(c);
}

void RecordWriter::flushSpan(ThreadLog& log, Chunk& c, uint32_t end) {
    if (end <= c.processed) return;
    unsigned char* const begin = c.data() + c.processed;
    const size_t bytes = end - c.processed;
    auto& w = *log.writer;
    BlockPacker& block = m_s.packer;
    block.begin(sizeof(BlockHeader));
    RecordView r;
    unsigned fill = compact::kSlots;  // none
    // An API call's end time (its payload's first word), converted in place, never before its
    // start.
    const auto convertEnd = [this](unsigned char* field, uint64_t startNs) {
        uint64_t endTime;
        std::memcpy(&endTime, field, sizeof endTime);
        endTime = std::max(m_s.converter.toNs(endTime), startNs);
        std::memcpy(field, &endTime, sizeof endTime);
    };
    for (size_t pos = 0, n = 0; pos < bytes; pos += n) {
        uint64_t word;
        std::memcpy(&word, begin + pos, sizeof word);
        if (const uint64_t tag = word & compact::kTagMask) {
            // A compact record (record_format.h), packed as a marker word
            // (fragments/packed_block.h): a run of them in one loop, else (a slot to define, a tick
            // conversion outside the last segment) this one on its own.
            if (tag != compact::kFill) {
                const size_t to = packWords(w, begin, pos, bytes);
                if (to != pos) {
                    n = to - pos;
                    continue;
                }
            }
            n = sizeof word;
            const unsigned slot = compact::slotOf(word);
            if (tag == compact::kFill) {
                fill = slot;
                continue;
            }
            const uint64_t ns =
                std::max(m_s.converter.toNs(m_s.tickBase + (word & compact::kTickMask)), w.lastNs);
            w.lastNs = ns;
            if (tag == compact::kEnd) {
                block.addEndWord(ns);
            } else {
                block.addBeginWord(ns, slot, w.slots[slot].name, w.slots[slot].group);
            }
            continue;
        }
        // An API call's record, most of an agent's: its header in two loads, its times
        // converted, packed in line (addPayloadRecord). Any other record: decodeRecord, add().
        if (bytes - pos >= sizeof(RecordHeader) && fill == compact::kSlots) {
            static_assert(offsetof(RecordHeader, kind) == 8 && offsetof(RecordHeader, len0) == 12 &&
                              offsetof(RecordHeader, len1) == 16 &&
                              offsetof(RecordHeader, len2) == 20,
                          "the writer reads the header's fields two at a time");
            uint64_t kindAndLen0;
            uint64_t len1And2;
            std::memcpy(&kindAndLen0, begin + pos + 8, 8);
            std::memcpy(&len1And2, begin + pos + 16, 8);
            const size_t len0 = kindAndLen0 >> 32;
            if (static_cast<uint32_t>(kindAndLen0) == static_cast<uint32_t>(RecordKind::ApiCall) &&
                len1And2 == 0 && len0 % 8 == 0 && len0 >= 24 &&
                len0 <= bytes - pos - sizeof(RecordHeader)) {
                const uint64_t time = m_s.converter.toNs(word);
                unsigned char* const payload = begin + pos + sizeof(RecordHeader);
                convertEnd(payload, time);
                block.addPayloadRecord(static_cast<uint32_t>(RecordKind::ApiCall), time,
                                       {reinterpret_cast<const char*>(payload), len0});
                n = packApiRun(begin, pos, bytes, kindAndLen0) - pos;
                continue;
            }
        }
        n = decodeRecord(begin + pos, bytes - pos, r);
        if (n == 0) break;  // cannot happen: the owner commits whole records only
        if (fill != compact::kSlots) {
            ThreadLog::WriterSide::BeginSlot& s = w.slots[fill];
            s.name = r.str0;
            s.group = r.str1;
            w.slotsInChunk |= 1u << fill;
            block.forgetSlot(fill);
            fill = compact::kSlots;
        }
        r.time = m_s.converter.toNs(r.time);
        // Markers keep their thread's order on the trace clock (the conversion may step
        // back by a few ns between calibration points). Agent records are appended after
        // the call they describe and their payloads nest (an API record follows the object
        // and device-time records made inside the call), so their times are left alone.
        if (r.kind <= RecordKind::MarkerEndEx) {
            r.time = std::max(r.time, w.lastNs);
            w.lastNs = r.time;
        }
        if (recordHasEndTime(static_cast<uint32_t>(r.kind)) && r.str0.size() >= sizeof(uint64_t)) {
            convertEnd(begin + pos + sizeof(RecordHeader), r.time);
        }
        block.add(r);
    }
    // The chunk goes back to the pool: slots filled in it keep a copy of their strings.
    for (uint32_t bits = w.slotsInChunk; bits != 0; bits &= bits - 1) {
        ThreadLog::WriterSide::BeginSlot& s = w.slots[__builtin_ctz(bits)];
        s.nameBytes.assign(s.name);
        s.groupBytes.assign(s.group);
        s.name = s.nameBytes;
        s.group = s.groupBytes;
    }
    w.slotsInChunk = 0;
    c.processed = end;
    const uint32_t records = block.records();
    const BlockHeader h{log.tid, log.serial, static_cast<uint32_t>(block.size() - sizeof h),
                        records};
    std::memcpy(block.data(), &h, sizeof h);
    if (m_o.mode == FlushMode::Timeout && !m_s.degraded) {
        stage(log, block.data(), block.size(), records);
        return;
    }
    keepInMemory(w, block.data(), block.size(), records);
}

void RecordWriter::keepInMemory(ThreadLog::WriterSide& w, const unsigned char* p, size_t n,
                                uint32_t records) {
    w.memory.append(reinterpret_cast<const char*>(p), n);
    w.memoryRecords += records;
}

void RecordWriter::stage(ThreadLog& log, const unsigned char* p, size_t n, uint32_t records) {
    // One write per batch instead of one per chunk: writing each chunk's block (about 6 KB of
    // marker pairs) costs the writer about 6 ns a pair in the kernel, 256 KiB batches about
    // 1.5 ns (docs/performance.md#writing-the-output). Small memory caps stage less.
    constexpr size_t kBatchBytes = size_t{256} << 10;
    const size_t batch = std::min(kBatchBytes, m_o.maxMemoryBytes / 16);
    if (m_s.staged.capacity() < batch) m_s.staged.reserve(batch);
    m_s.staged.insert(m_s.staged.end(), p, p + n);
    m_s.stagedBlocks.push_back({&log, n, records});
    if (m_s.staged.size() >= batch) writeStaged();
}

void RecordWriter::writeStaged() {
    if (m_s.stagedBlocks.empty()) return;
    const bool written = !m_s.degraded && writeBlocks(m_s.staged.data(), m_s.staged.size());
    const unsigned char* p = m_s.staged.data();
    for (const SharedState::StagedBlock& b : m_s.stagedBlocks) {
        auto& w = *b.log->writer;
        if (written) {
            w.fileRecords += b.records;
        } else {
            keepInMemory(w, p, b.bytes, b.records);
        }
        p += b.bytes;
    }
    m_s.staged.clear();
    m_s.stagedBlocks.clear();
}

bool RecordWriter::writeBlocks(const unsigned char* p, size_t n) {
    std::string error;
    if (m_s.fd < 0 && !openFragment(error)) return fail(m_s.path, error);
    if (const int err = atp::appendAll(m_s.fd, m_s.fileBytes, p, n)) {
        error = std::strerror(err);
        // Cut back to whole blocks, and write the next block there, not after a hole.
        if (ftruncate(m_s.fd, static_cast<off_t>(m_s.fileBytes)) != 0 ||
            lseek(m_s.fd, static_cast<off_t>(m_s.fileBytes), SEEK_SET) < 0) {
            error += std::string(" (and cutting it back failed: ") + std::strerror(errno) + ")";
        }
        return fail(m_s.path, error);
    }
    m_s.fileBytes += n;
    return true;
}

bool RecordWriter::openFragment(std::string& error) {
    m_s.path = m_o.fragmentDir + "/" + fragmentFileName(m_s.pid, m_s.index, m_o.fragmentTag);
    // New files only, never through a link (atp/format/safe_files.h). The directory is the
    // process's own: a file already there is a dead process's with the same pid.
    m_s.fd = atp::createNewFile(m_s.path, 0600);
    if (m_s.fd < 0 && errno == EEXIST && unlink(m_s.path.c_str()) == 0) {
        m_s.fd = atp::createNewFile(m_s.path, 0600);
    }
    if (m_s.fd < 0) {
        error = std::strerror(errno);
        return false;
    }
    FragmentHeader h{};
    std::memcpy(h.magic, kFragmentMagic, sizeof h.magic);
    h.pid = m_s.pid;
    h.index = m_s.index;
    if (const int err = atp::appendAll(m_s.fd, 0, &h, sizeof h)) {
        error = std::strerror(err);
        close(m_s.fd);
        m_s.fd = -1;
        unlink(m_s.path.c_str());
        return false;
    }
    m_s.fileBytes = sizeof h;
    return true;
}

bool RecordWriter::fail(const std::string& path, const std::string& error) {
    if (!m_s.degraded) {
        m_s.degraded = true;
        m_s.firstError = "cannot write fragment " + path + ": " + error;
        std::fprintf(stderr, "perfmarker: %s; keeping records in memory\n", m_s.firstError.c_str());
    }
    return false;
}
}  // namespace perfmarker::record
