#include "export/json_writer.h"

#include "atp/format/decimal.h"

namespace perfmarker::exporter {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

// The length of the valid UTF-8 sequence starting at text[i], or 0 when it is not valid.
size_t validSequenceLength(std::string_view text, size_t i) {
    const auto byte = [&](size_t k) { return static_cast<unsigned char>(text[k]); };
    const unsigned char lead = byte(i);
    size_t length = 0;
    uint32_t codePoint = 0;
    if (lead >= 0xC2 && lead <= 0xDF) {
        length = 2, codePoint = lead & 0x1Fu;
    } else if (lead >= 0xE0 && lead <= 0xEF) {
        length = 3, codePoint = lead & 0x0Fu;
    } else if (lead >= 0xF0 && lead <= 0xF4) {
        length = 4, codePoint = lead & 0x07u;
    } else {
        return 0;  // continuation byte, overlong lead (C0, C1) or F5..FF
    }
    if (i + length > text.size()) return 0;
    for (size_t k = 1; k < length; ++k) {
        if ((byte(i + k) & 0xC0u) != 0x80u) return 0;
        codePoint = (codePoint << 6) | (byte(i + k) & 0x3Fu);
    }
    const bool overlong =
        (length == 3 && codePoint < 0x800) || (length == 4 && codePoint < 0x10000);
    const bool surrogate = codePoint >= 0xD800 && codePoint <= 0xDFFF;
    if (overlong || surrogate || codePoint > 0x10FFFF) return 0;
    return length;
}

// Nonzero when one of the 8 bytes of `w` is below 0x20, from 0x80 up, '"' or '\\'. A flag can be
// wrong only above a byte that matches, so the lowest flag is the first byte to handle.
constexpr uint64_t specialBits(uint64_t w) {
    constexpr uint64_t kOnes = 0x0101010101010101u;
    constexpr uint64_t kHigh = 0x8080808080808080u;
    const uint64_t quote = w ^ (kOnes * '"');
    const uint64_t backslash = w ^ (kOnes * '\\');
    return (((w - kOnes * 0x20) & ~w) | w | ((quote - kOnes) & ~quote) |
            ((backslash - kOnes) & ~backslash)) &
           kHigh;
}

bool isSpecial(unsigned char c) { return c < 0x20 || c >= 0x80 || c == '"' || c == '\\'; }

void appendControl(std::string& out, unsigned char c) {
    static constexpr char kHex[] = "0123456789abcdef";
    switch (c) {
        case '\b':
            out += "\\b";
            return;
        case '\f':
            out += "\\f";
            return;
        case '\n':
            out += "\\n";
            return;
        case '\r':
            out += "\\r";
            return;
        case '\t':
            out += "\\t";
            return;
        default:
            break;
    }
    out += "\\u00";
    out.push_back(kHex[c >> 4]);
    out.push_back(kHex[c & 0xF]);
}

}  // namespace

void appendJsonString(std::string& out, std::string_view text) {
    out.push_back('"');
    size_t i = 0;
    while (i < text.size()) {
        // Names are almost always plain: copied in runs.
        const size_t run = i + firstSpecialByte(text.substr(i), specialBits, isSpecial);
        out.append(text.data() + i, run - i);
        i = run;
        if (i == text.size()) break;
        const auto c = static_cast<unsigned char>(text[i]);
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(static_cast<char>(c));
            ++i;
        } else if (c < 0x20) {
            appendControl(out, c);
            ++i;
        } else if (const size_t length = validSequenceLength(text, i); length > 0) {
            out.append(text.data() + i, length);
            i += length;
        } else {
            out += kReplacement;
            ++i;
        }
    }
    out.push_back('"');
}

void appendUnsigned(std::string& out, uint64_t value) { atp::appendDecimal(out, value); }

void appendMicroseconds(std::string& out, uint64_t nanoseconds) {
    appendUnsigned(out, nanoseconds / 1000);
    const auto fraction = static_cast<unsigned>(nanoseconds % 1000);
    const char tail[4] = {'.', static_cast<char>('0' + fraction / 100),
                          static_cast<char>('0' + fraction / 10 % 10),
                          static_cast<char>('0' + fraction % 10)};
    out.append(tail, sizeof tail);
}

void JsonObject::separator() {
    if (!m_first) m_out.push_back(',');
    m_first = false;
}

JsonObject& JsonObject::key(std::string_view key) {
    separator();
    appendJsonString(m_out, key);
    m_out.push_back(':');
    return *this;
}

JsonObject& JsonObject::string(std::string_view key, std::string_view value) {
    this->key(key);
    appendJsonString(m_out, value);
    return *this;
}

JsonObject& JsonObject::number(std::string_view key, uint64_t value) {
    this->key(key);
    appendUnsigned(m_out, value);
    return *this;
}

JsonObject& JsonObject::micros(std::string_view key, uint64_t nanoseconds) {
    this->key(key);
    appendMicroseconds(m_out, nanoseconds);
    return *this;
}

JsonObject& JsonObject::boolean(std::string_view key, bool value) {
    this->key(key);
    m_out += value ? "true" : "false";
    return *this;
}

}  // namespace perfmarker::exporter
