// The streaming .atp reader built from parts and listeners (the design of the SYCL CodeXL
// extension, seed 003): the parser reads the file a line at a time and hands each section to
// the part that registered its section name; a part turns its lines into typed records
// (trace_events.h) and announces them to every listener. A new backend is one more part.
//
// Memory does not grow with the file: the OpenCL and HSA parts join an API Trace section with
// its Timestamp section by reading the API section again with a second cursor on the same file
// (both sections hold the same threads in the same order, spec §1.3), so they keep one line of
// each at a time. A large API section is read again on a second thread, a bounded number of
// lines ahead of the Timestamp section (setReadAhead()), and the second half of its first pass
// (which only counts its lines and checks its blocks) is read on a second thread while the
// first half is read here (trace_part_scout.h); the listeners are still called on the
// parsing thread, in file order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "atp/atp_header.h"
#include "atp/trace_events.h"

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
    virtual bool reopenAt(int64_t offset, std::unique_ptr<class LineCursor>& out,
                          std::string& error) const = 0;
    virtual const std::vector<TraceListener*>& listeners() const = 0;
    // "<file>:<line>: " prefix for messages.
    virtual std::string where(uint64_t line) const = 0;
    // Whether reopenAt() can succeed for this input (false for streams): a part that will need
    // a section again keeps it in memory while it is read the first time.
    virtual bool canReopen() const { return true; }
    // The smallest section (in bytes) a part reads again on a second thread (TraceParser::
    // setReadAhead()); UINT64_MAX: never.
    virtual uint64_t readAheadBytes() const { return UINT64_MAX; }
    // The size of the input in bytes; -1 where it is not known (a stream).
    virtual int64_t inputBytes() const { return -1; }
    // Opens a second cursor at any byte `offset` of the input (its first line is the rest of the
    // line there; its line numbers start at 1). False where reopenAt() is.
    virtual bool reopenAtByte(int64_t offset, std::unique_ptr<class LineCursor>& out,
                              std::string& error) const {
        (void)offset, (void)out;
        error = "the input cannot be read again";
        return false;
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
    // For a reader on another thread (trace_part_ahead.h), of a cursor whose lines do not stay:
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
    // The parse of an input is over: after endFile(), after an error, or while an exception from
    // a listener leaves the parser. Let go of everything that reads the input (threads, cursors).
    virtual void endInput() {}
    // How many of the next lines the part would take without looking at them (entries of a
    // block it only counts). The parser may then pass over up to that many lines that are
    // neither blank nor section lines and report how many with skipped(), instead of calling
    // line() for each.
    virtual uint64_t skippable() const { return 0; }
    virtual void skipped(uint64_t lines) { (void)lines; }
    // Where the part has the next lines counted already (a line start; -1: nowhere): the parser
    // passes over lines (skippable()) up to it, not beyond, and asks jump() once it is there.
    virtual int64_t jumpOffset() const { return -1; }
    // At jumpOffset(): true when the part has taken the lines from there to `to` (a line
    // start) into account, `lines` of them; the parser goes on at `to`. False: line by line.
    virtual bool jump(int64_t& to, uint64_t& lines) {
        (void)to, (void)lines;
        return false;
    }
    // Whether skippable() may be other than 0 in a section of `kind` (asked once per section:
    // the parser asks skippable() after every line only where this is true).
    virtual bool skipsIn(SectionKind kind) const {
        (void)kind;
        return true;
    }
    // A fast path (optional): the part reads lines straight from the input's buffer, finding
    // each line's end itself, with the same records, warnings and errors as line() would give.
    // `unread`: the bytes after the line just read, from the start of line `firstLine` (they
    // may end inside a line). The part takes whole lines (each ending in '\n') from its start
    // and stops at the first one it leaves to line() (e.g. a blank or section line); `bytes`
    // and `lines`: what it took. False with `error` at a malformed line, as line().
    virtual bool takeLines(std::string_view unread, uint64_t firstLine, SectionContext& context,
                           size_t& bytes, uint64_t& lines, std::string& error) {
        (void)unread, (void)firstLine, (void)context, (void)error;
        bytes = 0;
        lines = 0;
        return true;
    }
    // Whether takeLines() may take lines in a section of `kind` (asked once per section).
    virtual bool takesIn(SectionKind kind) const {
        (void)kind;
        return false;
    }
};

// The OpenCL, HSA, Perfmarker and Stack Trace parts of spec §1-4 and §6.
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
    // their Timestamp section (default kReadAheadBytes; 0: every one; UINT64_MAX: none); where
    // 15% of the input from an API section's start on is at least `minBytes` (a file or a
    // buffer), the second half of its first pass is read on a second thread too. The records,
    // their order, the warnings and the errors are the same either way.
    void setReadAhead(uint64_t minBytes);
    static constexpr uint64_t kReadAheadBytes = uint64_t{1} << 20;
    // Whether parts may read lines in bulk (AtpPart::takeLines(); default true). The records,
    // their order, the warnings and the errors are the same either way.
    void setTakeLines(bool on);

    // Reads an .atp file, or a standalone .clperfmarker / .amdtperfmarker file. False with
    // `error` naming the file, the line and what was expected at the first malformed line;
    // the listeners have then seen every record before it.
    bool parseFile(const std::string& path, std::string& error);
    // The same for a stream that cannot be reopened (paired sections are then buffered).
    bool parseStream(std::istream& in, std::string_view name, std::string& error);
    // From memory (fuzzing, tests); paired sections are read again from the buffer.
    bool parseBuffer(std::string_view data, std::string_view name, std::string& error);

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace perfmarker::atp
