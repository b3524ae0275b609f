#include "analysis/callsites/call_site_reader.h"

#include <sys/stat.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "atp/read/trace_parser.h"

namespace perfmarker::callsites {
namespace {

// Takes the lines of every section but the Stack Trace ones without parsing them.
class PassOver final : public atp::AtpPart {
public:
    const char* partName() const override { return "pass over"; }
    std::vector<atp::SectionKind> sections() const override {
        return {atp::SectionKind::OclApiTrace,        atp::SectionKind::OclTimestamp,
                atp::SectionKind::HsaApiTrace,        atp::SectionKind::HsaTimestamp,
                atp::SectionKind::HsaKernelTimestamp, atp::SectionKind::Perfmarker};
    }
    bool beginSection(atp::SectionKind, atp::SectionContext&, uint64_t, std::string&) override {
        return true;
    }
    bool line(std::string_view, uint64_t, atp::SectionContext&, std::string&) override {
        return true;
    }
    bool endSection(uint64_t, atp::SectionContext&, std::string&) override { return true; }

    // Whole lines up to the first one that may be a section line or blank (it goes to line(),
    // so that the parser sees it): one that starts with '=' or with what trimming removes.
    bool takeLines(std::string_view unread, uint64_t, atp::SectionContext&, size_t& bytes,
                   uint64_t& lines, std::string&) override {
        bytes = 0;
        lines = 0;
        while (bytes < unread.size()) {
            const char first = unread[bytes];
            if (first == '=' || first == ' ' || first == '\t' || first == '\r' || first == '\n') {
                break;
            }
            const void* end = std::memchr(unread.data() + bytes, '\n', unread.size() - bytes);
            if (end == nullptr) break;
            bytes = static_cast<size_t>(static_cast<const char*>(end) - unread.data()) + 1;
            ++lines;
        }
        return true;
    }
};

class Collector final : public atp::TraceListener {
public:
    explicit Collector(CallSiteIndex& index) : m_index(index) {}
    void onSection(atp::SectionKind kind, std::string_view, atp::SourceLocation where) override {
        if (kind == atp::SectionKind::OclStackTrace)
            m_index.addSection(atp::ApiFamily::Ocl, where.line);
        if (kind == atp::SectionKind::HsaStackTrace)
            m_index.addSection(atp::ApiFamily::Hsa, where.line);
    }
    void onStackEntry(const atp::StackEntry& entry) override { m_index.add(entry); }

private:
    CallSiteIndex& m_index;
};

}  // namespace

bool readCallSites(const std::string& path, CallSiteIndex& index, std::string& error) {
    index.clear();
    struct stat status {};
    if (::stat(path.c_str(), &status) != 0 || !S_ISREG(status.st_mode)) {
        error = path + ": not a regular file: call sites are not read ahead";
        return false;
    }
    atp::TraceParser parser;
    parser.addPart(std::make_unique<PassOver>());
    parser.setReadAhead(UINT64_MAX);
    Collector collector(index);
    parser.addListener(collector);
    return parser.parseFile(path, error);
}

}  // namespace perfmarker::callsites
