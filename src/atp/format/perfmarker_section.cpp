// Reader of Perfmarker marker lines and files (docs/format.md#perfmarker-section,
// docs/format.md#conventions and docs/format.md#sections); the writer is perfmarker_writer.cpp.
#include "atp/format/perfmarker_section.h"

#include "atp/format/perfmarker_layout.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <system_error>

namespace perfmarker::atp {
namespace {

using namespace section_layout;

// ---- unescaping ----------------------------------------------------------------------------

// `cp` is a valid code point of at least 0x80.
void appendUtf8(std::string& out, uint32_t cp) {
    if (cp < 0x800) {
        out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    } else if (cp < 0x10000) {
        out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    } else {
        out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    }
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
}

bool decodeNamedEntity(std::string& out, std::string_view body) {
    char decoded = 0;
    if (body == "nbsp") decoded = ' ';
    else if (body == "amp") decoded = '&';
    else if (body == "comma") decoded = ',';
    else if (body == "lt") decoded = '<';
    else if (body == "gt") decoded = '>';
    else return false;
    out.push_back(decoded);
    return true;
}

// "#N" with decimal N: a byte below 256, else the UTF-8 encoding of code point N.
bool decodeNumericEntity(std::string& out, std::string_view body) {
    if (body.size() < 2 || body[0] != '#') return false;
    const char* first = body.data() + 1;
    const char* last = body.data() + body.size();
    uint32_t value = 0;
    const auto result = std::from_chars(first, last, value);
    if (result.ec != std::errc() || result.ptr != last) return false;
    if (value < 256) {
        out.push_back(static_cast<char>(value));
        return true;
    }
    if (value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return false;
    appendUtf8(out, value);
    return true;
}

// `text` starts with '&'; decodes one entity and returns the number of bytes consumed.
size_t decodeEntity(std::string& out, std::string_view text) {
    const size_t semicolon = text.substr(0, kMaxEntityLength).find(';');
    if (semicolon != std::string_view::npos) {
        const std::string_view body = text.substr(1, semicolon - 1);
        if (decodeNamedEntity(out, body) || decodeNumericEntity(out, body)) return semicolon + 1;
    }
    out.push_back('&');
    return 1;
}

// ---- tokenizing and numbers ----------------------------------------------------------------

bool isSpace(char c) {
    return kCharClasses.flags[static_cast<unsigned char>(c)] & CharClasses::kSpace;
}

bool startsWith(std::string_view text, std::string_view prefix) {
    return text.substr(0, prefix.size()) == prefix;
}

// The writer's padding makes long runs of ' ': skip them 8 bytes per step (one 64-bit compare).
size_t skipSpaces(std::string_view text, size_t pos) {
    while (pos + 8 <= text.size() && std::memcmp(text.data() + pos, kSpaces.data(), 8) == 0)
        pos += 8;
    while (pos < text.size() && isSpace(text[pos])) ++pos;
    return pos;
}

std::string_view trim(std::string_view text) {
    text.remove_prefix(skipSpaces(text, 0));
    while (!text.empty() && isSpace(text.back())) text.remove_suffix(1);
    return text;
}

// Returns the next whitespace-delimited token of `rest` (empty at the end) and consumes it.
std::string_view nextToken(std::string_view& rest) {
    const size_t begin = skipSpaces(rest, 0);
    size_t end = begin;
    while (end < rest.size() && !isSpace(rest[end])) ++end;
    const std::string_view token = rest.substr(begin, end - begin);
    rest.remove_prefix(end);
    return token;
}

// The last token of an already right-trimmed `text`.
std::string_view lastToken(std::string_view text) {
    size_t begin = text.size();
    while (begin > 0 && !isSpace(text[begin - 1])) --begin;
    return text.substr(begin);
}

enum class NumberStatus { Ok, Invalid, TooLarge };

NumberStatus parseDecimal(std::string_view token, uint64_t& value) {
    if (token.empty()) return NumberStatus::Invalid;
    const char* last = token.data() + token.size();
    const auto result = std::from_chars(token.data(), last, value);
    if (result.ec == std::errc::result_out_of_range) return NumberStatus::TooLarge;
    if (result.ec != std::errc() || result.ptr != last) return NumberStatus::Invalid;
    return NumberStatus::Ok;
}

// Quotes input for a message: bounded length, non-printable bytes as \xNN.
std::string quoted(std::string_view text) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "'";
    for (size_t i = 0; i < text.size() && i < kMaxQuotedLength; ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            out.push_back(static_cast<char>(c));
        } else {
            out.append("\\x");
            out.push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 0xF]);
        }
    }
    out.append(text.size() > kMaxQuotedLength ? "...'" : "'");
    return out;
}

