// The recorder's writer (src/record/recorder_writer.h), driven directly: chunks in the states a
// running recorder leaves them in, then the final flush of a stopped recorder.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "record/recorder_state.h"
#include "record/recorder_writer.h"

namespace perfmarker::record {
namespace {

using ::testing::HasSubstr;

// A chunk of `log` numbered `seq` holding begin markers named `name`, `count` of them.
Chunk* chunkOf(SharedState& s, ThreadLog& log, uint64_t seq, const std::string& name, int count) {
    Chunk* c = allocateChunk(s, 4096, true);
    c->seq = seq;
    c->owner = &log;
    uint32_t used = 0;
    for (int i = 0; i < count; ++i) {
        unsigned char* p = c->data() + used;
        storeHeader(p, 1000 + used, static_cast<uint32_t>(RecordKind::MarkerBegin),
                    static_cast<uint32_t>(name.size()), 0, 0);
        std::memcpy(p + sizeof(RecordHeader), name.data(), name.size());
        used += static_cast<uint32_t>(recordSize(name.size(), 0, 0));
    }
    c->committed.store(used);
    return c;
}

// The names of the records the writer holds in memory for `log` (cached mode), in order.
std::vector<std::string> namesHeld(const ThreadLog& log) {
    std::vector<std::string> names;
    const std::string& memory = log.writer->memory;
    const auto* p = reinterpret_cast<const unsigned char*>(memory.data());
    BlockUnpacker unpacker;
    BlockHeader h;
    for (size_t pos = 0; pos + sizeof h <= memory.size(); pos += sizeof h + h.bytes) {
        std::memcpy(&h, p + pos, sizeof h);
        unpacker.unpack(p + pos + sizeof h, h.bytes,
                        [&](const RecordView& r) { names.emplace_back(r.str0); });
    }
    return names;
}

// A chunk that never reached the writer (an internal error: chunks are queued before their
// successor is published) is reported by the final flush, and the thread's chunks after it,
// held back behind it, are written all the same rather than dropped in silence.
TEST(record_Writer, TheFinalFlushWritesChunksHeldBehindOneThatNeverCame) {
    RecorderOptions options;
    options.mode = FlushMode::Cached;
    SharedState s(false, 100, 1);
    auto log = std::make_shared<ThreadLog>();
    log->tid = 77;
    log->state = &s;
    s.logs.push_back(log);
    // Chunk 0 is lost; chunk 1 was queued (the writer holds it back); chunk 2 is current.
    Chunk* held = chunkOf(s, *log, 1, "held", 3);
    Chunk* current = chunkOf(s, *log, 2, "current", 2);
    log->writer->pending.push_back(held);
    log->current.store(current);
    s.stopped.store(true);

    RecordWriter running(s, options);
    running.flushAll();  // an interval flush waits for chunk 0
    EXPECT_TRUE(namesHeld(*log).empty());

    ::testing::internal::CaptureStderr();
    RecordWriter(s, options).flushAll(true);
    const std::string err = ::testing::internal::GetCapturedStderr();
    EXPECT_THAT(err, HasSubstr("chunk 0 of thread 77 never reached the writer"));
    EXPECT_EQ(namesHeld(*log),
              (std::vector<std::string>{"held", "held", "held", "current", "current"}));
    EXPECT_EQ(log->writer->memoryRecords, 5u);
    EXPECT_TRUE(log->writer->pending.empty());

    // A thread whose current chunk was queued and written just before it could publish the next
    // one is no gap: nothing is said.
    auto other = std::make_shared<ThreadLog>();
    other->tid = 78;
    other->state = &s;
    s.logs.push_back(other);
    Chunk* written = chunkOf(s, *other, 4, "written", 1);
    written->processed = written->committed.load();
    other->writer->expectedSeq = 5;
    other->current.store(written);
    ::testing::internal::CaptureStderr();
    RecordWriter(s, options).flushAll(true);
    EXPECT_EQ(::testing::internal::GetCapturedStderr().find("never reached"), std::string::npos);
    EXPECT_TRUE(namesHeld(*other).empty());

    log->current.store(nullptr);
    other->current.store(nullptr);
    freeChunk(s, current);
    freeChunk(s, written);
    for (Chunk* c : s.allChunks) freeChunk(s, c);  // the pool the writer topped up
}

}  // namespace
}  // namespace perfmarker::record
