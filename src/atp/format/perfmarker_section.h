// The Perfmarker section of an .atp file (docs/format.md#perfmarker-section) and the standalone
// .clperfmarker / .amdtperfmarker files: the one writer and the one reader of marker lines.
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

#include "atp/format/decimal.h"
#include "atp/format/short_bytes.h"

namespace perfmarker::atp {

inline constexpr std::string_view kPerfmarkerSectionLine = "=====Perfmarker Output=====";
inline constexpr std::string_view kDefaultGroup = "Default";

enum class MarkerKind : uint8_t { Begin = 1, End = 2, EndEx = 3 };

// ---- writing -------------------------------------------------------------------------------

// Appends `raw` as one whitespace-free token: space -> &nbsp;, '&' -> &amp;, control bytes
// (< 0x20, 0x7f) -> &#N;, the empty string -> &empty;. Other bytes (UTF-8 or not) pass as is.
void appendEscapedToken(std::string& out, std::string_view raw);

// Appends one marker line (ending in '\n') in the layout of docs/format.md#perfmarker-section, with
// escaped name and group (also for EndEx, fixing the original quirk). An empty group means
// "Default". A non-empty user string is appended as one more token `user=<escaped>` (our extension;
// see docs/format.md). For End only `timestampNs` is used.
void appendMarkerLine(std::string& out, MarkerKind kind, uint64_t timestampNs,
                      std::string_view name = {}, std::string_view group = {},
                      std::string_view userString = {});

// The bytes CommonLineWriter::put may write.
inline constexpr size_t kMarkerLineRoom = 160;

// Writes the common marker lines of one thread: End lines, and Begin lines without user string
// whose name (shorter than its 50-byte field) and group (at most 66 bytes) need no escaping. For
// any other line put() returns nullptr and what it wrote is to be overwritten; appendMarkerLine
// writes every line. Same bytes as appendMarkerLine. Between lines it keeps the leading digits
// of the timestamp before, and the last Begin line: a Begin of the same name and group (a loop's
// marker) is that line copied whole, with its timestamp written over it.
class CommonLineWriter {
public:
    // A common Begin line kept whole, its timestamp field spaces: what a Begin of its name and
    // group copies (the last Begin's, or a caller's for each marker it writes often).
    struct BeginLine {
        char text[kMarkerLineRoom] = {};
        size_t length = 0;  // 0: none (or the name and group make no common line)
        size_t nameSize = 0;
        size_t groupSize = 0;  // as given: 0 for the default group

        // True when the line is that of `name` and `group`. They are compared where the line
        // holds them: they needed no escaping there, so equal bytes make an equal line.
        __attribute__((always_inline)) bool holds(std::string_view name,
                                                  std::string_view group) const {
            return length != 0 && name.size() == nameSize && group.size() == groupSize &&
                   sameBytes(name.data(), text + kNameField, name.size()) &&
                   sameBytes(group.data(), text + kGroupField, group.size());
        }
        // Makes this the line of `name` and `group`; false, the line as it was, when theirs is
        // not a common line (a loop of a common marker and another keeps the common one's).
        bool make(std::string_view name, std::string_view group);
    };

    // Writes the line at `out` (kMarkerLineRoom bytes free) and returns its end. The lines of a
    // loop's markers are written here, inline in finalize's loop; the others by putOther().
    __attribute__((always_inline)) char* put(char* out, MarkerKind kind, uint64_t timestampNs,
                                             std::string_view name = {},
                                             std::string_view group = {},
                                             std::string_view userString = {}) {
        if (kind == MarkerKind::End) return putEnd(out, timestampNs);
        if (kind == MarkerKind::Begin && userString.empty() && m_last.holds(name, group)) {
            return putBegin(out, m_last, timestampNs);
        }
        return putOther(out, kind, timestampNs, name, group, userString);
    }

    // An End line, and the Begin line `line` (BeginLine::make() returned true) with the
    // timestamp: at `out`, kMarkerLineRoom bytes free; they return the line's end.
    __attribute__((always_inline)) char* putEnd(char* out, uint64_t timestampNs) {
        std::memcpy(out, kEndLine.data(), kEndLine.size());
        m_timestamps.put(out + kEndTimestampField, timestampNs);
        return out + kEndLine.size();
    }
    __attribute__((always_inline)) char* putBegin(char* out, const BeginLine& line,
                                                  uint64_t timestampNs) {
        // Most lines end before kShortLine: a copy of 112 bytes instead of 160.
        std::memcpy(out, line.text, kShortLine);
        if (__builtin_expect(line.length > kShortLine, 0)) {
            std::memcpy(out + kShortLine, line.text + kShortLine, kMarkerLineRoom - kShortLine);
        }
        m_timestamps.put(out + kBeginTimestampField, timestampNs);
        return out + line.length;
    }

