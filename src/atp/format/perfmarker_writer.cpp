// Writer of Perfmarker marker lines (docs/format.md#perfmarker-section and
// docs/format.md#conventions); the reader is perfmarker_section.cpp.
#include <cstring>

#include "atp/format/decimal.h"
#include "atp/format/perfmarker_layout.h"
#include "atp/format/perfmarker_section.h"

namespace perfmarker::atp {
namespace {

using namespace section_layout;

// The fixed parts of the common lines (CommonLineWriter): the End line whole, and the Begin
// line up to its group (keyword, then the name, timestamp and separator fields as spaces).
constexpr std::string_view kEndTemplate = CommonLineWriter::kEndLine;
constexpr std::string_view kBeginTemplate =
    "clBeginPerfMarker                                                                            ";
// The room left for the group between the Begin template and the line's '\n'.
constexpr size_t kMaxCommonGroup = kMarkerLineRoom - kBeginTemplate.size() - 1;
static_assert(kEndTemplate.size() == kKeywordWidth + kTimestampWidth + 1);
static_assert(kBeginTemplate.size() == kKeywordWidth + kNameWidth + kTimestampWidth + 3);
static_assert(kMaxCommonGroup == 66, "perfmarker_section.h says so");
static_assert(CommonLineWriter::kEndTimestampField == kKeywordWidth &&
              CommonLineWriter::kNameField == kKeywordWidth &&
              CommonLineWriter::kBeginTimestampField == kKeywordWidth + kNameWidth &&
              CommonLineWriter::kGroupField == kBeginTemplate.size());

// Nonzero when one of the 8 bytes of `w` needs escaping (below 0x21, '&' or 0x7f). The per-byte
// tests are exact about whether any byte matches (only the flag bits above a match can be wrong).
constexpr uint64_t escapeBits(uint64_t w) {
    constexpr uint64_t kOnes = 0x0101010101010101u;
    constexpr uint64_t kHigh = 0x8080808080808080u;
    const uint64_t amp = w ^ (kOnes * '&');
    const uint64_t del = w ^ (kOnes * 0x7f);
    return (((w - kOnes * 0x21) & ~w) | ((amp - kOnes) & ~amp) | ((del - kOnes) & ~del)) & kHigh;
}

// Copies `text` to `out` 8 bytes at a time (the last move overlaps the one before) and says
// whether none of its bytes needs escaping. The bytes written are only meaningful when it did.
bool copyIfPlain(char* out, std::string_view text) {
    const char* const p = text.data();
    const size_t n = text.size();
    if (n < 8) {
        uint8_t flags = 0;
        for (size_t i = 0; i < n; ++i) {
            flags |= kCharClasses.flags[static_cast<unsigned char>(p[i])];
            out[i] = p[i];
        }
        return (flags & CharClasses::kEscape) == 0;
    }
    uint64_t bits = 0;
    uint64_t w;
    for (size_t i = 0; i + 8 < n; i += 8) {
        std::memcpy(&w, p + i, 8);
        bits |= escapeBits(w);
        std::memcpy(out + i, &w, 8);
    }
    std::memcpy(&w, p + n - 8, 8);
    bits |= escapeBits(w);
    std::memcpy(out + n - 8, &w, 8);
    return bits == 0;
}

// Left-aligned setw: pads the field that starts at `fieldStart` with spaces up to `width`
// (at most kSpaces.size()). Appending from a constant is much cheaper than append(n, ' ').
void padField(std::string& out, size_t fieldStart, size_t width) {
    const size_t used = out.size() - fieldStart;
    if (used < width) out.append(kSpaces.data(), width - used);
}

// Writes the timestamp left-aligned over the spaces of its 20-byte field at `field`, straight
// into place (a copy from a buffer of just-written digits stalls on the stores).
void putTimestamp(char* field, uint64_t timestampNs) {
    static_assert(kTimestampWidth >= kMaxDecimalDigits);
    formatDecimalBackward(field + decimalLength(timestampNs), timestampNs);
}

void appendTimestampField(std::string& out, uint64_t timestampNs) {
    char field[kTimestampWidth];
    std::memset(field, ' ', sizeof field);
    putTimestamp(field, timestampNs);
    out.append(field, sizeof field);
}

// The common line (CommonLineWriter), with the timestamp written by `putTimestampField(field, ns)`:
// from the digits kept of the line before (finalize), or whole (appendMarkerLine, one line alone).
template <typename PutTimestamp>
char* putCommon(char* out, PutTimestamp putTimestampField, MarkerKind kind, uint64_t timestampNs,
                std::string_view name, std::string_view group, std::string_view userString) {
    if (kind == MarkerKind::End) {
        std::memcpy(out, kEndTemplate.data(), kEndTemplate.size());
        putTimestampField(out + kKeywordWidth, timestampNs);
        return out + kEndTemplate.size();
    }
    if (kind != MarkerKind::Begin || !userString.empty() || name.empty() ||
        name.size() >= kNameWidth || group.size() > kMaxCommonGroup) {
        return nullptr;
    }
    // Keyword and the spaces of the name, timestamp and separator fields, then what fills them.
    std::memcpy(out, kBeginTemplate.data(), kBeginTemplate.size());
    bool plain = copyIfPlain(out + kKeywordWidth, name);
    putTimestampField(out + kKeywordWidth + kNameWidth, timestampNs);
    const std::string_view groupText = group.empty() ? kDefaultGroup : group;
    plain = copyIfPlain(out + kBeginTemplate.size(), groupText) && plain;
    if (!plain) return nullptr;
    char* end = out + kBeginTemplate.size() + groupText.size();
    *end++ = '\n';
    return end;
}

void appendEscapedByte(std::string& out, unsigned char c) {
    if (c == ' ') {
        out.append("&nbsp;");
    } else if (c == '&') {
        out.append("&amp;");
    } else {
        out.append("&#");
        appendDecimal(out, c);
        out.push_back(';');
    }
}

// Length of appendEscapedToken(raw) without writing it.
size_t escapedLength(std::string_view raw) {
    if (raw.empty()) return kEmptyEntity.size();
    size_t length = raw.size();
    for (const char ch : raw) {
        const auto c = static_cast<unsigned char>(ch);
        if (!needsEscape(c)) continue;
        if (c == ' ')
            length += 5;  // "&nbsp;"
        else if (c == '&')
            length += 4;  // "&amp;"
        else
            length += c < 10 ? 3 : c < 100 ? 4 : 5;  // "&#N;"
    }
    return length;
}

void appendGroupAndUser(std::string& out, std::string_view group, std::string_view userString) {
    appendEscapedToken(out, group.empty() ? kDefaultGroup : group);
    if (!userString.empty()) {
        out.append(kSeparator);
        out.append(kUserPrefix);
        appendEscapedToken(out, userString);
    }
    out.push_back('\n');
}

void appendBeginLine(std::string& out, uint64_t timestampNs, std::string_view name,
                     std::string_view group, std::string_view userString) {
    out.append(kBeginField);
    const size_t nameStart = out.size();
    appendEscapedToken(out, name);
    if (out.size() - nameStart < kNameWidth) {
        padField(out, nameStart, kNameWidth);
        appendTimestampField(out, timestampNs);
    } else {
        out.append(kSeparator);
        appendDecimal(out, timestampNs);
    }
    out.append(kSeparator);
    appendGroupAndUser(out, group, userString);
}

void appendEndExLine(std::string& out, uint64_t timestampNs, std::string_view name,
                     std::string_view group, std::string_view userString) {
    const bool longName = escapedLength(name) >= kNameWidth;
    out.append(kEndExField);
    appendTimestampField(out, timestampNs);
    if (longName) {
        out.append(kSeparator);
        appendEscapedToken(out, name);
    } else {
        // A time of 20 digits (10^19 ns and more: only a damaged fragment holds one) fills its
        // field; a space keeps the name a token of its own (docs/format.md#perfmarker-section).
        if (out.back() != ' ') out.push_back(' ');
        const size_t nameStart = out.size();
        appendEscapedToken(out, name);
        padField(out, nameStart, kNameWidth);
    }
    out.append(kSeparator);
    appendGroupAndUser(out, group, userString);
}

}  // namespace

// ---- public: writing -----------------------------------------------------------------------

void appendEscapedToken(std::string& out, std::string_view raw) {
    if (raw.empty()) {
        out.append(kEmptyEntity);
        return;
    }
    const char* cursor = raw.data();
    const char* const end = cursor + raw.size();
    while (cursor != end) {
        const char* run = cursor;
        while (cursor != end && !needsEscape(static_cast<unsigned char>(*cursor))) ++cursor;
        out.append(run, static_cast<size_t>(cursor - run));
        if (cursor == end) break;
        appendEscapedByte(out, static_cast<unsigned char>(*cursor++));
    }
}

void appendMarkerLine(std::string& out, MarkerKind kind, uint64_t timestampNs,
                      std::string_view name, std::string_view group, std::string_view userString) {
    char line[kMarkerLineRoom];
    if (const char* end =
            putCommon(line, putTimestamp, kind, timestampNs, name, group, userString)) {
        out.append(line, static_cast<size_t>(end - line));
    } else if (kind == MarkerKind::EndEx) {
        appendEndExLine(out, timestampNs, name, group, userString);
    } else {
        appendBeginLine(out, timestampNs, name, group, userString);
    }
}

bool CommonLineWriter::BeginLine::make(std::string_view name, std::string_view group) {
    // The template's timestamp field stays spaces.
    char line[kMarkerLineRoom];
    const char* const end =
        putCommon(line, [](char*, uint64_t) {}, MarkerKind::Begin, 0, name, group, {});
    if (end == nullptr) return false;
    length = static_cast<size_t>(end - line);
    std::memcpy(text, line, length);
    nameSize = name.size();
    groupSize = group.size();
    return true;
}

char* CommonLineWriter::putOther(char* out, MarkerKind kind, uint64_t timestampNs,
                                 std::string_view name, std::string_view group,
                                 std::string_view userString) {
    if (kind != MarkerKind::Begin || !userString.empty() || !m_last.make(name, group)) {
        return nullptr;
    }
    return putBegin(out, m_last, timestampNs);
}

void appendThreadHeader(std::string& out, uint64_t tid, uint64_t lineCount) {
    appendDecimal(out, tid);
    out.push_back('\n');
    appendDecimal(out, lineCount);
    out.push_back('\n');
}

}  // namespace perfmarker::atp
