// The Stack Trace part of the streaming reader: "ocl Stack Trace Output" and "hsa Stack Trace
// Output" (docs/format.md#stack-trace-lines), thread blocks of TAB-separated lines in one of three
// forms:
//   <API>\t<symbol>\t<line>\t<file>    (the file may be empty)
//   <API>\t<module-relative address>+0x<displacement>
//   <API>
// Lines are trimmed before they get here, so a symbol line whose file is empty has lost its
// last TAB: three fields read as symbol and line. "ProfilerVersion=" lines are skipped.
#include "atp/read/part_support.h"

namespace perfmarker::atp::detail {
namespace {

constexpr std::string_view kProfilerVersion = "ProfilerVersion=";

class StackPart final : public AtpPart {
public:
    const char* partName() const override { return "stack"; }
    std::vector<SectionKind> sections() const override {
        return {SectionKind::OclStackTrace, SectionKind::HsaStackTrace};
    }

    bool beginSection(SectionKind kind, SectionContext&, uint64_t, std::string&) override {
        m_entry.family = kind == SectionKind::HsaStackTrace ? ApiFamily::Hsa : ApiFamily::Ocl;
        m_blocks.reset();
        return true;
    }

    bool line(std::string_view text, uint64_t lineNumber, SectionContext& context,
              std::string& error) override {
        if (text.substr(0, kProfilerVersion.size()) == kProfilerVersion) return true;
        ThreadBlocks::Step step = ThreadBlocks::Step::Tid;
        std::string what;
        if (!m_blocks.feed(text, step, what)) {
            error = expectedGot(context, lineNumber, what, text);
            return false;
        }
        if (step != ThreadBlocks::Step::Entry) return true;
        return entry(text, lineNumber, context, error);
    }

    bool endSection(uint64_t lineNumber, SectionContext& context, std::string& error) override {
        const std::string unfinished = m_blocks.unfinished();
        if (unfinished.empty()) return true;
        error = atLine(context, lineNumber, "expected " + unfinished);
        return false;
    }

private:
    bool entry(std::string_view text, uint64_t lineNumber, SectionContext& context,
               std::string& error) {
        StackEntry& e = m_entry;
        e.tid = m_blocks.tid();
        e.index = m_blocks.index();
        e.symbol.clear();
        e.file.clear();
        e.sourceLine = 0;
        e.address = {};
        e.line = {context.fileName(), lineNumber};
        size_t tab = text.find('\t');
        e.apiName = text.substr(0, tab);
        if (tab != std::string_view::npos) {
            const std::string_view rest = text.substr(tab + 1);
            tab = rest.find('\t');
            if (tab == std::string_view::npos && rest.find('+') != std::string_view::npos) {
                e.address = rest;
            } else {
                appendUnescapedToken(e.symbol, rest.substr(0, tab));
                if (tab != std::string_view::npos &&
                    !sourcePosition(rest.substr(tab + 1), lineNumber, context, error)) {
                    return false;
                }
            }
        }
        for (TraceListener* l : context.listeners()) l->onStackEntry(e);
        return true;
    }

    // "<line>\t<file>" or "<line>".
    bool sourcePosition(std::string_view text, uint64_t lineNumber, SectionContext& context,
                        std::string& error) {
        const size_t tab = text.find('\t');
        const std::string_view number = text.substr(0, tab);
        if (!number.empty() && !parseU64(number, m_entry.sourceLine)) {
            error = expectedGot(context, lineNumber, "a source line number (decimal) in field 3",
                                number);
            return false;
        }
        if (tab != std::string_view::npos) appendUnescapedToken(m_entry.file, text.substr(tab + 1));
        return true;
    }

    ThreadBlocks m_blocks;
    StackEntry m_entry;
};

}  // namespace

std::unique_ptr<AtpPart> makeStackPart() { return std::make_unique<StackPart>(); }

}  // namespace perfmarker::atp::detail
