// The join of an API Trace section with its Timestamp section (docs/format.md#thread-blocks),
// shared by the OpenCL and HSA parts. Internal to src/atp/read.
//
// The API section is only checked for its block structure when it is read; when the Timestamp
// section comes, a second cursor reads the API section again (SectionContext::reopenAt), so
// one line of each is held at a time. An input that cannot be read again (a stream) has its
// API section kept in memory instead. A large API section is read again on a second thread
// (SectionContext::readAhead(), read_ahead.h), which splits its lines ahead of the Timestamp
// section. The bulk hook (takeLines()) only counts the entry lines of the API section on the
// first pass, and splits the timestamp lines in the same pass that finds their ends.
// Leniencies (each one a warning, docs/format.md#leniencies):
//   * more timestamp lines than API lines in a block: the extra ones are skipped;
//   * fewer timestamp lines or blocks: the calls without one are announced without times (zero,
//     docs/format.md#unknown-times);
//   * an API section without a Timestamp section after it: its calls are announced without
//     times at the end of the file;
//   * a Timestamp section without an API section before it: skipped.
// A thread id that differs from the paired block's, or an API name that differs from the
// paired line's, is an error.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "atp/read/part_support.h"

namespace perfmarker::atp::detail {

// One API line with its timestamp line (`hasTimestamp` false: announced with zero times).
struct JoinedLine {
    uint64_t tid = 0;
    uint64_t index = 0;
    std::string_view apiText;
    uint64_t apiLine = 0;
    bool hasTimestamp = false;
    std::string_view timestampText;
    uint64_t timestampLine = 0;
    // The timestamp line's tokens are already in JoinedApiPart::m_fields (false: split it).
    bool timestampSplit = false;
    // The API line already split on the reading thread (null: split it here), and its
    // parameters, which the part may take (swap).
    const scan::ApiText* api = nullptr;
    std::vector<std::string_view>* params = nullptr;
};

// The API line of `joined`, split: as the reading thread split it, or split here into `own`.
// Its parameters go to `params` (swapped with those of the reading thread's line). Null, with
// `error` naming the line and `expected`, when the text is not an API line.
// (splitApiLineHere(): the line split here.)
const scan::ApiText* splitApiLineHere(const JoinedLine& joined, const SectionContext& context,
                                      std::string_view expected, scan::ApiText& own,
                                      std::vector<std::string_view>& params, std::string& error);
inline const scan::ApiText* splitJoinedApiLine(const JoinedLine& joined,
                                               const SectionContext& context,
                                               std::string_view expected, scan::ApiText& own,
                                               std::vector<std::string_view>& params,
                                               std::string& error) {
    if (joined.api == nullptr) {
        return splitApiLineHere(joined, context, expected, own, params, error);
    }
    params.swap(*joined.params);
    return joined.api;
}

class JoinedApiPart : public AtpPart {
public:
    JoinedApiPart(SectionKind apiKind, SectionKind timestampKind)
        : m_apiKind(apiKind), m_timestampKind(timestampKind) {}

    void beginFile(SectionContext& context) override;
    bool beginSection(SectionKind kind, SectionContext& context, uint64_t line,
                      std::string& error) override;
    bool line(std::string_view text, uint64_t lineNumber, SectionContext& context,
              std::string& error) override;
    bool endSection(uint64_t lineNumber, SectionContext& context, std::string& error) override;
    bool endFile(SectionContext& context, std::string& error) override;
    bool takeLines(std::string_view unread, uint64_t firstLine, SectionContext& context,
                   size_t& bytes, uint64_t& lines, std::string& error) override;

protected:
    // The input's name (SectionContext::fileName(), kept at beginFile(): asked for every record).
    std::string_view m_fileName;
    // The tokens of a timestamp line (JoinedLine::timestampSplit), or of any line the part
    // splits; the number and the text of that line (m_fields lie in it).
    scan::Fields m_fields;
    uint64_t m_line = 0;
    const char* m_text = nullptr;
    // Unknown times and intervals that end before they start, reported at the end of the file.
    TimeChecks m_checks;

