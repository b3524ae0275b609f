// Reading fragment files back (at finalize, and by the merge step after a crash). A process's
// recorder writes one file, "<pid>_<n>.<tag>.frag", holding blocks of all its threads
// (docs/format.md#fragments); a thread's records are its blocks in file order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "record/fragments/packed_block.h"
#include "record/record_format.h"

namespace perfmarker::record {

struct FragmentFile {
    std::string path;
    uint64_t pid = 0;
    uint64_t index = 0;  // the recorder's number in the process
};

// File name of a fragment: "<pid>_<index>.<tag>.frag".
std::string fragmentFileName(uint64_t pid, uint64_t index, const std::string& tag);

// Lists the fragment files of process `pid` with tag `tag` in `dir`, sorted by index.
std::vector<FragmentFile> listFragments(const std::string& dir, uint64_t pid,
                                        const std::string& tag);

// One thread's records in a fragment file: where its blocks' record bytes lie, in file order.
struct FragmentStream {
    std::string path;
    uint64_t tid = 0;
    uint64_t serial = 0;
    struct Extent {  // one block's packed records (packed_block.h)
        uint64_t offset;
        uint64_t bytes;    // present in the file (less than the block's when it is cut)
        uint32_t records;  // in the whole block
    };
    std::vector<Extent> extents;
    uint64_t bytes = 0;  // sum of the extents
    bool cut = false;    // its last block is cut short (the process died inside write())
};

// A fragment file opened for reading: only a regular file of this user, never through a link.
// Records are read a block at a time into one buffer: reading takes the memory of the largest
// block (a chunk's records), however long the trace.
class FragmentReader {
public:
    FragmentReader() = default;
    ~FragmentReader();
    FragmentReader(const FragmentReader&) = delete;
    FragmentReader& operator=(const FragmentReader&) = delete;

    // False with `error` ("<path>: <why>") when the file cannot be read or is not a fragment.
    bool open(const std::string& path, std::string& error);

    // The threads of the file, sorted by (tid, serial). A block cut short at the end of the file
    // (the process died inside write()) contributes the bytes that are there; `cut` says so.
    std::vector<FragmentStream> streams(bool* cut = nullptr) const;

    // Calls `visit` for every whole record of `stream`. A record cut short or damaged, or a
    // block holding fewer records than its header says, ends the stream: `truncated` is set
    // and the records before it have been delivered. A visit may return bool: false stops the
    // reading (not a truncation).
    // A template, so that unpacking and the caller's visit are one loop (finalize's text).
    template <typename Visit>
    void read(const FragmentStream& stream, Visit&& visit, bool* truncated = nullptr) const;

    // Calls `visit` for every whole record of the file in file order, all threads' blocks.
    void readAll(const std::function<void(const RecordView&)>& visit,
                 bool* truncated = nullptr) const;

    const std::string& path() const { return m_path; }
    uint64_t pid() const { return m_pid; }

private:
    // Calls `block(header, offset of its records, bytes of them present)` for every block; false
    // when the file ends inside a block or block header.
    template <typename Block>
    bool walkBlocks(Block&& block) const;
    // The extent's bytes, read into the reader's buffer; nullptr when they cannot be read.
    const unsigned char* load(const FragmentStream::Extent& extent) const;
    // Gives back the buffer when a large block (an oversize record) made it large.
    void trimBuffer() const;

    std::string m_path;
    int m_fd = -1;
    uint64_t m_size = 0;
    uint64_t m_pid = 0;
    mutable std::vector<unsigned char> m_buffer;
    mutable BlockUnpacker m_unpacker;
};

template <typename Visit>
void FragmentReader::read(const FragmentStream& stream, Visit&& visit, bool* truncated) const {
    if (truncated != nullptr) *truncated = stream.cut;
    for (const FragmentStream::Extent& e : stream.extents) {
        // A block cut short (the last of a crashed process) gives the records that are whole.
        const unsigned char* bytes = load(e);
        const uint32_t records =
            bytes == nullptr ? 0 : m_unpacker.unpack(bytes, static_cast<size_t>(e.bytes), visit);
        if (bytes != nullptr && m_unpacker.stopped()) break;
        if (bytes == nullptr || records != e.records) {
            if (truncated != nullptr) *truncated = true;
            break;
        }
    }
    trimBuffer();
}

// Every thread of the fragment file `path`, as FragmentReader::streams(). False with `error`
// when the file cannot be read or is not a fragment.
bool scanFragment(const std::string& path, std::vector<FragmentStream>& streams, std::string& error,
                  bool* cut = nullptr);

// Calls `visit` for every whole record of `stream` (opening its file for the call), until it
// returns false. False with `error` when the file cannot be read; a record cut short sets
// `truncated`.
bool readStream(const FragmentStream& stream, const std::function<bool(const RecordView&)>& visit,
                std::string& error, bool* truncated = nullptr);

// Calls `visit` for every whole record of the file in file order (all threads' blocks). False
// with `error` when the file cannot be read or is not a fragment; a truncated end is not an
// error: `truncated` is set.
bool readFragment(const std::string& path, const std::function<void(const RecordView&)>& visit,
                  std::string& error, bool* truncated = nullptr);

}  // namespace perfmarker::record
