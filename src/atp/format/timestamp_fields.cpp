// OpenCL timestamp lines (docs/format.md#timestamp-lines). Fields are left-aligned and padded on
// the right; a value that fills its width, or passes it, is followed by one space, so that every
// field stays a token of its own (docs/format.md#conventions).
#include "atp/format/timestamp_fields.h"

#include <algorithm>
#include <charconv>
#include <cstring>

namespace perfmarker::atp {
namespace {

// Widths of docs/format.md#timestamp-lines.
constexpr size_t kApiTypeWidth = 5;
constexpr size_t kApiNameWidth = 45;
constexpr size_t kTimeWidth = 21;
constexpr size_t kCommandTypeWidth = 8;
constexpr size_t kCommandNameWidth = 40;
constexpr size_t kIdWidth = 10;
constexpr size_t kHandleWidth = 25;
constexpr size_t kDeviceWidth = 30;
constexpr size_t kDataSizeWidth = 20;
constexpr std::string_view kBeforeGlobal = "      ";  // 6 spaces
constexpr std::string_view kBeforeLocal = "     ";    // 5 spaces
constexpr std::string_view kAfterLocal = "        ";  // 8 spaces (agent-written variant)

constexpr size_t kBaseFields = 4;
constexpr size_t kEnqueueFields = 15;

// A line is written in place: `out` grows once, by an upper bound of the line filled with spaces,
// each field is copied to its place, and the rest is cut off (one growth and one fill per line
// instead of one per field: the merge writes a line per API call).
constexpr size_t kNumberRoom = kMaxDecimalDigits + 1;  // a sign and 20 digits
constexpr size_t kNumberFieldRoom = kNumberRoom + 1;   // and the space after a full field

// Room for `text` in a field of `width`: the width, or the text and a space when it fills the
// width (a field of width 0 is followed by separators of its own).
size_t room(std::string_view text, size_t width) {
    if (text.size() < width) return width;
    return text.size() + (width > 0 ? 1 : 0);
}

// Copies `text` to its field at `p` (which holds spaces) and returns the next field's start.
char* putPadded(char* p, std::string_view text, size_t width) {
    std::memcpy(p, text.data(), text.size());
    return p + room(text, width);
}

char* putNumber(char* p, uint64_t value, size_t width, bool negative = false) {
    char digits[kNumberRoom];
    char* const end = digits + sizeof digits;
    char* first = formatDecimalBackward(end, value);
    if (negative) *--first = '-';
    return putPadded(p, std::string_view(first, static_cast<size_t>(end - first)), width);
}

// DecimalFieldWriter::put writes at most kMaxDecimalDigits bytes, spaces or digits, at `p`.
static_assert(kTimeWidth >= kMaxDecimalDigits && kNumberRoom >= kMaxDecimalDigits);
char* putTime(char* p, uint64_t value, DecimalFieldWriter& times) {
    char* const end = times.put(p, value);
    return std::max(end, p + kTimeWidth);
}

char* putSigned(char* p, int64_t value, size_t width) {
    const bool negative = value < 0;
    const uint64_t magnitude =
        negative ? ~static_cast<uint64_t>(value) + 1 : static_cast<uint64_t>(value);
    return putNumber(p, magnitude, width, negative);
}

size_t tailRoom(const OclTimestampLine& line) {
    switch (line.tail) {
        case OclTimestampLine::Tail::None:
            return 0;
        case OclTimestampLine::Tail::Kernel:
            return room(line.kernelHandle, kHandleWidth) + line.kernelName.size() +
                   kBeforeGlobal.size() + line.globalSize.size() + kBeforeLocal.size() +
                   line.localSize.size() + kAfterLocal.size();
        case OclTimestampLine::Tail::NativeKernel:
            return room(line.kernelHandle, kHandleWidth);
        case OclTimestampLine::Tail::DataSize:
            return std::max(kNumberFieldRoom, kDataSizeWidth);
    }
    return 0;
}

char* putTail(char* p, const OclTimestampLine& line) {
    switch (line.tail) {
        case OclTimestampLine::Tail::None:
            break;
        case OclTimestampLine::Tail::Kernel:
            p = putPadded(p, line.kernelHandle, kHandleWidth);
            p = putPadded(p, line.kernelName, 0) + kBeforeGlobal.size();
            p = putPadded(p, line.globalSize, 0) + kBeforeLocal.size();
            p = putPadded(p, line.localSize, 0) + kAfterLocal.size();
            break;
        case OclTimestampLine::Tail::NativeKernel:
            p = putPadded(p, line.kernelHandle, kHandleWidth);
            break;
        case OclTimestampLine::Tail::DataSize:
            p = putNumber(p, line.dataSize, kDataSizeWidth);
            break;
    }
    return p;
}

std::string quoted(std::string_view field) {
    constexpr size_t kMaxShown = 60;
    std::string out = "'";
    out.append(field.substr(0, kMaxShown));
    if (field.size() > kMaxShown) out.append("...");
    out.push_back('\'');
    return out;
}

template <typename Int>
bool readNumber(const std::vector<std::string_view>& fields, size_t index, const char* what,
                Int& value, std::string& error) {
    const std::string_view field = fields[index];
    const auto result = std::from_chars(field.data(), field.data() + field.size(), value);
    if (result.ec == std::errc() && result.ptr == field.data() + field.size()) return true;
    error = "expected " + std::string(what) + " (a decimal number) in field " +
            std::to_string(index + 1) + ", got " + quoted(field);
    return false;
}

bool readEnqueueFields(const std::vector<std::string_view>& f, OclTimestampLine& out,
                       std::string& error) {
    if (f.size() < kEnqueueFields) {
        error = "expected at least " + std::to_string(kEnqueueFields) +
                " fields in an enqueue timestamp line, got " + std::to_string(f.size());
        return false;
    }
    out.hasDevice = true;
    out.commandName = std::string(f[5]);
    out.queueHandle = std::string(f[11]);
    out.contextHandle = std::string(f[13]);
    out.deviceName = std::string(f[14]);
    return readNumber(f, 4, "the command type", out.commandType, error) &&
           readNumber(f, 6, "the queued time", out.queued, error) &&
           readNumber(f, 7, "the submit time", out.submit, error) &&
           readNumber(f, 8, "the device start time", out.deviceStart, error) &&
           readNumber(f, 9, "the device end time", out.deviceEnd, error) &&
           readNumber(f, 10, "the queue id", out.queueId, error) &&
           readNumber(f, 12, "the context id", out.contextId, error);
}

bool readTail(const std::vector<std::string_view>& f, OclTimestampLine& out, std::string& error) {
    const size_t extra = f.size() - kEnqueueFields;
    const uint32_t type = out.commandType;
    if (type == kClCommandNdrangeKernel || type == kClCommandTask) {
        if (extra != 4) {
            error =
                "expected kernel handle, kernel name, global size and local size after the "
                "device name, got " +
                std::to_string(extra) + " fields";
            return false;
        }
        out.tail = OclTimestampLine::Tail::Kernel;
        out.kernelHandle = std::string(f[15]);
        out.kernelName = std::string(f[16]);
        out.globalSize = std::string(f[17]);
        out.localSize = std::string(f[18]);
        return true;
    }
    if (extra > 1) {
        error = "expected at most one field after the device name, got " + std::to_string(extra);
        return false;
    }
    if (extra == 0) return true;
    if (type == kClCommandNativeKernel) {
        out.tail = OclTimestampLine::Tail::NativeKernel;
        out.kernelHandle = std::string(f[15]);
        return true;
    }
    out.tail = OclTimestampLine::Tail::DataSize;
    return readNumber(f, 15, "the data size", out.dataSize, error);
}

}  // namespace

bool oclCommandHasDataSize(uint32_t type) {
    constexpr uint32_t kReadBuffer = 0x11F3, kMapImage = 0x11FC;            // transfers
    constexpr uint32_t kReadBufferRect = 0x1201, kCopyBufferRect = 0x1203;  // rect transfers
    constexpr uint32_t kFillBuffer = 0x1207, kFillImage = 0x1208, kSvmMemcpy = 0x120A;
    constexpr uint32_t kSvmMap = 0x120C, kSvmUnmap = 0x120D;
    return (type >= kReadBuffer && type <= kMapImage) ||
           (type >= kReadBufferRect && type <= kCopyBufferRect) || type == kFillBuffer ||
           type == kFillImage || type == kSvmMemcpy || type == kSvmMap || type == kSvmUnmap;
}

void appendOclTimestampLine(std::string& out, const OclTimestampLine& line,
                            DecimalFieldWriter& times) {
    const size_t number = kNumberFieldRoom;  // every number field is at most this
    size_t most = number + room(line.apiName, kApiNameWidth) + 2 * number + 1;
    if (line.hasDevice) {
        // The command type, its name, four device times, the queue's id and handle, the
        // context's id and handle, the device and the tail.
        most += number + room(line.commandName, kCommandNameWidth) + 4 * number + number +
                room(line.queueHandle, kHandleWidth) + number +
                room(line.contextHandle, kHandleWidth) + room(line.deviceName, kDeviceWidth) +
                tailRoom(line);
    }
    const size_t at = out.size();
    out.resize(at + most, ' ');
    char* const first = out.data() + at;
    char* p = putSigned(first, line.apiType, kApiTypeWidth);
    p = putPadded(p, line.apiName, kApiNameWidth);
    p = putTime(p, line.start, times);
    p = putTime(p, line.end, times);
    if (line.hasDevice) {
        p = putNumber(p, line.commandType, kCommandTypeWidth);
        p = putPadded(p, line.commandName, kCommandNameWidth);
        for (const uint64_t t : {line.queued, line.submit, line.deviceStart, line.deviceEnd}) {
            p = putTime(p, t, times);
        }
        p = putNumber(p, line.queueId, kIdWidth);
        p = putPadded(p, line.queueHandle, kHandleWidth);
        p = putNumber(p, line.contextId, kIdWidth);
        p = putPadded(p, line.contextHandle, kHandleWidth);
        p = putPadded(p, line.deviceName, kDeviceWidth);
        p = putTail(p, line);
    }
    *p++ = '\n';
    out.resize(at + static_cast<size_t>(p - first));
}

void appendOclTimestampLine(std::string& out, const OclTimestampLine& line) {
    DecimalFieldWriter times;
    appendOclTimestampLine(out, line, times);
}

void splitFields(std::string_view line, std::vector<std::string_view>& fields) {
    fields.clear();
    const auto isSpace = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && isSpace(line[i])) ++i;
        const size_t begin = i;
        while (i < line.size() && !isSpace(line[i])) ++i;
        if (i > begin) fields.push_back(line.substr(begin, i - begin));
    }
}

bool parseOclTimestampFields(const std::vector<std::string_view>& f, OclTimestampLine& out,
                             std::string& error) {
    out = OclTimestampLine{};
    if (f.size() < kBaseFields) {
        error = "expected API type, API name, start and end, got " + std::to_string(f.size()) +
                " fields";
        return false;
    }
    out.apiName = std::string(f[1]);
    if (!readNumber(f, 0, "the API type", out.apiType, error) ||
        !readNumber(f, 2, "the start time", out.start, error) ||
        !readNumber(f, 3, "the end time", out.end, error)) {
        return false;
    }
    if (f.size() == kBaseFields) return true;
    return readEnqueueFields(f, out, error) && readTail(f, out, error);
}

}  // namespace perfmarker::atp
