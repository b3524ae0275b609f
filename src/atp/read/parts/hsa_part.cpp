// The HSA part of the streaming reader: "hsa API Trace Output" joined with "hsa Timestamp
// Output" into HsaApiCall records (docs/format.md#hsa-api-trace,
// docs/format.md#hsa-timestamp-lines), and the "hsa Kernel Timestamp Output" section into
// HsaKernelDispatch records (docs/format.md#kernel-dispatches).
#include "atp/format/timestamp_fields.h"
#include "atp/read/parts/joined_sections.h"

namespace perfmarker::atp::detail {
namespace {

constexpr size_t kBaseFields = 4;
constexpr size_t kCopyFields = 6;           // an async copy with its transfer start and end
constexpr size_t kDispatchMinFields = 7;    // name .. agent index, without the queue index
constexpr size_t kDispatchMaxFields = 11;   // .. packet type, packet id, packet
constexpr size_t kQueueIndexField = 6;      // from format 3.2 on
constexpr std::string_view kPacketTypePrefix = "HSA_PACKET_TYPE_";
constexpr std::string_view kKernelDispatch = "HSA_PACKET_TYPE_KERNEL_DISPATCH";

class HsaPart final : public JoinedApiPart {
public:
    HsaPart() : JoinedApiPart(SectionKind::HsaApiTrace, SectionKind::HsaTimestamp) {}

    const char* partName() const override { return "hsa"; }
    std::vector<SectionKind> sections() const override {
        return {SectionKind::HsaApiTrace, SectionKind::HsaTimestamp,
                SectionKind::HsaKernelTimestamp};
    }

    void beginFile(SectionContext& context) override {
        JoinedApiPart::beginFile(context);
        m_inKernelSection = m_haveCount = false;
        m_remaining = 0;
    }

    bool beginSection(SectionKind kind, SectionContext& context, uint64_t line,
                      std::string& error) override {
        m_inKernelSection = kind == SectionKind::HsaKernelTimestamp;
        if (!m_inKernelSection) return JoinedApiPart::beginSection(kind, context, line, error);
        m_haveCount = false;
        m_remaining = 0;
        return true;
    }

    bool line(std::string_view text, uint64_t lineNumber, SectionContext& context,
              std::string& error) override {
        if (!m_inKernelSection) return JoinedApiPart::line(text, lineNumber, context, error);
        if (!m_haveCount) {
            if (!parseU64(text, m_remaining)) {
                error = expectedGot(context, lineNumber, "the number of dispatch lines", text);
                return false;
            }
            m_haveCount = true;
            return true;
        }
        if (m_remaining == 0) {
            error = expectedGot(context, lineNumber,
                                "a section line after the dispatch lines the count announced",
                                text);
            return false;
        }
        --m_remaining;
        return dispatchLine(text, lineNumber, context, error);
    }

    bool endSection(uint64_t lineNumber, SectionContext& context, std::string& error) override {
        if (!m_inKernelSection) return JoinedApiPart::endSection(lineNumber, context, error);
        m_inKernelSection = false;
        if (m_remaining == 0) return true;
        error = atLine(context, lineNumber,
                       "expected " + std::to_string(m_remaining) +
                           " more dispatch lines before the section ends");
        return false;
    }

protected:
    bool announce(const JoinedLine& joined, SectionContext& context,
                  std::string& error) override {
        const scan::ApiText* api = splitJoinedApiLine(
            joined, context, "an API line '[Ret = ]name ( params )'", m_api, m_call.params, error);
        if (api == nullptr) return false;
        m_call.tid = joined.tid;
        m_call.index = joined.index;
        m_call.name = api->name;
        m_call.returnValue = api->returnValue;
        m_call.apiLine = {m_fileName, joined.apiLine};
        m_call.apiType = 0;
        m_call.start = m_call.end = 0;
        m_call.hasTransferTimes = false;
        m_call.transferStart = m_call.transferEnd = 0;
        m_call.timestampLine = {};
        if (joined.hasTimestamp && !readTimestamp(joined, context, error)) return false;
        for (TraceListener* l : context.listeners()) l->onHsaApiCall(m_call);
        return true;
    }

private:
    bool readTimestamp(const JoinedLine& joined, SectionContext& context, std::string& error) {
        const uint64_t line = joined.timestampLine;
        m_line = line;
        m_call.timestampLine = {m_fileName, line};
        m_text = joined.timestampText.data();
        if (!joined.timestampSplit) splitTokens(joined.timestampText, m_fields);
        splitRunTogetherName();
        const size_t n = m_fields.size();
        if (n != kBaseFields && n != kCopyFields) {
            error = expectedGot(context, line,
                                "a timestamp line 'type name start end' (6 fields for an "
                                "async copy), not " + std::to_string(n) + " fields",
                                joined.timestampText);
            return false;
        }
        if (!typeAndName(joined, m_call.name, m_call.apiType, context, error)) return false;
        if (!number(2, "the start time", m_call.start, context, error) ||
            !number(3, "the end time", m_call.end, context, error)) {
            return false;
        }
        m_checks.check(context, line, TimeChecks::ApiCall, m_call.start, m_call.end, m_call.name);
        if (n == kBaseFields) return true;
        m_call.hasTransferTimes = true;
        if (!number(4, "the transfer start", m_call.transferStart, context, error) ||
            !number(5, "the transfer end", m_call.transferEnd, context, error)) {
            return false;
        }
        m_checks.check(context, line, TimeChecks::Transfer, m_call.transferStart,
                       m_call.transferEnd, m_call.name);
        return true;
    }

