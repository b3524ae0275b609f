// Writes a Chrome JSON trace ({"traceEvents":[...]}) as one or more files, each below a size
// limit and each a valid trace on its own: a new part starts with all the metadata events
// (process and thread names) written so far, so every part opens with named tracks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "export/export_common.h"

namespace perfmarker::exporter {

class SplitJsonWriter {
public:
    // Parts after the first are named "<stem>-2<ext>", "<stem>-3<ext>" ("trace.json" ->
    // "trace-2.json").
    SplitJsonWriter(std::string path, uint64_t maxFileBytes);

    // One or more events, comma separated, kept together in one part (a slice and its flow
    // events). A group larger than the limit still goes into a part of its own.
    void events(std::string_view group);
    // A metadata event: written now and again at the start of every later part.
    void metadata(std::string_view event);
    // Ends the last part and puts every part in place (each renamed over its file). False with
    // `error` on the first error: the parts are then removed and the files stay as they were.
    // After success, removes the parts an earlier, larger export of the same path left beyond
    // this one's last (removedFiles(); docs/export.md#splitting).
    bool finish(std::string& error);
    // Removes every part written so far: the files stay as they were.
    void discard();
    const std::vector<std::string>& files() const { return m_files; }
    // The stale parts finish() removed: "<stem>-N<ext>" with N past this export's last part,
    // each a regular file of this user that starts as part N of a perfmarker export does.
    const std::vector<std::string>& removedFiles() const { return m_removed; }

    static std::string partPath(const std::string& path, size_t partIndex);

private:
    void startPart();
    void removeStaleParts();
    void endPart();
    void append(std::string_view text);
    void flushBuffer();
    bool wouldOverflow(size_t size) const;

    std::string m_path;
    uint64_t m_maxBytes;
    std::vector<std::string> m_files;
    std::vector<std::string> m_removed;
    std::string m_metadata;  // comma separated, for the next part's start
    // The parts, put in place together by finish(); m_file is the last, being written.
    std::vector<std::unique_ptr<OutputFile>> m_parts;
    OutputFile* m_file = nullptr;
    std::string m_buffer;
    std::string m_error;
    uint64_t m_partBytes = 0;
    uint64_t m_partEvents = 0;   // entries written to the part (for the separators)
    uint64_t m_partPayload = 0;  // event groups, metadata not counted
    bool m_open = false;
};

}  // namespace perfmarker::exporter
