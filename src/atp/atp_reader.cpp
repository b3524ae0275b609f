// Streaming .atp reader (see atp_reader.h).
#include "atp/atp_reader.h"

#include <cerrno>
#include <charconv>
#include <fstream>
#include <system_error>
#include <unordered_map>

#include "atp/ocl_timestamp.h"

namespace perfmarker::atp {
namespace {

constexpr std::string_view kProfilerVersionPrefix = "ProfilerVersion=";
constexpr size_t kExcerpt = 60;

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; }

std::string_view trim(std::string_view s) {
    while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
    while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
    return s;
}

bool hasSpace(std::string_view s) {
    for (const char c : s) {
        if (isSpace(c)) return true;
    }
    return false;
}

std::string quoted(std::string_view text) {
    std::string out = "'";
    out.append(text.substr(0, kExcerpt));
    if (text.size() > kExcerpt) out.append("...");
    out.push_back('\'');
    return out;
}

bool parseUint(std::string_view text, uint64_t& value) {
    const auto r = std::from_chars(text.data(), text.data() + text.size(), value);
    return r.ec == std::errc() && r.ptr == text.data() + text.size() && !text.empty();
}

// Position of the comment " /*" outside double quotes in a parameter list, or npos.
size_t commentStart(std::string_view inner) {
    if (inner.substr(0, 2) == "/*") return 0;
    bool inQuotes = false;
    for (size_t i = 0; i < inner.size(); ++i) {
        const char c = inner[i];
        if (inQuotes && c == '\\') {
            ++i;
        } else if (c == '"') {
            inQuotes = !inQuotes;
        } else if (!inQuotes && c == ' ' && inner.substr(i + 1, 2) == "/*") {
            return i;
        }
    }
    return std::string_view::npos;
}

// Splits on ';' outside quotes and brackets ("[{a;b}]" stays whole).
void splitParams(std::string_view text, std::vector<std::string_view>& out) {
    out.clear();
    if (text.empty()) return;
    bool inQuotes = false;
    int depth = 0;
    size_t begin = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (inQuotes) {
            if (c == '\\')
                ++i;
            else if (c == '"')
                inQuotes = false;
        } else if (c == '"') {
            inQuotes = true;
        } else if (c == '[' || c == '{' || c == '(') {
            ++depth;
        } else if ((c == ']' || c == '}' || c == ')') && depth > 0) {
            --depth;
        } else if (c == ';' && depth == 0) {
            out.push_back(text.substr(begin, i - begin));
            begin = i + 1;
        }
    }
    out.push_back(text.substr(begin));
}

bool isApiSection(SectionKind k) {
    return k == SectionKind::OclApiTrace || k == SectionKind::HsaApiTrace;
}
bool isTimestampSection(SectionKind k) {
    return k == SectionKind::OclTimestamp || k == SectionKind::HsaTimestamp;
}
bool hasThreadBlocks(SectionKind k) {
    return k != SectionKind::HsaKernelTimestamp && k != SectionKind::Unknown;
}

// The pairing rule of spec §1.3 for one API family: the first of its two sections is recorded
// (thread ids, counts, and an interned name per line), the second is checked against it.
class Pairing {
public:
    void begin(SectionKind kind) {
        if (m_first == SectionKind::Unknown) {
            m_first = kind;
            m_role = Role::Record;
        } else if (kind != m_first && !m_checked) {
            m_role = Role::Check;
            m_thread = 0;
            m_cursor = 0;
        } else {
            m_role = Role::None;  // a repeated section: nothing to pair it with
        }
    }

    bool thread(uint64_t tid, uint64_t count, std::string& what) {
        if (m_role == Role::Record) {
            m_threads.push_back({tid, count, m_names.size()});
        } else if (m_role == Role::Check) {
            if (m_thread >= m_threads.size()) {
                what = "no more thread blocks (the " + firstName() + " section has " +
                       std::to_string(m_threads.size()) + "), got thread " + std::to_string(tid);
                return false;
            }
            const ThreadRecord& t = m_threads[m_thread++];
            if (t.tid != tid || t.count != count) {
                what = "thread " + std::to_string(t.tid) + " with " + std::to_string(t.count) +
                       " lines as in the " + firstName() + " section, got thread " +
                       std::to_string(tid) + " with " + std::to_string(count) + " lines";
                return false;
            }
            m_cursor = t.firstName;
        }
        return true;
    }

    bool line(std::string_view name, std::string& what) {
        if (m_role == Role::Record) {
            const auto it = m_ids.try_emplace(std::string(name), m_ids.size()).first;
            if (it->second == m_nameList.size()) m_nameList.push_back(it->first);
            m_names.push_back(it->second);
        } else if (m_role == Role::Check) {
            const std::string& expected = m_nameList[m_names[m_cursor++]];
            if (expected != name) {
                what = "API " + quoted(expected) + " as in the paired line of the " + firstName() +
                       " section, got " + quoted(name);
                return false;
            }
        }
        return true;
    }

