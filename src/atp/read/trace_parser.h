// The streaming .atp reader built from parts and listeners (docs/format.md#reading): the parser
// reads the input a line at a time and hands each section to the part that registered its
// section kind; a part turns its lines into typed records (trace_events.h) and announces them to
// every listener, in file order, on the parsing thread. A new section is one more part: begin,
// line and end, and at most the one optional bulk hook (AtpPart::takeLines()).
//
// Memory does not grow with the file: the OpenCL and HSA parts join an API Trace section with
// its Timestamp section by reading the API section again with a second cursor on the same file
// (both sections hold the same threads in the same order, docs/format.md#thread-blocks), so
// they keep one line of each at a time. The one speed-up beside the byte scanning is owned by
// the parser: a large API section is read again on a second thread, a bounded number of lines
// ahead of its Timestamp section (SectionContext::readAhead(), setReadAhead()).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "atp/format/atp_header.h"
#include "atp/read/trace_events.h"

namespace perfmarker::atp {

// Receives typed records in file order. Default implementations ignore the record.
class TraceListener {
public:
    virtual ~TraceListener() = default;
    // A new input starts (several files can go through one parser, one after the other).
    virtual void onFileBegin(std::string_view file) { (void)file; }
    virtual void onHeader(std::string_view key, std::string_view value, SourceLocation where) {
        (void)key, (void)value, (void)where;
    }
    virtual void onSection(SectionKind kind, std::string_view name, SourceLocation where) {
        (void)kind, (void)name, (void)where;
    }
    virtual void onOclApiCall(const OclApiCall& call) { (void)call; }
    virtual void onHsaApiCall(const HsaApiCall& call) { (void)call; }
    virtual void onHsaKernelDispatch(const HsaKernelDispatch& dispatch) { (void)dispatch; }
    virtual void onMarker(const MarkerEvent& marker) { (void)marker; }
    virtual void onStackEntry(const StackEntry& entry) { (void)entry; }
    // A line of a section no part registered, passed through as text.
    virtual void onUnknownLine(std::string_view section, std::string_view text,
                               SourceLocation where) {
        (void)section, (void)text, (void)where;
    }
    // Lenient problems (the original readers accepted these): "<file>:<line>: <message>".
    virtual void onWarning(const std::string& message) { (void)message; }
    // The input was read to its end without error (not called when the parse fails).
    virtual void onFileEnd(std::string_view file) { (void)file; }
};

class TraceParser;
class LineCursor;
namespace detail {
class ReadAhead;
}

// Context a part gets for a section: where it is, whom to tell, and how to read lines again.
class SectionContext {
public:
    virtual ~SectionContext() = default;
    virtual std::string_view fileName() const = 0;
    // The byte offset of the start of the line after the section line of the section
    // `kind` seen most recently in this file, or -1 when it has not been seen.
    virtual int64_t sectionOffset(SectionKind kind) const = 0;
    // Opens a second cursor on the same input at `offset` (false when the input cannot be
    // read again, e.g. a pipe; the part then keeps what it needs in memory).
    virtual bool reopenAt(int64_t offset, std::unique_ptr<LineCursor>& out,
                          std::string& error) const = 0;
    virtual const std::vector<TraceListener*>& listeners() const = 0;
    // "<file>:<line>: " prefix for messages.
    virtual std::string where(uint64_t line) const = 0;
    // Whether reopenAt() can succeed for this input (false for streams): a part that will need
    // a section again keeps it in memory while it is read the first time.
    virtual bool canReopen() const { return true; }
    // A second thread that reads `cursor`'s lines ahead of the part (detail::ReadAhead), for a
    // section of `sectionBytes` bytes: null where the parser reads sections of that size on one
    // thread (TraceParser::setReadAhead()) or no thread can be started; `cursor` is then left
    // as it was. The parser stops the thread when the input is done with, however the parse
    // ends: the part may keep the object, not use it after that.
    virtual std::shared_ptr<detail::ReadAhead> readAhead(std::unique_ptr<LineCursor>& cursor,
                                                         uint64_t sectionBytes) {
        (void)cursor, (void)sectionBytes;
        return nullptr;
    }
};

// Reads lines from a position of a file (the second cursor of the paired sections).
class LineCursor {
public:
    virtual ~LineCursor() = default;
    // False at the end of the input; `line` has no line end; `lineNumber` is 1-based.
    virtual bool next(std::string_view& line, uint64_t& lineNumber) = 0;
    // Why next() returned false: empty at the end of the input, else "<file>:<line>: ..." (a
    // read error, a line longer than kMaxTraceLineBytes).
    virtual std::string error() const { return {}; }
    // Whether a line's view stays valid after the next call, while the input lives (lines of
    // a buffer in memory); otherwise it is valid until the next call only.
    virtual bool linesStay() const { return false; }
    // For a reader on another thread (read_ahead.h), of a cursor whose lines do not stay:
    // holdBuffer() keeps the buffer that the last line lies in (with every later line in it)
    // unchanged while the returned owner lives, and the cursor reads on into other buffers;
    // bufferSerial() changes whenever a line lies in another buffer than the line before it.
    // Null when the cursor cannot hold its buffers (its lines are then copied).
    virtual std::shared_ptr<const void> holdBuffer() { return nullptr; }
    virtual uint64_t bufferSerial() const { return 0; }
    // The bytes already in memory after the line just read (they may end inside a line; empty
    // after an error, or from a cursor that does not tell), for a reader that finds the next
    // lines itself (AtpPart::takeLines(), ReadAhead); they lie where the line just read lies
    // (the same buffer). advance() passes over `bytes` of them, which hold `lines` whole lines.
    virtual std::string_view unread() const { return {}; }
    virtual void advance(size_t bytes, uint64_t lines) { (void)bytes, (void)lines; }
};

// The longest line the reader accepts (a longer one is an error, not an allocation).
inline constexpr size_t kMaxTraceLineBytes = size_t{16} << 20;

// One section kind (or several) of the format. The parser calls beginSection(), then line()
// for every line of the section (blank lines skipped), then endSection(); a false return stops
// the parse with `error` = "<file>:<line>: expected ..., got ...".
class AtpPart {
public:
    virtual ~AtpPart() = default;
    virtual const char* partName() const = 0;
    // The section kinds this part reads (sectionKindOf() maps the legacy names).
    virtual std::vector<SectionKind> sections() const = 0;
    // A new input starts: forget everything of the previous one (also after a failed parse).
    virtual void beginFile(SectionContext& context) { (void)context; }
    virtual bool beginSection(SectionKind kind, SectionContext& context, uint64_t line,
                              std::string& error) = 0;
    virtual bool line(std::string_view text, uint64_t lineNumber, SectionContext& context,
                      std::string& error) = 0;
    virtual bool endSection(uint64_t lineNumber, SectionContext& context, std::string& error) = 0;
    // Called once after the whole file (e.g. an API section whose timestamp section never came).
    virtual bool endFile(SectionContext& context, std::string& error) {
        (void)context, (void)error;
        return true;
    }
    // The bulk hook (optional): after a line of its section, the part may take the next lines
    // straight from the input's buffer, finding each line's end itself, with the same records,
    // warnings and errors as line() would give. `unread`: the bytes after the line just read,
    // from the start of line `firstLine` (they may end inside a line). The part takes whole
    // lines (each ending in '\n') from its start and stops at the first one it leaves to line()
    // (e.g. a blank or section line); `bytes` and `lines`: what it took. False with `error` at a
    // malformed line, as line(). The default takes none.
    virtual bool takeLines(std::string_view unread, uint64_t firstLine, SectionContext& context,
                           size_t& bytes, uint64_t& lines, std::string& error) {
        (void)unread, (void)firstLine, (void)context, (void)error;
        bytes = 0;
        lines = 0;
        return true;
    }
};

// The OpenCL, HSA, Perfmarker and Stack Trace parts (docs/format.md#sections).
std::vector<std::unique_ptr<AtpPart>> standardParts();

class TraceParser {
public:
    // A parser with the standard parts registered.
    TraceParser();
    ~TraceParser();
    TraceParser(const TraceParser&) = delete;
    TraceParser& operator=(const TraceParser&) = delete;

