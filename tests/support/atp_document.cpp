// Loads a whole .atp file for tests (see atp_document.h).
#include "atp_document.h"

#include <fstream>
#include <iterator>

#include "atp/read/trace_parser.h"

namespace perfmarker::atp {
namespace {

std::string_view trimmed(std::string_view text) {
    const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
    while (!text.empty() && space(text.front())) text.remove_prefix(1);
    while (!text.empty() && space(text.back())) text.remove_suffix(1);
    return text;
}

class Warnings final : public TraceListener {
public:
    explicit Warnings(std::vector<std::string>& out) : m_out(out) {}
    void onWarning(const std::string& message) override { m_out.push_back(message); }

private:
    std::vector<std::string>& m_out;
};

class Collector final : private PerfmarkerListener {
public:
    explicit Collector(AtpDocument& doc) : m_doc(doc), m_markers(*this) {}

    void line(std::string_view raw, uint64_t number) {
        const std::string_view text = trimmed(raw);
        std::string_view name;
        if (parseSectionLine(text, name)) {
            m_kind = sectionKindOf(name);
            m_inSection = true;
            m_doc.sections.push_back(m_kind);
            m_step = Step::Tid;
            return;
        }
        if (!m_inSection) {
            const size_t eq = text.find('=');
            if (eq != std::string_view::npos) {
                m_doc.header.emplace_back(std::string(text.substr(0, eq)),
                                          std::string(text.substr(eq + 1)));
            }
            return;
        }
        if (m_kind == SectionKind::Perfmarker) {
            std::string ignored;
            m_markers.feedLine(text, number, ignored);
            return;
        }
        if (text.empty()) return;
        auto& blocks = m_doc.blocks[m_kind];
        if (m_kind == SectionKind::HsaKernelTimestamp || m_kind == SectionKind::Unknown) {
            if (m_kind == SectionKind::HsaKernelTimestamp && m_step == Step::Tid) {
                m_step = Step::Entry;  // the section's count line
                return;
            }
            if (blocks.empty()) blocks.push_back(AtpThreadBlock{});
            blocks.back().lines.emplace_back(text);
            return;
        }
        switch (m_step) {
            case Step::Tid:
                blocks.push_back(AtpThreadBlock{std::stoull(std::string(text)), {}});
                m_step = Step::Count;
                return;
            case Step::Count:
                m_remaining = std::stoull(std::string(text));
                m_step = m_remaining == 0 ? Step::Tid : Step::Entry;
                return;
            case Step::Entry:
                blocks.back().lines.emplace_back(text);
                if (--m_remaining == 0) m_step = Step::Tid;
                return;
        }
    }

private:
    enum class Step { Tid, Count, Entry };
    void onThread(uint64_t tid, uint64_t) override {
        m_doc.markers.threads.push_back(ThreadMarkers{tid, {}});
    }
    void onMarker(uint64_t, const Marker& marker) override {
        m_doc.markers.threads.back().markers.push_back(marker);
    }

    AtpDocument& m_doc;
    PerfmarkerSectionParser m_markers;
    SectionKind m_kind = SectionKind::Unknown;
    bool m_inSection = false;
    Step m_step = Step::Tid;
    uint64_t m_remaining = 0;
};

}  // namespace

const std::string* AtpDocument::headerValue(std::string_view key) const {
    for (const auto& [k, v] : header) {
        if (k == key) return &v;
    }
    return nullptr;
}

bool loadAtpText(std::string_view text, std::string_view name, AtpDocument& out,
                 std::string& error) {
    out = AtpDocument{};
    if (text.empty()) return true;
    TraceParser parser;
    Warnings warnings(out.warnings);
    parser.addListener(warnings);
    if (!parser.parseBuffer(text, name, error)) return false;
    Collector collector(out);
    uint64_t number = 0;
    while (!text.empty()) {
        const size_t end = text.find('\n');
        collector.line(text.substr(0, end), ++number);
        text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    }
    return true;
}

bool loadAtpFile(const std::string& path, AtpDocument& out, std::string& error) {
    std::ifstream in(path, std::ios::binary);
    if (!in) {
        error = path + ": cannot open";
        return false;
    }
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return loadAtpText(text, path, out, error);
}

}  // namespace perfmarker::atp