    // Where the fields start in the lines (docs/format.md#perfmarker-section).
    static constexpr std::string_view kEndLine = "clEndPerfMarker                         \n";
    static constexpr size_t kEndTimestampField = 20;
    static constexpr size_t kNameField = 20;
    static constexpr size_t kBeginTimestampField = 70;
    static constexpr size_t kGroupField = 93;

private:
    static constexpr size_t kShortLine = 112;

    char* putOther(char* out, MarkerKind kind, uint64_t timestampNs, std::string_view name,
                   std::string_view group, std::string_view userString);

    DecimalFieldWriter m_timestamps;
    BeginLine m_last;  // the last Begin line
};

// Appends the thread-block header: "<tid>\n<count>\n".
void appendThreadHeader(std::string& out, uint64_t tid, uint64_t lineCount);

// ---- reading -------------------------------------------------------------------------------

// Inverse of appendEscapedToken; also decodes the entities of the original writers
// (&nbsp; &amp; &comma; &#35; &lt; &gt; &#64; and any &#N;). Unknown entities stay as they are.
std::string unescapeToken(std::string_view token);
// Same as unescapeToken, appending to `out` (no allocation when `out` has the capacity).
void appendUnescapedToken(std::string& out, std::string_view token);

struct Marker {
    MarkerKind kind = MarkerKind::Begin;
    uint64_t timestampNs = 0;
    std::string name;        // Begin, EndEx
    std::string group;       // Begin, EndEx
    std::string userString;  // Begin, EndEx (empty when absent)
    uint64_t line = 0;       // 1-based line number in the input
};

// Receives what the parser finds, in file order.
class PerfmarkerListener {
public:
    virtual ~PerfmarkerListener() = default;
    virtual void onThread(uint64_t tid, uint64_t declaredCount) = 0;
    virtual void onMarker(uint64_t tid, const Marker& marker) = 0;
    // `message` has no "line N: " prefix (e.g. "unbalanced perf markers in thread 7: ...").
    virtual void onWarning(uint64_t line, const std::string& message) { (void)line; (void)message; }
};

// True for "=====Perfmarker Output=====" and the legacy spellings of docs/format.md#sections (also
// with a leading "AMD ").
bool isPerfmarkerSectionLine(std::string_view line);

// Line-by-line parser of the body of a Perfmarker section (the lines after the section line).
// Feed lines without their '\n'; call finish() at the end of the section (the parser is then
// ready for another section). Lines are split on whitespace, never on columns. Blank lines and
// "ProfilerVersion=" lines are skipped and do not count toward a block's line count. Tokens after
// the group are joined to it with single spaces (old writers did not escape group spaces), except
// a last token "user=<escaped>". Begin/End imbalance within a thread block is a warning.
class PerfmarkerSectionParser {
public:
    explicit PerfmarkerSectionParser(PerfmarkerListener& listener) : m_listener(listener) {}
    // Returns false and sets `error` ("line N: expected ..., got ...") on malformed input.
    bool feedLine(std::string_view line, uint64_t lineNumber, std::string& error);
    // Returns false when the last thread block is shorter than its count.
    bool finish(uint64_t lineNumber, std::string& error);

private:
    enum class State { ExpectTid, ExpectCount, InBlock };
    bool feedTid(std::string_view text, uint64_t lineNumber, std::string& error);
    bool feedCount(std::string_view text, uint64_t lineNumber, std::string& error);
    bool feedMarker(std::string_view text, uint64_t lineNumber, std::string& error);
    void trackBalance(uint64_t lineNumber);
    void closeBlock(uint64_t lineNumber);

    PerfmarkerListener& m_listener;
    State m_state = State::ExpectTid;
    uint64_t m_tid = 0;
    uint64_t m_remaining = 0;
    uint64_t m_count = 0;  // declared line count of the current block
    uint64_t m_depth = 0;  // open Begin markers in the current block
    Marker m_marker;       // reused for every line, so its strings keep their capacity
};

struct ThreadMarkers {
    uint64_t tid = 0;
    std::vector<Marker> markers;
};

struct PerfmarkerFile {
    std::vector<ThreadMarkers> threads;  // one per thread block, in file order
    std::vector<std::string> warnings;  // "line N: ..." (e.g. unbalanced markers)
};

// Reads a whole .clperfmarker / .amdtperfmarker file (section line first, blank lines and
// "ProfilerVersion=" lines skipped). Returns false with `error` = "<name>:<line>: <what>".
// Another Perfmarker section line continues the section; a section line of another kind
// ("=====...=====") ends it and the rest of the input is not read.
bool readPerfmarkerFile(std::istream& in, std::string_view name, PerfmarkerFile& out,
                        std::string& error);
bool readPerfmarkerFile(const std::string& path, PerfmarkerFile& out, std::string& error);

}  // namespace perfmarker::atp
