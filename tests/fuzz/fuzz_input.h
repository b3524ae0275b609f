// The shared body of the libFuzzer targets of the .atp reader (scripts/fuzz.sh). A first byte
// below 8 is a selector: it picks a section line put in front of the rest (so a target keeps
// its part busy even when the input lost its own section line) and, when odd, reads the input
// as a stream (the paired sections are then kept in memory instead of read again). Every input
// is read twice: once plainly, once with the second thread that reads API sections ahead
// (TraceParser::setReadAhead()) and with lines read in bulk (TraceParser::setTakeLines()); both
// reads must see the same records and end the same way.
// Every line of the input also goes through the reader's fast scanners and the plain definitions
// they replace (compareScanners()).
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <sstream>
#include <string>
#include <vector>

#include "api_line_reference.h"
#include "atp/format/timestamp_fields.h"
#include "atp/read/trace_parser.h"
#include "atp/read/part_support.h"

namespace perfmarker::atp::fuzz {

// Touches every field of every record so that the sanitizers see each view read; `hash` sums up
// the API calls (their text, times and lines) to compare two reads of one input.
class Consumer final : public TraceListener {
public:
    size_t bytes = 0;
    uint64_t hash = 0;
    void onHeader(std::string_view k, std::string_view v, SourceLocation) override {
        bytes += k.size() + v.size();
    }
    void onOclApiCall(const OclApiCall& c) override {
        bytes += c.name.size() + c.returnValue.size() + c.comment.size() + c.params.size() +
                 c.command.commandName.size() + c.command.kernelName.size() +
                 c.command.deviceName.size() + c.command.globalSize.size() +
                 c.command.localSize.size() + c.command.kernelHandle.size();
        for (const auto p : c.params) bytes += p.size();
        mix({c.name, c.returnValue, c.comment}, {c.tid, c.index, c.start, c.end, c.apiLine.line,
                                                 c.timestampLine.line, c.consecutiveCalls});
        for (const auto p : c.params) mix({p}, {});
    }
    void onHsaApiCall(const HsaApiCall& c) override {
        bytes += c.name.size() + c.returnValue.size();
        for (const auto p : c.params) bytes += p.size();
        mix({c.name, c.returnValue}, {c.tid, c.index, c.start, c.end, c.apiLine.line,
                                      c.timestampLine.line, c.params.size()});
        for (const auto p : c.params) mix({p}, {});
    }
    void onHsaKernelDispatch(const HsaKernelDispatch& d) override {
        bytes += d.kernelName.size() + d.agentName.size() + d.packet.size() + d.packetId.size();
    }
    void onMarker(const MarkerEvent& m) override {
        bytes += m.marker->name.size() + m.marker->group.size();
    }
    void onStackEntry(const StackEntry& e) override {
        bytes += e.apiName.size() + e.symbol.size() + e.file.size() + e.address.size();
    }
    void onUnknownLine(std::string_view s, std::string_view t, SourceLocation) override {
        bytes += s.size() + t.size();
    }
    void onWarning(const std::string& m) override {
        bytes += m.size();
        mix({m}, {});
    }

private:
    void mix(std::initializer_list<std::string_view> texts,
             std::initializer_list<uint64_t> numbers) {
        for (const std::string_view t : texts) {
            for (const char c : t) hash = (hash ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
            hash = (hash ^ 0xff) * 0x100000001b3ull;
        }
        for (const uint64_t n : numbers) hash = (hash ^ n) * 0x100000001b3ull;
    }
};

// The fast scanners of the parts (scan.h) against the plain definitions they
// replace, on every line of the input, each in a buffer of its own so that the sanitizer sees
// any byte read beyond it. A difference stops the fuzzer.
inline void compareScanners(std::string_view text) {
    namespace scan = detail::scan;
    const auto same = [](bool equal) {
        if (!equal) __builtin_trap();
    };
    std::vector<std::string_view> fast, reference;
    {  // the first pass over an API section: whole lines that are neither blank nor sections
        const char* p = text.data();
        const char* end = p + text.size();
        const char* q = p;
        uint64_t plain = 0;
        while (q < end && scan::plainStart(*q)) {
            const void* nl = std::memchr(q, '\n', static_cast<size_t>(end - q));
            if (nl == nullptr) break;
            q = static_cast<const char*>(nl) + 1;
            ++plain;
        }
        same(scan::skipPlainLines(p, end, UINT64_MAX) == plain && p == q);
    }
    while (!text.empty()) {
        const size_t nl = text.find('\n');
        const std::string line(text.substr(0, nl));
        const char* const lineStart = text.data();
        const char* const lineLimit = text.data() + text.size();
        // The line found and split in one pass, in the bytes that follow it.
        scan::Fields lineFields;
        const char* lineEnd =
            scan::splitLineTokens(text.data(), text.data() + text.size(), lineFields);
        same(lineEnd == nullptr || (nl != std::string_view::npos && lineEnd == text.data() + nl));
        text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);

        reference::ApiLine api;
        std::string error;
        scan::ApiText apiText;
        const bool isApi = reference::parseApiLine(line, api, error);
        same(scan::parseApiText(line, apiText) == isApi);
        if (isApi) {
            scan::splitParams(apiText.params, fast, apiText.line);
            same(apiText.name == api.name && apiText.returnValue == api.returnValue &&
                 apiText.comment == api.comment && fast == api.params);
        }
        // The API line found and split in one pass (the reading thread's), with 16-byte and,
        // where the processor has them, 64-byte registers: the same, or left to the caller.
        for (const bool wide : {false, true}) {
            scan::ApiText oneApi;
            std::vector<std::string_view> oneParams;
            const char* begin = line.empty() ? nullptr : lineStart;
            const char* oneEnd = nullptr;
            if (begin != nullptr && !wide) {
                oneEnd = scan::splitApiLineIn<scan::Load64>(begin, lineLimit, oneApi, oneParams);
            }
#if PERFMARKER_SCAN_WIDE
            if (begin != nullptr && wide && scan::cpuHasWideBlocks()) {
                oneEnd = scan::splitApiLineWide(begin, lineLimit, oneApi, oneParams);
            }
#endif
            same(oneEnd == nullptr ||
                 (isApi && oneEnd == begin + line.size() && oneApi.name == api.name &&
                  oneApi.returnValue == api.returnValue && oneApi.comment == api.comment &&
                  oneParams == api.params));
        }
        scan::splitTokens(line, fast);
        splitFields(line, reference);
        same(fast == reference);
        same(lineEnd == nullptr ||
             std::vector<std::string_view>(lineFields.begin(), lineFields.end()) == reference);
        for (const std::string_view token : reference) {
            const std::string own(token);
            uint64_t value = 0, expected = 0;
            const auto r = std::from_chars(own.data(), own.data() + own.size(), expected);
            const bool ok = r.ec == std::errc() && r.ptr == own.data() + own.size();
            same(scan::parseU64(own, value) == ok && (!ok || value == expected));
            // The same number read where it lies in its line (the bytes before it read too).
            same(scan::parseU64In(token, line.data(), value) == ok && (!ok || value == expected));
        }
        same(detail::trimText(line).size() <= line.size());
    }
}

inline void run(const uint8_t* data, size_t size, std::initializer_list<SectionKind> kinds) {
    std::string text;
    bool asStream = false;
    if (size > 0 && data[0] < 8 && kinds.size() > 0) {
        const std::vector<SectionKind> list(kinds);
        text = sectionLine(list[data[0] % list.size()]);
        asStream = (data[0] & 1) != 0;
        ++data;
        --size;
    }
    text.append(reinterpret_cast<const char*>(data), size);
    Consumer consumers[2];
    std::string errors[2];
    bool ok[2] = {false, false};
    for (int ahead = 0; ahead < 2; ++ahead) {
        TraceParser parser;
        parser.setReadAhead(ahead == 1 ? 0 : UINT64_MAX);
        parser.setTakeLines(ahead == 1);  // the plain read: one line at a time
        parser.addListener(consumers[ahead]);
        if (asStream) {
            std::istringstream in(text);
            ok[ahead] = parser.parseStream(in, "fuzz", errors[ahead]);
        } else {
            ok[ahead] = parser.parseBuffer(text, "fuzz", errors[ahead]);
        }
    }
    if (ok[0] != ok[1] || errors[0] != errors[1] || consumers[0].bytes != consumers[1].bytes ||
        consumers[0].hash != consumers[1].hash) {
        __builtin_trap();
    }
    compareScanners(text);
}

}  // namespace perfmarker::atp::fuzz
