// The streaming .atp reader (trace_parser.h): line sources for files, streams and memory, the
// section context the parts see, and the loop that hands every section to its part.
#include "atp/read/trace_parser.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <functional>
#include <istream>
#include <mutex>
#include <new>
#include <system_error>

#include "atp/read/part_support.h"

namespace perfmarker::atp {
namespace {

using detail::atLine;
using detail::expectedGot;
using detail::trimText;
namespace scan = detail::scan;

constexpr size_t kChunkBytes = size_t{1} << 20;
constexpr size_t kSectionKinds = static_cast<size_t>(SectionKind::Unknown) + 1;

std::string tooLong(std::string_view name, uint64_t line) {
    return std::string(name) + ":" + std::to_string(line) + ": expected a line of at most " +
           std::to_string(kMaxTraceLineBytes >> 20) + " MiB, got a longer one";
}

// A LineCursor that also tells the byte offset of the next line.
class LineSource : public LineCursor {
public:
    virtual int64_t offset() const = 0;
};

// Lines of a byte stream read in chunks: one buffer, reused; a line is a view into it. Once a
// buffer is held (holdBuffer()), it is not written before the last line in it, and the source
// goes on in another buffer when it would move or grow it; buffers no longer held go back to a
// pool and are used again.
class ChunkedSource final : public LineSource {
public:
    // Bytes read into the buffer, 0 at the end, -1 on error (errno set).
    using ReadFn = std::function<ssize_t(char*, size_t)>;

    ChunkedSource(ReadFn read, std::string name, int64_t offset, uint64_t firstLine)
        : m_read(std::move(read)), m_name(std::move(name)), m_offset(offset),
          m_line(firstLine - 1) {
        m_buffer = m_pool->take(kChunkBytes);
    }

    bool next(std::string_view& line, uint64_t& lineNumber) override {
        for (;;) {
            const char* base = m_buffer->data();
            const char* nl = scan::findByte(base + m_scan, base + m_end, '\n');
            if (nl != base + m_end) {
                const size_t stop = static_cast<size_t>(nl - base);
                return take(stop, stop + 1, line, lineNumber);
            }
            m_scan = m_end;
            if (m_eof || !m_error.empty()) {
                if (m_begin == m_end || !m_error.empty()) return false;
                return take(m_end, m_end, line, lineNumber);  // last line without '\n'
            }
            if (!fill()) return false;
        }
    }

    std::string error() const override { return m_error; }
    int64_t offset() const override { return m_offset; }
    std::shared_ptr<const void> holdBuffer() override {
        m_held = true;
        return m_buffer;
    }
    uint64_t bufferSerial() const override { return m_serial; }

    std::string_view unread() const override {
        // (A buffer grown beyond the longest line could hold a line too long to accept.)
        if (!m_error.empty() || m_buffer->size() > kMaxTraceLineBytes) return {};
        return std::string_view(m_buffer->data() + m_begin, m_end - m_begin);
    }
    void advance(size_t bytes, uint64_t lines) override {
        m_begin += bytes;
        m_scan = m_begin;
        m_offset += static_cast<int64_t>(bytes);
        m_line += lines;
    }


private:
    using Buffer = std::vector<char>;

    // Buffers no longer held, for the next one the source needs (the last owner of a buffer
    // may be on another thread).
    class Pool {
    public:
        // A buffer of at least `size` bytes, given back here when its last owner lets go.
        std::shared_ptr<Buffer> take(size_t size) {
            std::unique_ptr<Buffer> buffer;
            {
                const std::lock_guard<std::mutex> lock(m_mutex);
                if (!m_free.empty()) {
                    buffer = std::move(m_free.back());
                    m_free.pop_back();
                }
            }
            if (!buffer) buffer = std::make_unique<Buffer>();
            if (buffer->size() < size) buffer->resize(size);
            std::weak_ptr<Pool> pool = m_self;
            return std::shared_ptr<Buffer>(buffer.release(), [pool](Buffer* back) {
                std::unique_ptr<Buffer> owned(back);
                if (auto alive = pool.lock()) alive->giveBack(std::move(owned));
            });
        }
        static std::shared_ptr<Pool> make() {
            auto pool = std::make_shared<Pool>();
            pool->m_self = pool;
            return pool;
        }