    // The original tools padded the name to 45 columns with setw, which never truncates: a longer
    // name (e.g. hsa_amd_profiling_convert_tick_to_system_domain) ran straight into the start
    // time (our writer puts a space after it, docs/format.md#conventions). The API line tells
    // which name to expect, so split it off.
    void splitRunTogetherName() {
        if (m_fields.size() != kBaseFields - 1 && m_fields.size() != kCopyFields - 1) return;
        const std::string_view name = m_call.name;
        const std::string_view merged = m_fields[1];
        if (merged.size() <= name.size() || merged.substr(0, name.size()) != name) return;
        uint64_t start = 0;
        const std::string_view rest = merged.substr(name.size());
        if (!parseU64(rest, start)) return;
        m_fields[1] = name;
        m_fields.insert(2, rest);
    }

    static bool isPacketType(std::string_view field) {
        return field.substr(0, kPacketTypePrefix.size()) == kPacketTypePrefix;
    }

    // Format 3.2 put the queue index in field 7; older lines go from the agent handle straight
    // to the GPU index, and their packet type is field 8 (or there is none: 7 fields). Field 8
    // tells the two layouts apart: a packet type is never a GPU index (docs/format.md#leniencies).
    bool dispatchLine(std::string_view text, uint64_t line, SectionContext& context,
                      std::string& error) {
        m_text = text.data();
        m_line = line;
        splitTokens(text, m_fields);
        const size_t n = m_fields.size();
        if (n < kDispatchMinFields || n > kDispatchMaxFields) {
            error = expectedGot(context, line,
                                "a dispatch line of 8 to 11 fields (name handle start end agent "
                                "agent-handle queue agent-index [packet-type id packet]; 7 to 10 "
                                "before format 3.2), not " +
                                    std::to_string(n),
                                text);
            return false;
        }
        const bool before32 =
            n == kDispatchMinFields ||
            (n < kDispatchMaxFields && isPacketType(m_fields[kDispatchMinFields]));
        const size_t agentField = before32 ? kQueueIndexField : kQueueIndexField + 1;
        HsaKernelDispatch& d = m_dispatch;
        d.packetType = n > agentField + 1 ? m_fields[agentField + 1] : std::string_view();
        if (isPacketType(d.packetType) && d.packetType != kKernelDispatch) {
            // barrier and agent packets: not dispatches (docs/format.md#kernel-dispatches)
            return true;
        }
        if (!number(2, "the start time", d.start, context, error) ||
            !number(3, "the end time", d.end, context, error)) {
            return false;
        }
        d.hasQueueIndex = !before32;
        d.queueIndex = 0;
        if (!before32 &&
            !number(kQueueIndexField, "the queue index", d.queueIndex, context, error)) {
            return false;
        }
        // CodeXL 2.0-2.3 wrote the queue handle here; the original reader kept the text.
        d.agentIndexText = m_fields[agentField];
        d.hasAgentIndex = scan::parseU64In(d.agentIndexText, m_text, d.agentIndex);
        if (!d.hasAgentIndex) d.agentIndex = 0;
        m_checks.check(context, line, TimeChecks::Dispatch, d.start, d.end, "a kernel dispatch");
        d.kernelName.clear();
        appendUnescapedToken(d.kernelName, m_fields[0]);
        d.kernelHandle = m_fields[1];
        d.agentName.clear();
        appendUnescapedToken(d.agentName, m_fields[4]);
        d.agentHandle = m_fields[5];
        d.packetId = n > agentField + 2 ? m_fields[agentField + 2] : std::string_view();
        d.packet = n > agentField + 3 ? m_fields[agentField + 3] : std::string_view();
        d.line = {context.fileName(), line};
        for (TraceListener* l : context.listeners()) l->onHsaKernelDispatch(d);
        return true;
    }

    scan::ApiText m_api;
    HsaApiCall m_call;
    HsaKernelDispatch m_dispatch;
    bool m_inKernelSection = false;
    bool m_haveCount = false;
    uint64_t m_remaining = 0;
};

}  // namespace

std::unique_ptr<AtpPart> makeHsaPart() { return std::make_unique<HsaPart>(); }

}  // namespace perfmarker::atp::detail