    bool end(std::string& what) {
        if (m_role == Role::Check) {
            m_checked = true;
            if (m_thread != m_threads.size()) {
                what = std::to_string(m_threads.size()) + " thread blocks as in the " +
                       firstName() + " section before the section ends, got " +
                       std::to_string(m_thread);
                return false;
            }
        }
        m_role = Role::None;
        return true;
    }

private:
    enum class Role { None, Record, Check };
    struct ThreadRecord {
        uint64_t tid;
        uint64_t count;
        size_t firstName;
    };
    std::string firstName() const { return std::string(sectionName(m_first)); }

    SectionKind m_first = SectionKind::Unknown;
    Role m_role = Role::None;
    bool m_checked = false;
    std::vector<ThreadRecord> m_threads;
    std::vector<uint32_t> m_names;
    std::unordered_map<std::string, uint32_t> m_ids;
    std::vector<std::string> m_nameList;
    size_t m_thread = 0;
    size_t m_cursor = 0;
};

class AtpParser final : public PerfmarkerListener {
public:
    AtpParser(std::string_view name, AtpListener& listener)
        : m_name(name), m_listener(listener), m_markers(*this) {}

    bool feed(std::string_view raw, uint64_t line) {
        const std::string_view text = trim(raw);
        if (text.empty()) return true;
        if (text.front() == '=') {
            std::string_view name;
            if (!parseSectionLine(text, name)) {
                return fail(line,
                            "expected a section line '=====<name>=====', got " + quoted(text));
            }
            return endSection(line) && beginSection(sectionKindOf(name), name, line);
        }
        if (m_kind == kHeader) return headerLine(text, line);
        if (text.substr(0, kProfilerVersionPrefix.size()) == kProfilerVersionPrefix) return true;
        if (m_kind == SectionKind::Perfmarker) return markerLine(text, line);
        if (hasThreadBlocks(m_kind)) return blockLine(text, line);
        if (m_kind == SectionKind::HsaKernelTimestamp && !m_haveCount) {
            if (!parseUint(text, m_remaining)) {
                return fail(line, "expected the number of dispatch lines, got " + quoted(text));
            }
            m_haveCount = true;
            return true;
        }
        if (m_kind == SectionKind::HsaKernelTimestamp && m_remaining-- == 0) {
            return fail(line, "expected a section line after the declared dispatch lines, got " +
                                  quoted(text));
        }
        m_listener.onOtherLine(m_kind, 0, text, line);
        return true;
    }

    bool finish(uint64_t line) { return endSection(line); }
    const std::string& error() const { return m_error; }

    // PerfmarkerListener: forwarded with the section kind.
    void onThread(uint64_t tid, uint64_t count) override {
        m_listener.onThread(SectionKind::Perfmarker, tid, count, m_line);
    }
    void onMarker(uint64_t tid, const Marker& marker) override { m_listener.onMarker(tid, marker); }
    void onWarning(uint64_t line, const std::string& message) override {
        m_listener.onWarning(line, message);
    }

private:
    static constexpr SectionKind kHeader = static_cast<SectionKind>(0xff);
    enum class Block { ExpectTid, ExpectCount, InBlock };

    bool fail(uint64_t line, const std::string& what) {
        m_error = std::string(m_name) + ":" + std::to_string(line) + ": " + what;
        return false;
    }

    // The Perfmarker parser says "line N: what"; ours say "<name>:N: what".
    bool relabel(const std::string& error) {
        m_error =
            std::string(m_name) + ":" + (error.substr(0, 5) == "line " ? error.substr(5) : error);
        return false;
    }

    Pairing* pairingOf(SectionKind kind) {
        if (kind == SectionKind::OclApiTrace || kind == SectionKind::OclTimestamp) return &m_ocl;
        if (kind == SectionKind::HsaApiTrace || kind == SectionKind::HsaTimestamp) return &m_hsa;
        return nullptr;
    }

    bool headerLine(std::string_view text, uint64_t line) {
        const size_t eq = text.find('=');
        if (eq == std::string_view::npos || eq == 0) {
            return fail(line,
                        "expected a header line KEY=VALUE or a section line, got " + quoted(text));
        }
        m_listener.onHeader(text.substr(0, eq), text.substr(eq + 1), line);
        return true;
    }

    bool beginSection(SectionKind kind, std::string_view name, uint64_t line) {
        m_kind = kind;
        m_block = Block::ExpectTid;
        m_haveCount = false;
        m_remaining = 0;
        if (Pairing* p = pairingOf(kind)) p->begin(kind);
        m_listener.onSection(kind, name, line);
        return true;
    }