    private:
        void giveBack(std::unique_ptr<Buffer> buffer) {
            if (buffer->size() > kChunkBytes) return;  // one grown for a long line: let it go
            const std::lock_guard<std::mutex> lock(m_mutex);
            try {
                m_free.push_back(std::move(buffer));
            } catch (const std::bad_alloc&) {  // (called from a destructor) the buffer goes
            }
        }

        std::mutex m_mutex;
        std::vector<std::unique_ptr<Buffer>> m_free;
        std::weak_ptr<Pool> m_self;
    };

    bool take(size_t stop, size_t next, std::string_view& line, uint64_t& lineNumber) {
        if (stop - m_begin > kMaxTraceLineBytes) {
            m_error = tooLong(m_name, m_line + 1);
            return false;
        }
        line = std::string_view(m_buffer->data() + m_begin, stop - m_begin);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        m_offset += static_cast<int64_t>(next - m_begin);
        m_begin = m_scan = next;
        lineNumber = ++m_line;
        return true;
    }

    // Moves the partial line to the front (to a new buffer, when this one is held), grows the
    // buffer for a long line, reads more.
    bool fill() {
        // A held buffer is only left once it is full: the bytes after its last line are free.
        if (m_held ? m_end == m_buffer->size() : m_begin > 0) moveToFront();
        if (m_end == m_buffer->size()) {  // (then never held: moveToFront() took another one)
            if (m_buffer->size() > kMaxTraceLineBytes) {
                m_error = tooLong(m_name, m_line + 1);
                return false;
            }
            m_buffer->resize(std::min(m_buffer->size() * 2, kMaxTraceLineBytes + 2));
        }
        const ssize_t n = m_read(m_buffer->data() + m_end, m_buffer->size() - m_end);
        if (n < 0) {
            m_error = m_name + ":" + std::to_string(m_line + 1) +
                      ": read error: " + std::generic_category().message(errno);
            return false;
        }
        if (n == 0) m_eof = true;
        m_end += static_cast<size_t>(n);
        return true;
    }

    // The partial line [m_begin, m_end) to the front of the buffer, or of a new one of the usual
    // size (or of this one's, for a long line) when this one is held.
    void moveToFront() {
        const size_t partial = m_end - m_begin;
        if (m_held) {
            std::shared_ptr<Buffer> fresh =
                m_pool->take(std::min(std::max(kChunkBytes, 2 * partial), m_buffer->size()));
            std::memcpy(fresh->data(), m_buffer->data() + m_begin, partial);
            m_buffer = std::move(fresh);
            m_held = false;
            ++m_serial;
        } else {
            std::memmove(m_buffer->data(), m_buffer->data() + m_begin, partial);
        }
        m_end -= m_begin;
        m_scan -= m_begin;
        m_begin = 0;
    }

    ReadFn m_read;
    std::string m_name;
    std::shared_ptr<Pool> m_pool = Pool::make();
    std::shared_ptr<Buffer> m_buffer;
    bool m_held = false;    // holdBuffer() gave the buffer away since it became the current one
    uint64_t m_serial = 0;  // of the current buffer
    size_t m_begin = 0;     // start of the next line
    size_t m_scan = 0;      // where the search for '\n' goes on
    size_t m_end = 0;       // end of the bytes read
    int64_t m_offset = 0;
    uint64_t m_line = 0;
    bool m_eof = false;
    std::string m_error;
};

// Lines of a buffer in memory, without copying.
class BufferSource final : public LineSource {
public:
    BufferSource(std::string_view data, std::string name, int64_t offset, uint64_t firstLine)
        : m_data(data), m_name(std::move(name)), m_pos(static_cast<size_t>(offset)),
          m_line(firstLine - 1) {}