// "expected <what>, got '<token>'" with the reason a number was rejected.
std::string expectedNumber(std::string_view what, std::string_view token, NumberStatus status) {
    std::string message = "expected ";
    message.append(what).append(", got ");
    message.append(token.empty() ? std::string("the end of the line") : quoted(token));
    if (status == NumberStatus::TooLarge) message.append(" (too large)");
    return message;
}

std::string lineMessage(uint64_t lineNumber, std::string_view what) {
    std::string message = "line ";
    appendDecimal(message, lineNumber);
    message.append(": ").append(what);
    return message;
}

bool isMarkerKeyword(std::string_view token) {
    return token == kBeginKeyword || token == kEndKeyword || token == kEndExKeyword;
}

// ---- marker lines --------------------------------------------------------------------------

bool parseTimestamp(std::string_view token, Marker& marker, std::string& what) {
    const NumberStatus status = parseDecimal(token, marker.timestampNs);
    if (status == NumberStatus::Ok) return true;
    what = expectedNumber("a timestamp (decimal nanoseconds)", token, status);
    return false;
}

bool parseName(std::string_view token, std::string_view after, Marker& marker, std::string& what) {
    if (token.empty()) {
        what = "expected a marker name after ";
        what.append(after).append(", got the end of the line");
        return false;
    }
    appendUnescapedToken(marker.name, token);
    return true;
}

// The group, its unescaped continuation tokens, and an optional last "user=" token.
bool parseGroupAndUser(std::string_view rest, Marker& marker, std::string& what) {
    const std::string_view group = nextToken(rest);
    if (group.empty()) {
        what = "expected a group name, got the end of the line";
        return false;
    }
    appendUnescapedToken(marker.group, group);
    rest = trim(rest);
    const std::string_view last = lastToken(rest);
    if (startsWith(last, kUserPrefix)) {
        appendUnescapedToken(marker.userString, last.substr(kUserPrefix.size()));
        rest.remove_suffix(last.size());
    }
    for (std::string_view token = nextToken(rest); !token.empty(); token = nextToken(rest)) {
        marker.group.push_back(' ');
        appendUnescapedToken(marker.group, token);
    }
    return true;
}

bool parseBegin(std::string_view rest, Marker& marker, std::string& what) {
    marker.kind = MarkerKind::Begin;
    return parseName(nextToken(rest), kBeginKeyword, marker, what) &&
           parseTimestamp(nextToken(rest), marker, what) && parseGroupAndUser(rest, marker, what);
}

// Timestamp, name and group, one token each, then an optional last "user=" token; further tokens
// are ignored, as the original reader ignored them (its writer did not escape the spaces of
// these names: docs/format.md#leniencies).
bool parseEndEx(std::string_view rest, Marker& marker, std::string& what) {
    marker.kind = MarkerKind::EndEx;
    if (!parseTimestamp(nextToken(rest), marker, what) ||
        !parseName(nextToken(rest), "the timestamp", marker, what)) {
        return false;
    }
    const std::string_view group = nextToken(rest);
    if (group.empty()) {
        what = "expected a group name, got the end of the line";
        return false;
    }
    appendUnescapedToken(marker.group, group);
    const std::string_view last = lastToken(trim(rest));
    if (startsWith(last, kUserPrefix)) {
        appendUnescapedToken(marker.userString, last.substr(kUserPrefix.size()));
    }
    return true;
}

// Tokens after an End timestamp are ignored, as the original reader did.
bool parseMarkerLine(std::string_view text, Marker& marker, std::string& what) {
    marker.name.clear();
    marker.group.clear();
    marker.userString.clear();
    std::string_view rest = text;
    const std::string_view keyword = nextToken(rest);
    if (keyword == kBeginKeyword) return parseBegin(rest, marker, what);
    if (keyword == kEndExKeyword) return parseEndEx(rest, marker, what);
    if (keyword == kEndKeyword) {
        marker.kind = MarkerKind::End;
        return parseTimestamp(nextToken(rest), marker, what);
    }
    what = "expected a marker line (clBeginPerfMarker, clEndPerfMarker or clEndPerfMarkerEx), got ";
    what.append(quoted(text));
    return false;
}

