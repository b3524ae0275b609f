// Recorder::collect(): finalize's reading of every record, grouped by thread. A template, so
// that a visitor that is not virtual (finalize's text) is inlined in the unpacking loop: with a
// virtual call per record, the call and its argument passing were a fifth of the text's
// instructions (docs/performance.md).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "record/fragments/fragment.h"
#include "record/fragments/packed_block.h"
#include "record/recorder.h"

namespace perfmarker::record {

// What collect() delivers, in order, and the flush lock it holds meanwhile (planCollect()).
struct CollectPlan {
    // A log of the thread: the first `fileRecords` records of its stream in the fragment file
    // (null when the file has none), then the whole packed blocks it holds in memory.
    struct Part {
        const FragmentStream* stream = nullptr;
        uint64_t fileRecords = 0;
        std::string_view memory;
    };
    struct Thread {
        uint64_t tid = 0;
        uint64_t records = 0;
        std::vector<Part> parts;
    };
    std::unique_lock<std::mutex> lock;
    FragmentReader file;
    std::vector<FragmentStream> streams;  // the parts' streams
    std::vector<Thread> threads;          // in increasing tid order, none without records
    std::string path;                     // of the fragment file
};

// The error of a thread whose stream holds other than the records the writer put there.
std::string countMismatch(const std::string& path, uint64_t tid, uint64_t read, uint64_t written);

// What collect() hands the unpacker for a part: the visitor's onRecord() for at most `limit`
// records (a stream in the file holds exactly those the writer put there; more is damage), and
// its onWords() for runs of marker words when it has one (finalize's text).
template <typename Visitor>
struct CollectVisit {
    Visitor& visitor;
    uint64_t limit;
    uint64_t delivered = 0;

    // Inlined in the unpacking loop, so that the record's views stay in registers (a view
    // stored by the unpacker and loaded back by the visitor waits for the store).
    __attribute__((always_inline)) void operator()(const RecordView& r) {
        if (delivered++ < limit) visitor.onRecord(r);
    }
    template <typename V = Visitor,
              typename = decltype(std::declval<V&>().onWords(std::declval<const WordRun&>()))>
    uint32_t words(const WordRun& run) {
        if (delivered >= limit) return 0;
        WordRun some = run;
        some.count = static_cast<uint32_t>(std::min<uint64_t>(run.count, limit - delivered));
        const uint32_t taken = visitor.onWords(some);
        delivered += taken;
        return taken;
    }
};

template <typename Visitor>
bool Recorder::collect(Visitor& visitor, std::string& error) {
    CollectPlan plan;
    bool ok = planCollect(plan, error);  // false: the fragment file cannot be read
    BlockUnpacker unpacker;
    for (const CollectPlan::Thread& thread : plan.threads) {
        visitor.onThread(thread.tid, thread.records);
        for (const CollectPlan::Part& part : thread.parts) {
            if (part.fileRecords > 0 && ok) {
                // Exactly the records the writer put there: anything else is a damaged file.
                CollectVisit<Visitor> fromFile{visitor, part.fileRecords};
                if (part.stream != nullptr) plan.file.read(*part.stream, fromFile);
                if (fromFile.delivered != part.fileRecords) {
                    ok = false;
                    error =
                        countMismatch(plan.path, thread.tid, fromFile.delivered, part.fileRecords);
                }
            }
            CollectVisit<Visitor> fromMemory{visitor, UINT64_MAX};
            const auto* p = reinterpret_cast<const unsigned char*>(part.memory.data());
            const size_t n = part.memory.size();
            BlockHeader h;
            for (size_t pos = 0; pos + sizeof h <= n; pos += sizeof h + h.bytes) {
                std::memcpy(&h, p + pos, sizeof h);
                if (h.bytes > n - pos - sizeof h) break;  // cannot happen
                unpacker.unpack(p + pos + sizeof h, h.bytes, fromMemory);
            }
        }
    }
    return ok;
}

}  // namespace perfmarker::record
