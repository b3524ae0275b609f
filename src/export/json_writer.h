// The small streaming JSON writer of the Perfetto/Chrome exporter: appends to a std::string,
// never builds a document tree (the exporter writes millions of events; a tree per event
// would dominate the export time).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace perfmarker::exporter {

// The position of the first byte of `text` that `isSpecial` accepts (text.size() for none),
// looked for 8 bytes at a time: `wordBits(w)` is nonzero when one of the 8 bytes of `w` is
// special, and its lowest set bit is in the first of them (bits above it may be wrong).
// Little-endian. The JSON and CSV writers look for the bytes they must escape or quote.
template <typename WordBits, typename IsSpecial>
size_t firstSpecialByte(std::string_view text, WordBits wordBits, IsSpecial isSpecial) {
    const char* const p = text.data();
    const size_t n = text.size();
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        std::memcpy(&w, p + i, sizeof w);
        if (const uint64_t bits = wordBits(w))
            return i + static_cast<size_t>(__builtin_ctzll(bits) >> 3);
    }
    while (i < n && !isSpecial(static_cast<unsigned char>(p[i]))) ++i;
    return i;
}

// Appends `text` as a JSON string literal (with the quotes). Quotes, backslashes and control
// characters are escaped; bytes that are not valid UTF-8 (stray continuation bytes, truncated
// or overlong sequences, surrogates, code points above U+10FFFF) become U+FFFD, so the output
// is always valid UTF-8 whatever the trace holds.
void appendJsonString(std::string& out, std::string_view text);

// Appends an unsigned decimal integer.
void appendUnsigned(std::string& out, uint64_t value);

// Appends nanoseconds as microseconds with three decimals (4035402110954 ns is
// "4035402110.954"): exact, no floating point, so sub-microsecond detail is kept.
void appendMicroseconds(std::string& out, uint64_t nanoseconds);

// Builds one JSON object a member at a time: `{"a":1,"b":"x"}`.
class JsonObject {
public:
    explicit JsonObject(std::string& out) : m_out(out) { m_out.push_back('{'); }
    JsonObject(const JsonObject&) = delete;
    JsonObject& operator=(const JsonObject&) = delete;

    JsonObject& string(std::string_view key, std::string_view value);
    JsonObject& number(std::string_view key, uint64_t value);
    JsonObject& micros(std::string_view key, uint64_t nanoseconds);
    JsonObject& boolean(std::string_view key, bool value);
    // Starts a nested object; the caller closes it with JsonObject::close() on the child.
    JsonObject& key(std::string_view key);
    void close() { m_out.push_back('}'); }

private:
    void separator();
    std::string& m_out;
    bool m_first = true;
};

}  // namespace perfmarker::exporter
