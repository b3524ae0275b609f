// The OpenCL part of the streaming reader: "ocl API Trace Output" joined with
// "ocl Timestamp Output" into OclApiCall records (docs/format.md#api-trace-lines,
// docs/format.md#timestamp-lines). Timestamp lines are split on whitespace, never on columns
// (docs/format.md#conventions).
#include "api/ocl_api.h"
#include "atp/format/timestamp_fields.h"
#include "atp/read/parts/joined_sections.h"

namespace perfmarker::atp::detail {
namespace {

constexpr size_t kBaseFields = 4;
constexpr size_t kEnqueueFields = 15;
constexpr std::string_view kConsecutive = " consecutive calls";

// "37 consecutive calls" -> 37; 1 for any other comment.
uint32_t consecutiveCalls(std::string_view comment) {
    comment = trimText(comment);
    if (comment.size() <= kConsecutive.size() ||
        comment.substr(comment.size() - kConsecutive.size()) != kConsecutive) {
        return 1;
    }
    uint64_t n = 0;
    if (!parseU64(comment.substr(0, comment.size() - kConsecutive.size()), n) || n == 0 ||
        n > UINT32_MAX) {
        return 1;
    }
    return static_cast<uint32_t>(n);
}

bool startsWithBrace(std::string_view s) { return !s.empty() && s.front() == '{'; }

class OclPart final : public JoinedApiPart {
public:
    OclPart() : JoinedApiPart(SectionKind::OclApiTrace, SectionKind::OclTimestamp) {}

    const char* partName() const override { return "ocl"; }
    std::vector<SectionKind> sections() const override {
        return {SectionKind::OclApiTrace, SectionKind::OclTimestamp};
    }

protected:
    bool announce(const JoinedLine& joined, SectionContext& context,
                  std::string& error) override {
        if (!readApiLine(joined, context, error)) return false;
        if (joined.hasTimestamp) {
            if (!readTimestamp(joined, context, error)) return false;
        } else {
            const ocl::ApiSpec* spec = ocl::apiByName(m_call.name);
            m_call.apiType = spec != nullptr && spec->funcTypeId >= 0 ? spec->funcTypeId : 0;
            m_call.start = m_call.end = 0;
            m_call.hasCommand = false;
            clearCommand();
            m_call.timestampLine = {};
        }
        for (TraceListener* l : context.listeners()) l->onOclApiCall(m_call);
        return true;
    }

private:
    [[gnu::always_inline]] bool readApiLine(const JoinedLine& joined, SectionContext& context,
                                            std::string& error) {
        const scan::ApiText* api = splitJoinedApiLine(
            joined, context, "an API line 'Ret = Name ( params )'", m_api, m_call.params, error);
        if (api == nullptr) return false;
        m_call.tid = joined.tid;
        m_call.index = joined.index;
        m_call.name = api->name;
        m_call.returnValue = api->returnValue;
        m_call.comment = api->comment;
        m_call.consecutiveCalls = api->comment.empty() ? 1 : consecutiveCalls(api->comment);
        m_call.apiLine = {m_fileName, joined.apiLine};
        return true;
    }

    // (Inlined everywhere: a call would cost as much as the conversion.)
    [[gnu::always_inline]] bool readTimestamp(const JoinedLine& joined, SectionContext& context,
                                              std::string& error) {
        m_line = joined.timestampLine;
        m_text = joined.timestampText.data();
        m_call.timestampLine = {m_fileName, joined.timestampLine};
        if (!joined.timestampSplit) splitTokens(joined.timestampText, m_fields);
        if (m_fields.size() < kBaseFields) {
            error = expectedGot(context, m_line, "a timestamp line 'type name start end ...'",
                                joined.timestampText);
            return false;
        }
        if (!typeAndName(joined, m_call.name, m_call.apiType, context, error)) return false;
        if (!number(2, "the start time", m_call.start, context, error) ||
            !number(3, "the end time", m_call.end, context, error)) {
            return false;
        }
        m_checks.check(context, m_line, TimeChecks::ApiCall, m_call.start, m_call.end, m_call.name);
        m_call.hasCommand = m_fields.size() > kBaseFields;
        if (m_call.hasCommand) return readCommand(context, error);
        clearCommand();
        return true;
    }

