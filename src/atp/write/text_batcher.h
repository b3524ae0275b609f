// Collects a section's text and hands it to its sink in pieces of about 1 MiB, so that writing a
// section holds one piece at a time however many lines it has (docs/opencl-trace.md: the merge
// streams). Shared by the OpenCL and HSA section writers.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace perfmarker::atp {

// Receives the section text in pieces; false stops the writing (the sink keeps the reason).
using TextSink = std::function<bool(std::string_view text)>;

class TextBatcher {
public:
    static constexpr size_t kFlushBytes = size_t{1} << 20;

    explicit TextBatcher(const TextSink& sink) : m_sink(sink) {
        m_text.reserve(kFlushBytes + 4096);
    }
    std::string& text() { return m_text; }
    // Hands the text over once a piece is full; call after each line.
    void maybeFlush() {
        if (m_text.size() >= kFlushBytes) flush();
    }
    // Hands over what is left; false once any piece could not be written (later ones are not).
    bool flush() {
        if (m_ok && !m_text.empty()) m_ok = m_sink(m_text);
        m_text.clear();
        return m_ok;
    }
    bool ok() const { return m_ok; }

private:
    const TextSink& m_sink;
    std::string m_text;
    bool m_ok = true;
};

}  // namespace perfmarker::atp