    // Field `index` of m_fields as a decimal number; false with `error` naming `what`.
    [[gnu::always_inline]] bool number(size_t index, const char* what, uint64_t& value,
                                       SectionContext& context, std::string& error) {
        return scan::parseU64In(m_fields[index], m_text, value) ||
               notNumber(index, what, context, error);
    }
    [[gnu::cold, gnu::noinline]] bool notNumber(size_t index, const char* what,
                                                SectionContext& context, std::string& error);
    // Fields 1 and 2 of the timestamp line: the API type, and the API's name as on the API line
    // of `joined` (`name`). False with `error`.
    [[gnu::always_inline]] bool typeAndName(const JoinedLine& joined, std::string_view name,
                                            int& apiType, SectionContext& context,
                                            std::string& error) {
        if (!scan::parseInt(m_fields[0], apiType)) {
            error = expectedGot(context, m_line, "the API type (a decimal number) in field 1",
                                m_fields[0]);
            return false;
        }
        return scan::sameText(m_fields[1], name) || otherName(joined, name, context, error);
    }
    [[gnu::cold, gnu::noinline]] bool otherName(const JoinedLine& joined, std::string_view name,
                                                SectionContext& context, std::string& error);

    // Parses the pair and tells the listeners; false with `error` at a malformed line.
    virtual bool announce(const JoinedLine& joined, SectionContext& context,
                          std::string& error) = 0;

private:
    // takeLines() with the scan's Load64 or (PERFMARKER_SCAN_WIDE) Wide64 blocks.
    template <typename Block>
    [[gnu::always_inline]] inline bool takeLinesIn(std::string_view unread, uint64_t firstLine,
                                                   SectionContext& context, size_t& bytes,
                                                   uint64_t& lines, std::string& error);
#if PERFMARKER_SCAN_WIDE
    bool takeLinesWide(std::string_view unread, uint64_t firstLine, SectionContext& context,
                       size_t& bytes, uint64_t& lines, std::string& error);
#endif
    bool openApiCursor(SectionContext& context, std::string& error, bool ahead = false,
                       uint64_t sectionBytes = 0);
    [[gnu::always_inline]] inline bool nextEntry(JoinedLine& joined, std::string& error, bool& end);
    [[gnu::always_inline]] inline bool timestampLine(std::string_view text, uint64_t lineNumber,
                                                     SectionContext& context, std::string& error,
                                                     bool split);
    bool startBlock(uint64_t lineNumber, SectionContext& context, std::string& error);
    bool finishBlock(uint64_t lineNumber, SectionContext& context, std::string& error,
                     bool warnMissing = true);
    bool announceRest(uint64_t lineNumber, SectionContext& context, std::string& error,
                      bool warnMissing);
    bool announceUntimed(SectionContext& context, std::string& error);

    SectionKind m_apiKind;
    SectionKind m_timestampKind;
    SectionKind m_current = SectionKind::Unknown;
    ThreadBlocks m_blocks;         // of the section being read
    bool m_apiPending = false;     // an API section waits for its Timestamp section
    int64_t m_apiOffset = -1;      // where the pending API section starts
    uint64_t m_apiLine = 0;        // its section line
    bool m_buffering = false;      // the input cannot be read again: keep the API section
    BufferedLines m_buffered;
    std::unique_ptr<BlockCursor> m_api;  // the API section, read again
    bool m_skipping = false;       // a Timestamp section without an API section
    bool m_blockPaired = false;    // the current timestamp block has an API block
    uint64_t m_extraLines = 0;     // timestamp lines beyond the API block's count
    JoinedLine m_joined;           // of the timestamp line being read (reused)
};

}  // namespace perfmarker::atp::detail