    bool next(std::string_view& line, uint64_t& lineNumber) override {
        if (m_pos >= m_data.size() || !m_error.empty()) return false;
        const char* data = m_data.data();
        const size_t stop =
            static_cast<size_t>(scan::findByte(data + m_pos, data + m_data.size(), '\n') - data);
        if (stop - m_pos > kMaxTraceLineBytes) {
            m_error = tooLong(m_name, m_line + 1);
            return false;
        }
        line = m_data.substr(m_pos, stop - m_pos);
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        m_pos = stop + 1;
        lineNumber = ++m_line;
        return true;
    }

    std::string error() const override { return m_error; }
    int64_t offset() const override { return static_cast<int64_t>(m_pos); }
    bool linesStay() const override { return true; }

    std::string_view unread() const override {
        if (m_pos >= m_data.size() || !m_error.empty()) return {};
        return m_data.substr(m_pos, kChunkBytes);
    }
    void advance(size_t bytes, uint64_t lines) override {
        m_pos += bytes;
        m_line += lines;
    }


private:
    std::string_view m_data;
    std::string m_name;
    size_t m_pos;
    uint64_t m_line;
    std::string m_error;
};

// An open file descriptor, closed with its owner.
class FileDescriptor {
public:
    explicit FileDescriptor(int fd) : m_fd(fd) {}
    ~FileDescriptor() {
        if (m_fd >= 0) ::close(m_fd);
    }
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    int get() const { return m_fd; }

private:
    int m_fd;
};

ssize_t readSome(int fd, char* data, size_t size) {
    for (;;) {
        const ssize_t n = ::read(fd, data, size);
        if (n >= 0 || errno != EINTR) return n;
    }
}

// Opens `path` at `offset` as a line source; null with `error` when it cannot.
std::unique_ptr<ChunkedSource> openFile(const std::string& path, std::string_view name,
                                        int64_t offset, uint64_t firstLine, std::string& error) {
    auto fd = std::make_shared<FileDescriptor>(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (fd->get() < 0 || (offset > 0 && ::lseek(fd->get(), offset, SEEK_SET) != offset)) {
        error = std::string(name) + ": cannot open: " + std::generic_category().message(errno);
        return nullptr;
    }
    auto read = [fd](char* data, size_t size) { return readSome(fd->get(), data, size); };
    return std::make_unique<ChunkedSource>(read, std::string(name), offset, firstLine);
}

// How an input is read again from a section start (null when it cannot be).
using Reopen = std::function<std::unique_ptr<LineSource>(int64_t offset, uint64_t firstLine,
                                                         std::string& error)>;

class Context final : public SectionContext {
public:
    Context(std::string_view name, const std::vector<TraceListener*>& listeners, Reopen reopen,
            uint64_t readAheadBytes)
        : m_name(name), m_listeners(listeners), m_reopen(std::move(reopen)),
          m_readAheadBytes(readAheadBytes) {
        m_offsets.fill({-1, 0});
        m_previous.fill({-1, 0});
    }

    std::string_view fileName() const override { return m_name; }
    int64_t sectionOffset(SectionKind kind) const override {
        return m_offsets[static_cast<size_t>(kind)].first;
    }
    bool reopenAt(int64_t offset, std::unique_ptr<LineCursor>& out,
                  std::string& error) const override {
        uint64_t firstLine = 0;
        for (const auto* starts : {&m_offsets, &m_previous}) {
            for (const auto& [known, line] : *starts) {
                if (known == offset && offset >= 0) firstLine = line;
            }
        }
        if (m_reopen && firstLine == 0) {
            error = std::string(m_name) + ": no section starts at offset " +
                    std::to_string(offset);
            return false;
        }
        return open(offset, firstLine, out, error);
    }
    const std::vector<TraceListener*>& listeners() const override { return m_listeners; }
    std::string where(uint64_t line) const override {
        std::string out(m_name);
        out.push_back(':');
        out.append(std::to_string(line));
        out.append(": ");
        return out;
    }
    bool canReopen() const override { return static_cast<bool>(m_reopen); }
    std::shared_ptr<detail::ReadAhead> readAhead(std::unique_ptr<LineCursor>& cursor,
                                                 uint64_t sectionBytes) override {
        if (sectionBytes < m_readAheadBytes) return nullptr;
        auto ahead = std::make_shared<detail::ReadAhead>(cursor);
        if (!ahead->started()) return nullptr;
        m_readers.push_back(ahead);
        return ahead;
    }
    // The input is done with: every reading thread stops (the parts may still hold them).
    ~Context() override {
        for (const std::weak_ptr<detail::ReadAhead>& reader : m_readers) {
            if (const auto alive = reader.lock()) alive->stop();
        }
    }
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    void sectionStarts(SectionKind kind, int64_t offset, uint64_t firstLine) {
        m_previous[static_cast<size_t>(kind)] = m_offsets[static_cast<size_t>(kind)];
        m_offsets[static_cast<size_t>(kind)] = {offset, firstLine};
    }

private:
    // A second cursor at `offset`, its first line numbered `firstLine`.
    bool open(int64_t offset, uint64_t firstLine, std::unique_ptr<LineCursor>& out,
              std::string& error) const {
        if (!m_reopen) {
            error = std::string(m_name) + ": the input cannot be read again";
            return false;
        }
        out = m_reopen(offset, firstLine, error);
        return out != nullptr;
    }

    std::string_view m_name;
    const std::vector<TraceListener*>& m_listeners;
    Reopen m_reopen;
    uint64_t m_readAheadBytes;
    std::vector<std::weak_ptr<detail::ReadAhead>> m_readers;  // started by readAhead()
    // Where the latest and the one before of each kind start (offset, first line): a part may
    // read a section again after the next one of its kind has begun.
    std::array<std::pair<int64_t, uint64_t>, kSectionKinds> m_offsets;
    std::array<std::pair<int64_t, uint64_t>, kSectionKinds> m_previous;
};

}  // namespace

std::vector<std::unique_ptr<AtpPart>> standardParts() {
    std::vector<std::unique_ptr<AtpPart>> parts;
    parts.push_back(detail::makeOclPart());
    parts.push_back(detail::makeHsaPart());
    parts.push_back(detail::makeStackPart());
    parts.push_back(detail::makePerfmarkerPart());
    return parts;
}

struct TraceParser::Impl {
    std::vector<std::unique_ptr<AtpPart>> parts;
    std::array<AtpPart*, kSectionKinds> bySection{};
    std::vector<TraceListener*> listeners;
    uint64_t readAheadBytes = kReadAheadBytes;
    bool takeLines = true;