// ---- whole files ---------------------------------------------------------------------------

bool isAnySectionLine(std::string_view text) {
    return text.size() >= 2 * kSectionFence.size() && startsWith(text, kSectionFence) &&
           text.substr(text.size() - kSectionFence.size()) == kSectionFence;
}

class FileCollector final : public PerfmarkerListener {
public:
    explicit FileCollector(PerfmarkerFile& file) : m_file(file) {}
    void onThread(uint64_t tid, uint64_t declaredCount) override {
        ThreadMarkers& thread = m_file.threads.emplace_back();
        thread.tid = tid;
        thread.markers.reserve(std::min(declaredCount, kMaxReserve));
    }
    void onMarker(uint64_t, const Marker& marker) override {
        m_file.threads.back().markers.push_back(marker);
    }
    void onWarning(uint64_t line, const std::string& message) override {
        m_file.warnings.push_back(lineMessage(line, message));
    }

private:
    PerfmarkerFile& m_file;
};

std::string fileMessage(std::string_view name, uint64_t lineNumber, std::string_view what) {
    std::string message(name);
    message.push_back(':');
    appendDecimal(message, lineNumber);
    message.append(": ").append(what);
    return message;
}

// Turns the parser's "line N: what" into "<name>:N: what".
std::string relabel(std::string_view name, uint64_t lineNumber, const std::string& parserError) {
    std::string prefix = lineMessage(lineNumber, "");
    std::string_view what = parserError;
    if (startsWith(what, prefix)) what.remove_prefix(prefix.size());
    return fileMessage(name, lineNumber, what);
}

std::string expectedSectionLine(std::string_view got) {
    std::string what = "expected '";
    what.append(kPerfmarkerSectionLine).append("' (or a legacy spelling) as the first line, got ");
    what.append(got.empty() ? std::string("the end of the file") : quoted(got));
    return what;
}

}  // namespace

// ---- public: reading -----------------------------------------------------------------------

void appendUnescapedToken(std::string& out, std::string_view token) {
    if (token == kEmptyEntity) return;
    size_t pos = 0;
    while (pos < token.size()) {
        const size_t amp = token.find('&', pos);
        if (amp == std::string_view::npos) {
            out.append(token.substr(pos));
            return;
        }
        out.append(token.substr(pos, amp - pos));
        pos = amp + decodeEntity(out, token.substr(amp));
    }
}

std::string unescapeToken(std::string_view token) {
    std::string out;
    out.reserve(token.size());
    appendUnescapedToken(out, token);
    return out;
}

bool isPerfmarkerSectionLine(std::string_view line) {
    const std::string_view text = trim(line);
    if (!isAnySectionLine(text)) return false;
    std::string_view name =
        text.substr(kSectionFence.size(), text.size() - 2 * kSectionFence.size());
    if (startsWith(name, "AMD ")) name.remove_prefix(4);
    return name == "Perfmarker Output" || name == "OpenCL Perfmarker Output" ||
           name == "CodeXL Perfmarker Output";
}

bool PerfmarkerSectionParser::feedLine(std::string_view line, uint64_t lineNumber,
                                       std::string& error) {
    const std::string_view text = trim(line);
    if (text.empty() || startsWith(text, kProfilerVersionPrefix)) return true;
    switch (m_state) {
    case State::ExpectTid: return feedTid(text, lineNumber, error);
    case State::ExpectCount: return feedCount(text, lineNumber, error);
    case State::InBlock: return feedMarker(text, lineNumber, error);
    }
    return true;
}

bool PerfmarkerSectionParser::finish(uint64_t lineNumber, std::string& error) {
    const State state = m_state;
    m_state = State::ExpectTid;
    if (state == State::ExpectTid) return true;
    std::string what = "thread ";
    appendDecimal(what, m_tid);
    if (state == State::ExpectCount) {
        what.append(" has no marker line count before the end of the section");
    } else {
        what.append(" declares ");
        appendDecimal(what, m_count);
        what.append(" marker lines but the section ends after ");
        appendDecimal(what, m_count - m_remaining);
    }
    error = lineMessage(lineNumber, what);
    return false;
}

