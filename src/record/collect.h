// Recorder::collect(): finalize's reading of every record, grouped by thread. A template, so
// that a visitor that is not virtual (finalize's text) is inlined in the unpacking loop: with a
// virtual call per record, the call and its argument passing were a fifth of the text's
// instructions (docs/performance.md).
#pragma once

#include <cstring>
#include <mutex>
#include <string>
#include <string_view>
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

template <typename Visitor>
bool Recorder::collect(Visitor& visitor, std::string& error) {
    CollectPlan plan;
    bool ok = planCollect(plan, error);  // false: the fragment file cannot be read
    BlockUnpacker unpacker;
    // Inlined in the unpacking loop, so that the record's views stay in registers (a view
    // stored by the unpacker and loaded back by the visitor waits for the store).
    const auto deliver = [&visitor](const RecordView& r) __attribute__((always_inline)) {
        visitor.onRecord(r);
    };
    for (const CollectPlan::Thread& thread : plan.threads) {
        visitor.onThread(thread.tid, thread.records);
        for (const CollectPlan::Part& part : thread.parts) {
            if (part.fileRecords > 0 && ok) {
                // Exactly the records the writer put there: anything else is a damaged file.
                uint64_t read = 0;
                if (part.stream != nullptr) {
                    plan.file.read(
                        *part.stream, [&](const RecordView& r) __attribute__((always_inline)) {
                            if (read++ < part.fileRecords) deliver(r);
                        });
                }
                if (read != part.fileRecords) {
                    ok = false;
                    error = countMismatch(plan.path, thread.tid, read, part.fileRecords);
                }
            }
            const auto* p = reinterpret_cast<const unsigned char*>(part.memory.data());
            const size_t n = part.memory.size();
            BlockHeader h;
            for (size_t pos = 0; pos + sizeof h <= n; pos += sizeof h + h.bytes) {
                std::memcpy(&h, p + pos, sizeof h);
                if (h.bytes > n - pos - sizeof h) break;  // cannot happen
                unpacker.unpack(p + pos + sizeof h, h.bytes, deliver);
            }
        }
    }
    return ok;
}

}  // namespace perfmarker::record