    // No view of an earlier line (or input) may outlive it, even in fields not announced.
    // (Cleared once after an enqueue: most calls have no command, and their record stays clear.)
    void clearCommand() {
        if (!m_commandSet) return;
        m_commandSet = false;
        std::string kernelName = std::move(m_call.command.kernelName);
        kernelName.clear();
        m_call.command = OclCommand{};
        m_call.command.kernelName = std::move(kernelName);
    }

    bool readCommand(SectionContext& context, std::string& error) {
        if (m_fields.size() < kEnqueueFields) {
            error = expectedGot(context, m_line,
                                "at least 15 fields in an enqueue timestamp line (this one has " +
                                    std::to_string(m_fields.size()) + ")",
                                m_fields[kBaseFields]);
            return false;
        }
        OclCommand& c = m_call.command;
        m_commandSet = true;
        uint64_t type = 0;
        if (!number(4, "the command type", type, context, error) ||
            !number(6, "the queued time", c.queued, context, error) ||
            !number(7, "the submit time", c.submit, context, error) ||
            !number(8, "the device start time", c.start, context, error) ||
            !number(9, "the device end time", c.end, context, error) ||
            !number(10, "the queue id", c.queueId, context, error) ||
            !number(12, "the context id", c.contextId, context, error)) {
            return false;
        }
        m_checks.check(context, m_line, TimeChecks::Command, c.start, c.end, m_call.name);
        c.commandType = static_cast<uint32_t>(type);
        c.commandName = m_fields[5];
        c.queueHandle = m_fields[11];
        c.contextHandle = m_fields[13];
        c.deviceName = m_fields[14];
        return readTail(context, error);
    }

    // Fields 16 and on, chosen by the command type (docs/format.md#timestamp-lines).
    bool readTail(SectionContext& context, std::string& error) {
        OclCommand& c = m_call.command;
        c.isKernel = false;
        c.kernelHandle = {};
        c.kernelName.clear();
        // (Each cleared on its own: one copied from the other, just written in 8-byte halves,
        // would be a 16-byte load that waits for them to reach the cache.)
        c.globalSize = {};
        c.localSize = {};
        c.hasDataSize = false;
        c.dataSize = 0;
        const size_t tail = m_fields.size() - kEnqueueFields;
        if (c.commandType == kClCommandNdrangeKernel || c.commandType == kClCommandTask) {
            readKernelTail();
            return true;
        }
        if (tail > 1) {
            error = expectedGot(context, m_line, "at most one field after the device name",
                                m_fields[kEnqueueFields + 1]);
            return false;
        }
        if (tail == 0) return true;
        if (c.commandType == kClCommandNativeKernel) {
            c.isKernel = true;
            c.kernelHandle = m_fields[kEnqueueFields];
            c.kernelName.assign("NATIVE_KERNEL (").append(c.kernelHandle).append(")");
            return true;
        }
        c.hasDataSize = true;
        return number(kEnqueueFields, "the data size", c.dataSize, context, error);
    }

    // Handle, name, global and local size. The name may be missing (an empty token,
    // docs/format.md#leniencies): the sizes are taken from the end, the name is what lies between.
    void readKernelTail() {
        OclCommand& c = m_call.command;
        c.isKernel = true;
        size_t first = kEnqueueFields;
        size_t last = m_fields.size();
        if (first < last) c.kernelHandle = m_fields[first++];
        std::string_view sizes[2];
        size_t found = 0;
        while (found < 2 && last > first && startsWithBrace(m_fields[last - 1])) {
            sizes[found++] = m_fields[--last];
        }
        c.globalSize = found == 2 ? sizes[1] : sizes[0];  // one size alone: the global one
        c.localSize = found == 2 ? sizes[0] : std::string_view();
        for (size_t i = first; i < last; ++i) {
            if (i > first) c.kernelName.push_back(' ');
            c.kernelName.append(m_fields[i]);
        }
    }

    scan::ApiText m_api;        // of the API line
    OclApiCall m_call;          // reused: its vectors and strings keep capacity
    bool m_commandSet = false;  // m_call.command holds fields of an enqueue
};

}  // namespace

std::unique_ptr<AtpPart> makeOclPart() { return std::make_unique<OclPart>(); }

}  // namespace perfmarker::atp::detail