bool PerfmarkerSectionParser::feedTid(std::string_view text, uint64_t lineNumber,
                                      std::string& error) {
    const NumberStatus status = parseDecimal(text, m_tid);
    if (status == NumberStatus::Ok) {
        m_state = State::ExpectCount;
        return true;
    }
    std::string what = expectedNumber("a thread id (decimal)", text, status);
    std::string_view rest = text;
    if (isMarkerKeyword(nextToken(rest)))
        what.append(" (more marker lines than the previous thread block declares?)");
    error = lineMessage(lineNumber, what);
    return false;
}

bool PerfmarkerSectionParser::feedCount(std::string_view text, uint64_t lineNumber,
                                        std::string& error) {
    const NumberStatus status = parseDecimal(text, m_count);
    if (status != NumberStatus::Ok) {
        std::string what = "the marker line count of thread ";
        appendDecimal(what, m_tid);
        what.append(" (decimal)");
        error = lineMessage(lineNumber, expectedNumber(what, text, status));
        return false;
    }
    m_remaining = m_count;
    m_depth = 0;
    m_listener.onThread(m_tid, m_count);
    m_state = m_count == 0 ? State::ExpectTid : State::InBlock;
    return true;
}

bool PerfmarkerSectionParser::feedMarker(std::string_view text, uint64_t lineNumber,
                                         std::string& error) {
    std::string what;
    if (!parseMarkerLine(text, m_marker, what)) {
        error = lineMessage(lineNumber, what);
        return false;
    }
    m_marker.line = lineNumber;
    m_listener.onMarker(m_tid, m_marker);
    trackBalance(lineNumber);
    if (--m_remaining == 0) closeBlock(lineNumber);
    return true;
}

void PerfmarkerSectionParser::trackBalance(uint64_t lineNumber) {
    if (m_marker.kind == MarkerKind::Begin) {
        ++m_depth;
    } else if (m_depth > 0) {
        --m_depth;
    } else {
        std::string message = "unbalanced perf markers in thread ";
        appendDecimal(message, m_tid);
        message.append(": an end marker without a matching begin");
        m_listener.onWarning(lineNumber, message);
    }
}

void PerfmarkerSectionParser::closeBlock(uint64_t lineNumber) {
    m_state = State::ExpectTid;
    if (m_depth == 0) return;
    std::string message = "unbalanced perf markers in thread ";
    appendDecimal(message, m_tid);
    message.append(": ");
    appendDecimal(message, m_depth);
    message.append(" begin marker(s) not ended by the end of the thread block");
    m_listener.onWarning(lineNumber, message);
}

bool readPerfmarkerFile(std::istream& in, std::string_view name, PerfmarkerFile& out,
                        std::string& error) {
    out.threads.clear();
    out.warnings.clear();
    FileCollector collector(out);
    PerfmarkerSectionParser parser(collector);
    std::string line;
    uint64_t lineNumber = 0;
    bool inSection = false;
    while (std::getline(in, line)) {
        ++lineNumber;
        const std::string_view text = trim(line);
        if (!inSection) {
            if (text.empty()) continue;
            if (!isPerfmarkerSectionLine(text)) {
                error = fileMessage(name, lineNumber, expectedSectionLine(text));
                return false;
            }
            inSection = true;
        } else if (isAnySectionLine(text)) {
            if (!parser.finish(lineNumber, error)) {
                error = relabel(name, lineNumber, error);
                return false;
            }
            if (!isPerfmarkerSectionLine(text)) return true;
        } else if (!parser.feedLine(text, lineNumber, error)) {
            error = relabel(name, lineNumber, error);
            return false;
        }
    }
    if (in.bad()) {
        error = fileMessage(name, lineNumber + 1, "read error");
        return false;
    }
    if (!inSection) {
        error = fileMessage(name, 1, expectedSectionLine({}));
        return false;
    }
    if (!parser.finish(lineNumber, error)) {
        error = relabel(name, lineNumber, error);
        return false;
    }
    return true;
}

bool readPerfmarkerFile(const std::string& path, PerfmarkerFile& out, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path + ": cannot open: " + std::generic_category().message(errno);
        return false;
    }
    return readPerfmarkerFile(in, path, out, error);
}

}  // namespace perfmarker::atp