    // (A template: each source's next() is called directly, not through the vtable.)
    template <typename Source>
    bool run(Source& source, Context& context, std::string& error);
};

namespace {

// The state of one pass over an input.
class Pass {
public:
    Pass(std::array<AtpPart*, kSectionKinds>& bySection, Context& context, bool takeLines)
        : m_bySection(bySection), m_context(context), m_takeLines(takeLines) {}

    // `source` tells where the next line starts (asked for section lines only).
    bool line(std::string_view raw, uint64_t number, const LineSource& source, std::string& error) {
        const std::string_view text = trimText(raw);
        if (text.empty()) return true;
        if (text.front() == '=') return sectionLine(text, number, source.offset(), error);
        if (m_inHeader) return headerLine(text, number, error);
        if (m_part != nullptr) return m_part->line(text, number, m_context, error);
        const SourceLocation where{m_context.fileName(), number};
        for (TraceListener* l : m_context.listeners()) l->onUnknownLine(m_name, text, where);
        return true;
    }

    // AtpPart::takeLines() of the current section's part, where it takes any.
    bool takesLines() const { return m_takes; }
    bool takeLines(std::string_view unread, uint64_t firstLine, size_t& bytes, uint64_t& lines,
                   std::string& error) {
        return m_part->takeLines(unread, firstLine, m_context, bytes, lines, error);
    }

