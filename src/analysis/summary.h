// Summaries of traces (docs/summary.md): the API, context, kernel, top-kernel,
// data-transfer and top-transfer pages of the original, its best-practice rules, the call site
// and marker summaries and the notes on what the pages leave out. A TraceSummary is a listener:
// feed it one or more traces through a TraceParser, then take its tables. The renderers (terminal,
// md, csv, json; the HTML report) only see Tables.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "atp/read/trace_parser.h"

namespace perfmarker::analysis {

// One page of the summary, already formatted (ms with 5 decimals, sizes, rates; see
// docs/summary.md#pages).
struct Table {
    std::string id;     // stable key: "CLAPISummary", "HSAKernelSummary", "MarkerSummary", ...
    std::string title;  // "API Summary Page"
    std::vector<std::string> columns;
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> notes;  // e.g. "Maximum number of messages for RefTracker exceeded"
};

struct SummaryOptions {
    size_t topCount = 10;             // rows of the "top" pages
    size_t maxMessagesPerRule = 200;  // best-practice messages per rule, as the original
};

class TraceSummary : public atp::TraceListener {
public:
    explicit TraceSummary(SummaryOptions options = {});
    ~TraceSummary() override;
    TraceSummary(const TraceSummary&) = delete;
    TraceSummary& operator=(const TraceSummary&) = delete;

    // The pages that have data, in a fixed order (OpenCL, HSA, each with its call sites after
    // its API page; markers, best practices, notes).
    std::vector<Table> tables() const;

    void onFileBegin(std::string_view file) override;
    // Only a cut at the API call cap goes into the pages (the notes page).
    void onHeader(std::string_view key, std::string_view value, atp::SourceLocation where) override;
    // Stack Trace sections and their lines go to the Call Site pages (docs/summary.md#call-sites).
    void onSection(atp::SectionKind kind, std::string_view name,
                   atp::SourceLocation where) override;
    void onStackEntry(const atp::StackEntry& entry) override;
    void onOclApiCall(const atp::OclApiCall& call) override;
    void onHsaApiCall(const atp::HsaApiCall& call) override;
    void onHsaKernelDispatch(const atp::HsaKernelDispatch& dispatch) override;
    void onMarker(const atp::MarkerEvent& marker) override;
    void onFileEnd(std::string_view file) override;

private:
    struct Impl;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace perfmarker::analysis