    // Registers a part for its sections (a later part for the same section replaces the
    // earlier one).
    void addPart(std::unique_ptr<AtpPart> part);
    void addListener(TraceListener& listener);
    // API Trace sections of at least `minBytes` are read again on a second thread, ahead of
    // their Timestamp section (default kReadAheadBytes; 0: every one; UINT64_MAX: none). The
    // records, their order, the warnings and the errors are the same either way.
    void setReadAhead(uint64_t minBytes);
    static constexpr uint64_t kReadAheadBytes = uint64_t{1} << 20;
    // Whether parts may read lines in bulk (AtpPart::takeLines(); default true). The records,
    // their order, the warnings and the errors are the same either way.
    void setTakeLines(bool on);

    // Reads an .atp file, or a standalone .clperfmarker / .amdtperfmarker file. False with
    // `error` naming the file, the line and what was expected at the first malformed line;
    // the listeners have then seen every record before it.
    bool parseFile(const std::string& path, std::string& error);
    // The same, naming the input `name` in errors and to the listeners (a copy of an input
    // read from a pipe is read under the name the user gave).
    bool parseFile(const std::string& path, std::string_view name, std::string& error);
    // The same for a stream that cannot be reopened (paired sections are then buffered).
    bool parseStream(std::istream& in, std::string_view name, std::string& error);
    // From memory (fuzzing, tests); paired sections are read again from the buffer.
    bool parseBuffer(std::string_view data, std::string_view name, std::string& error);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace perfmarker::atp