    bool endSection(uint64_t line) {
        const SectionKind kind = m_kind;
        if (kind == kHeader) return true;
        m_kind = SectionKind::Unknown;
        if (kind == SectionKind::Perfmarker) {
            std::string error;
            return m_markers.finish(line, error) || relabel(error);
        }
        if (hasThreadBlocks(kind) && m_block != Block::ExpectTid) {
            return fail(line, "expected the " + std::to_string(m_count) + " lines thread " +
                                  std::to_string(m_tid) +
                                  " declares before the section ends, got " +
                                  std::to_string(m_count - m_remaining));
        }
        if (kind == SectionKind::HsaKernelTimestamp && m_remaining > 0) {
            return fail(line, "expected " + std::to_string(m_remaining) +
                                  " more dispatch lines before the section ends");
        }
        std::string what;
        if (Pairing* p = pairingOf(kind); p != nullptr && !p->end(what)) {
            return fail(line, "expected " + what);
        }
        return true;
    }

    bool markerLine(std::string_view text, uint64_t line) {
        m_line = line;
        std::string error;
        return m_markers.feedLine(text, line, error) || relabel(error);
    }

    bool blockLine(std::string_view text, uint64_t line) {
        switch (m_block) {
            case Block::ExpectTid:
                if (!parseUint(text, m_tid))
                    return fail(line, "expected a thread id, got " + quoted(text));
                m_block = Block::ExpectCount;
                return true;
            case Block::ExpectCount:
                return countLine(text, line);
            case Block::InBlock:
                if (--m_remaining == 0) m_block = Block::ExpectTid;
                return entryLine(text, line);
        }
        return true;
    }

    bool countLine(std::string_view text, uint64_t line) {
        if (!parseUint(text, m_count)) {
            return fail(line, "expected the line count of thread " + std::to_string(m_tid) +
                                  ", got " + quoted(text));
        }
        std::string what;
        if (Pairing* p = pairingOf(m_kind); p != nullptr && !p->thread(m_tid, m_count, what)) {
            return fail(line, "expected " + what);
        }
        m_remaining = m_count;
        m_block = m_count == 0 ? Block::ExpectTid : Block::InBlock;
        m_listener.onThread(m_kind, m_tid, m_count, line);
        return true;
    }

    bool entryLine(std::string_view text, uint64_t line) {
        std::string what;
        std::string_view name;
        if (isApiSection(m_kind)) {
            if (!parseApiLine(text, m_api, what)) return fail(line, what);
            name = m_api.name;
        } else if (isTimestampSection(m_kind)) {
            splitFields(text, m_fields);
            if (!checkTimestamp(what)) return fail(line, what);
            name = m_fields[1];
        } else {
            m_listener.onOtherLine(m_kind, m_tid, text, line);
            return true;
        }
        Pairing* pairing = pairingOf(m_kind);
        if (!pairing->line(name, what)) return fail(line, "expected " + what);
        if (isApiSection(m_kind)) {
            m_listener.onApiLine(m_kind, m_tid, m_api, line);
        } else {
            m_listener.onTimestampLine(m_kind, m_tid, m_fields, line);
        }
        return true;
    }

    // OpenCL lines are checked field by field; HSA lines only for their four base fields.
    bool checkTimestamp(std::string& what) {
        if (m_kind == SectionKind::OclTimestamp) {
            return parseOclTimestampFields(m_fields, m_timestamp, what);
        }
        uint64_t number = 0;
        if (m_fields.size() >= 4 && parseUint(m_fields[0], number) &&
            parseUint(m_fields[2], number) && parseUint(m_fields[3], number)) {
            return true;
        }
        what = "expected a timestamp line 'type name start end ...', got " +
               std::to_string(m_fields.size()) + " fields";
        return false;
    }

    std::string_view m_name;
    AtpListener& m_listener;
    PerfmarkerSectionParser m_markers;
    std::string m_error;
    SectionKind m_kind = kHeader;
    Block m_block = Block::ExpectTid;
    bool m_haveCount = false;
    uint64_t m_tid = 0;
    uint64_t m_count = 0;
    uint64_t m_remaining = 0;
    uint64_t m_line = 0;
    Pairing m_ocl;
    Pairing m_hsa;
    ApiLine m_api;                           // reused per line
    std::vector<std::string_view> m_fields;  // reused per line
    OclTimestampLine m_timestamp;            // reused per line
};

// Collects everything for loadAtp().
class DocumentCollector final : public AtpListener {
public:
    explicit DocumentCollector(AtpDocument& doc) : m_doc(doc) {}

