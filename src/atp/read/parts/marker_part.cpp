// The Perfmarker part of the streaming reader (docs/format.md#perfmarker-section): the one
// marker-line parser (PerfmarkerSectionParser) with its records passed on as MarkerEvent. Also
// reads standalone .clperfmarker / .amdtperfmarker files, which start with the section line.
#include "atp/read/part_support.h"

namespace perfmarker::atp::detail {
namespace {

class PerfmarkerPart final : public AtpPart, private PerfmarkerListener {
public:
    PerfmarkerPart() : m_parser(*this) {}

    const char* partName() const override { return "perfmarker"; }
    std::vector<SectionKind> sections() const override { return {SectionKind::Perfmarker}; }

    void beginFile(SectionContext&) override {
        std::string ignored;
        m_parser.finish(0, ignored);  // forget a block a failed parse left open
    }

    bool beginSection(SectionKind, SectionContext& context, uint64_t, std::string&) override {
        m_context = &context;
        return true;
    }

    bool line(std::string_view text, uint64_t lineNumber, SectionContext& context,
              std::string& error) override {
        m_context = &context;
        return m_parser.feedLine(text, lineNumber, error) || relabel(context, error);
    }

    bool endSection(uint64_t lineNumber, SectionContext& context, std::string& error) override {
        m_context = &context;
        return m_parser.finish(lineNumber, error) || relabel(context, error);
    }

private:
    // The marker parser says "line N: what"; the reader says "<file>:N: what".
    static bool relabel(const SectionContext& context, std::string& error) {
        constexpr std::string_view kLine = "line ";
        std::string out(context.fileName());
        out.push_back(':');
        out.append(error.compare(0, kLine.size(), kLine) == 0 ? error.substr(kLine.size())
                                                              : " " + error);
        error = std::move(out);
        return false;
    }

    void onThread(uint64_t, uint64_t) override {}

    void onMarker(uint64_t tid, const Marker& marker) override {
        const MarkerEvent event{tid, &marker, {m_context->fileName(), marker.line}};
        for (TraceListener* l : m_context->listeners()) l->onMarker(event);
    }

    void onWarning(uint64_t line, const std::string& message) override {
        warn(*m_context, line, message);
    }

    PerfmarkerSectionParser m_parser;
    const SectionContext* m_context = nullptr;
};

}  // namespace

std::unique_ptr<AtpPart> makePerfmarkerPart() { return std::make_unique<PerfmarkerPart>(); }

}  // namespace perfmarker::atp::detail