    // After the last line: an input without a section line is a trace only when its header
    // says so (docs/format.md#what-is-a-trace).
    bool isTrace(uint64_t lines, std::string& error) const {
        if (!m_inHeader || m_version) return true;
        error = std::string(m_context.fileName()) + ": not a trace: ";
        if (lines == 0) {
            error += "the file is empty";
        } else if (!m_anyHeader) {  // (any other line would be a header line or an error)
            error += "the file holds only blank lines";
        } else {
            error += "no section line and no TraceFileVersion= header line";
        }
        return false;
    }

    bool endSection(uint64_t number, std::string& error) {
        AtpPart* part = m_part;
        m_part = nullptr;
        m_takes = false;
        return part == nullptr || part->endSection(number, m_context, error);
    }

private:
    // KEY=VALUE: a key of text (no control bytes), a value without NUL bytes. Before the first
    // good line, anything else means the input is no trace at all.
    bool headerLine(std::string_view text, uint64_t number, std::string& error) {
        const size_t eq = text.find('=');
        const auto control = [](char c) {
            return (static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == '\x7f';
        };
        if (eq == std::string_view::npos || eq == 0 ||
            std::any_of(text.begin(), text.begin() + static_cast<ptrdiff_t>(eq), control) ||
            text.find('\0', eq) != std::string_view::npos) {
            constexpr std::string_view kWhat = "a header line KEY=VALUE or a section line";
            error = m_anyHeader ? expectedGot(m_context, number, kWhat, text)
                                : atLine(m_context, number,
                                         "not a trace: expected " + std::string(kWhat) + ", got " +
                                             detail::excerpt(text));
            return false;
        }
        m_anyHeader = true;
        const std::string_view key = text.substr(0, eq);
        const std::string_view value = text.substr(eq + 1);
        if (key == "TraceFileVersion") m_version = true;
        if (key == kApiCallsLeftOutKey) noteCut(value, number);
        const SourceLocation where{m_context.fileName(), number};
        for (TraceListener* l : m_context.listeners()) l->onHeader(key, value, where);
        return true;
    }

    // docs/format.md#traces-cut-at-the-call-cap
    void noteCut(std::string_view value, uint64_t number) const {
        const std::optional<uint64_t> count = atp::apiCallsLeftOut(value);
        if (!count) {
            detail::warn(m_context, number,
                         std::string(kApiCallsLeftOutKey) + "=" + detail::excerpt(value) +
                             ": expected a number; ignored");
        } else if (*count > 0) {
            detail::warn(m_context, number,
                         "the trace was cut at the API call cap: " + std::to_string(*count) +
                             " API calls after the cut are not in it (nor what they enqueued); "
                             "objects may be released after the cut");
        }
    }

    bool sectionLine(std::string_view text, uint64_t number, int64_t nextOffset,
                     std::string& error) {
        std::string_view name;
        if (!parseSectionLine(text, name)) {
            constexpr std::string_view kWhat = "a section line '=====<name>====='";
            const bool first = m_inHeader && !m_anyHeader;
            error = first ? atLine(m_context, number,
                                   "not a trace: expected " + std::string(kWhat) + ", got " +
                                       detail::excerpt(text))
                          : expectedGot(m_context, number, kWhat, text);
            return false;
        }
        if (!endSection(number, error)) return false;
        m_inHeader = false;
        m_name.assign(name);
        const SectionKind kind = sectionKindOf(name);
        m_context.sectionStarts(kind, nextOffset, number + 1);
        const SourceLocation where{m_context.fileName(), number};
        for (TraceListener* l : m_context.listeners()) l->onSection(kind, m_name, where);
        m_part = m_bySection[static_cast<size_t>(kind)];
        m_takes = m_takeLines && m_part != nullptr;
        if (m_part == nullptr) {
            detail::warn(m_context, number,
                         "unknown section " + detail::excerpt(m_name) +
                             ": its lines are passed on unparsed");
            return true;
        }
        return m_part->beginSection(kind, m_context, number, error);
    }

    std::array<AtpPart*, kSectionKinds>& m_bySection;
    Context& m_context;
    bool m_inHeader = true;
    bool m_anyHeader = false;  // a header line was read
    bool m_version = false;    // a TraceFileVersion= line was read
    AtpPart* m_part = nullptr;
    bool m_takeLines;      // TraceParser::setTakeLines()
    bool m_takes = false;  // a part reads the section, and m_takeLines
    std::string m_name;
};

}  // namespace

template <typename Source>
bool TraceParser::Impl::run(Source& source, Context& context, std::string& error) {
    error.clear();
    for (auto& part : parts) part->beginFile(context);
    for (TraceListener* l : listeners) l->onFileBegin(context.fileName());
    Pass pass(bySection, context, takeLines);
    std::string_view line;
    uint64_t number = 0;
    while (source.next(line, number)) {
        if (!pass.line(line, number, source, error)) return false;
        if (pass.takesLines()) {
            size_t bytes = 0;
            uint64_t lines = 0;
            const bool ok = pass.takeLines(source.unread(), number + 1, bytes, lines, error);
            if (lines > 0) {
                source.advance(bytes, lines);
                number += lines;
            }
            if (!ok) return false;
        }
    }
    error = source.error();
    if (!error.empty()) return false;
    if (!pass.isTrace(number, error)) return false;
    if (!pass.endSection(number + 1, error)) return false;
    for (auto& part : parts) {
        if (!part->endFile(context, error)) return false;
    }
    for (TraceListener* l : listeners) l->onFileEnd(context.fileName());
    return true;
}

TraceParser::TraceParser() : m_impl(std::make_unique<Impl>()) {
    for (auto& part : standardParts()) addPart(std::move(part));
}

TraceParser::~TraceParser() = default;

void TraceParser::addPart(std::unique_ptr<AtpPart> part) {
    for (const SectionKind kind : part->sections()) {
        m_impl->bySection[static_cast<size_t>(kind)] = part.get();
    }
    m_impl->parts.push_back(std::move(part));
}

void TraceParser::addListener(TraceListener& listener) { m_impl->listeners.push_back(&listener); }

void TraceParser::setReadAhead(uint64_t minBytes) { m_impl->readAheadBytes = minBytes; }

void TraceParser::setTakeLines(bool on) { m_impl->takeLines = on; }

bool TraceParser::parseFile(const std::string& path, std::string& error) {
    return parseFile(path, path, error);
}

bool TraceParser::parseFile(const std::string& path, std::string_view name, std::string& error) {
    std::unique_ptr<ChunkedSource> source = openFile(path, name, 0, 1, error);
    if (!source) return false;
    Reopen reopen = [&path, name](int64_t offset, uint64_t firstLine, std::string& err) {
        return openFile(path, name, offset, firstLine, err);
    };
    Context context(name, m_impl->listeners, reopen, m_impl->readAheadBytes);
    return m_impl->run(*source, context, error);
}

bool TraceParser::parseStream(std::istream& in, std::string_view name, std::string& error) {
    auto read = [&in](char* data, size_t size) -> ssize_t {
        in.read(data, static_cast<std::streamsize>(size));
        if (in.bad()) {
            errno = EIO;
            return -1;
        }
        return static_cast<ssize_t>(in.gcount());
    };
    ChunkedSource source(read, std::string(name), 0, 1);
    Context context(name, m_impl->listeners, nullptr, m_impl->readAheadBytes);
    return m_impl->run(source, context, error);
}

bool TraceParser::parseBuffer(std::string_view data, std::string_view name, std::string& error) {
    BufferSource source(data, std::string(name), 0, 1);
    Reopen reopen = [data, name](int64_t offset, uint64_t firstLine, std::string&) {
        return std::make_unique<BufferSource>(data, std::string(name), offset, firstLine);
    };
    Context context(name, m_impl->listeners, reopen, m_impl->readAheadBytes);
    return m_impl->run(source, context, error);
}

}  // namespace perfmarker::atp