    void onHeader(std::string_view key, std::string_view value, uint64_t) override {
        m_doc.header.emplace_back(std::string(key), std::string(value));
    }
    void onSection(SectionKind kind, std::string_view, uint64_t) override {
        m_doc.sections.push_back(kind);
    }
    void onThread(SectionKind kind, uint64_t tid, uint64_t count, uint64_t) override {
        if (kind == SectionKind::Perfmarker) {
            m_doc.markers.threads.push_back(ThreadMarkers{tid, {}});
            m_doc.markers.threads.back().markers.reserve(std::min<uint64_t>(count, 1u << 16));
            return;
        }
        m_doc.blocks[kind].push_back(AtpThreadBlock{tid, {}});
    }
    void onApiLine(SectionKind kind, uint64_t, const ApiLine&, uint64_t) override { add(kind); }
    void onTimestampLine(SectionKind kind, uint64_t, const std::vector<std::string_view>&,
                         uint64_t) override {
        add(kind);
    }
    void onOtherLine(SectionKind kind, uint64_t, std::string_view, uint64_t) override { add(kind); }
    void onMarker(uint64_t, const Marker& marker) override {
        if (!m_doc.markers.threads.empty()) m_doc.markers.threads.back().markers.push_back(marker);
    }
    void onWarning(uint64_t line, const std::string& message) override {
        m_doc.warnings.push_back("line " + std::to_string(line) + ": " + message);
    }

    std::string_view current;  // the raw line being read

private:
    void add(SectionKind kind) {
        auto& blocks = m_doc.blocks[kind];
        if (blocks.empty()) blocks.push_back(AtpThreadBlock{});  // sections without blocks
        blocks.back().lines.emplace_back(trim(current));
    }

    AtpDocument& m_doc;
};

bool readLines(std::istream& in, std::string_view name, AtpListener& listener, std::string& error,
               std::string_view* current) {
    AtpParser parser(name, listener);
    std::string line;
    uint64_t number = 0;
    while (std::getline(in, line)) {
        ++number;
        if (current != nullptr) *current = line;
        if (!parser.feed(line, number)) {
            error = parser.error();
            return false;
        }
    }
    if (in.bad()) {
        error = std::string(name) + ":" + std::to_string(number + 1) + ": read error";
        return false;
    }
    if (!parser.finish(number + 1)) {
        error = parser.error();
        return false;
    }
    return true;
}

}  // namespace

bool parseApiLine(std::string_view line, ApiLine& out, std::string& error) {
    const std::string_view text = trim(line);
    const size_t open = text.find(" ( ");
    const bool closed = text.size() >= 2 && text.substr(text.size() - 2) == " )";
    if (open == std::string_view::npos || !closed || open + 3 > text.size()) {
        error = "expected an API line 'Ret = Name ( params )', got " + quoted(text);
        return false;
    }
    const std::string_view head = text.substr(0, open);
    const size_t eq = head.find(" = ");
    out.returnValue = eq == std::string_view::npos ? std::string_view() : head.substr(0, eq);
    out.name = eq == std::string_view::npos ? head : head.substr(eq + 3);
    if (out.name.empty() || hasSpace(out.name) || hasSpace(out.returnValue) ||
        (eq != std::string_view::npos && out.returnValue.empty())) {
        error = "expected 'Ret = Name' before ' ( ', got " + quoted(head);
        return false;
    }
    // "Name (  )" has no parameters; "Name ( )" is accepted as the same.
    std::string_view inner;
    if (open + 3 <= text.size() - 2) inner = text.substr(open + 3, text.size() - 2 - (open + 3));
    out.comment = {};
    const size_t comment = commentStart(inner);
    if (comment != std::string_view::npos) {
        const std::string_view tail = inner.substr(comment == 0 ? 0 : comment + 1);
        if (tail.size() < 4 || tail.substr(tail.size() - 2) != "*/") {
            error = "expected a comment '/*...*/' to end the parameter list, got " + quoted(tail);
            return false;
        }
        out.comment = tail.substr(2, tail.size() - 4);
        inner = inner.substr(0, comment);
    }
    splitParams(inner, out.params);
    return true;
}

bool readAtp(std::istream& in, std::string_view name, AtpListener& listener, std::string& error) {
    return readLines(in, name, listener, error, nullptr);
}

bool readAtpFile(const std::string& path, AtpListener& listener, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path + ": cannot open: " + std::generic_category().message(errno);
        return false;
    }
    return readAtp(in, path, listener, error);
}

const std::string* AtpDocument::headerValue(std::string_view key) const {
    for (const auto& [k, v] : header) {
        if (k == key) return &v;
    }
    return nullptr;
}

bool loadAtp(std::istream& in, std::string_view name, AtpDocument& out, std::string& error) {
    out = AtpDocument{};
    DocumentCollector collector(out);
    return readLines(in, name, collector, error, &collector.current);
}

bool loadAtpFile(const std::string& path, AtpDocument& out, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path + ": cannot open: " + std::generic_category().message(errno);
        return false;
    }
    return loadAtp(in, path, out, error);
}

}  // namespace perfmarker::atp
