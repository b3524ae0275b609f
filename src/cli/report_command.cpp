// `perfmarker report TRACE... -o report.html`: one self-contained HTML page with the summary
// tables and a zoomable timeline of every trace given, and the pages of the kernel profile files
// given with them or alone (see docs/report.md).
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "analysis/profile/profile_pages.h"
#include "analysis/summary.h"
#include "atp/read/clock_alignment.h"
#include "atp/read/trace_parser.h"
#include "cli/commands.h"
#include "profile/read/profile_lines.h"
#include "report/html_report.h"
#include "report/timeline.h"

namespace perfmarker::cli {
namespace {

struct ReportSettings {
    std::vector<std::string> inputs;
    std::string output;
    std::string title;
    size_t maxItems = report::kDefaultMaxItems;
};

// The reader's lenient problems go to stderr; a broken trace can have thousands, so only the
// first few are printed, then a count.
class WarningPrinter : public atp::TraceListener {
public:
    void onWarning(const std::string& message) override {
        if (++m_count <= kMaxPrinted)
            std::cerr << "perfmarker report: warning: " << message << "\n";
    }
    ~WarningPrinter() override {
        if (m_count > kMaxPrinted) {
            std::cerr << "perfmarker report: " << m_count - kMaxPrinted << " more warnings\n";
        }
    }

private:
    static constexpr size_t kMaxPrinted = 20;
    size_t m_count = 0;
};

std::string defaultTitle(const std::vector<std::string>& inputs) {
    std::string title = "perfmarker report:";
    for (const std::string& input : inputs) {
        title += " " + input.substr(input.find_last_of('/') + 1);
    }
    return title;
}

// Reads every input: traces through `parser` (each with its host's clock shift), profile files
// (`isProfile`: by content, or by a .csv / .occupancy name) into `profiles`. False with `error`
// on the first input that cannot be read.
bool readInputs(const ReportSettings& settings, const std::vector<bool>& isProfile,
                const atp::HostAlignment& alignment, atp::TraceParser& parser,
                atp::ShiftingListener& alignedTimeline, analysis::ProfilePages& profiles,
                std::string& error) {
    size_t trace = 0;
    for (size_t i = 0; i < settings.inputs.size(); ++i) {
        const std::string& input = settings.inputs[i];
        if (isProfile[i]) {
            if (!profiles.addFile(input, error)) return false;
            continue;
        }
        alignedTimeline.setShift(alignment.shiftNs[trace++]);
        if (!parser.parseFile(input, error)) return false;
    }
    return true;
}

int runReport(const ReportSettings& settings) {
    analysis::TraceSummary summary;
    analysis::ProfilePages profiles;
    report::TimelineCollector timeline(settings.maxItems);
    WarningPrinter warnings;
    // Traces of several hosts go on one timeline (atp/read/clock_alignment.h); the summary's
    // durations do not depend on it.
    std::vector<bool> isProfile;
    std::vector<std::string> traces;
    for (const std::string& input : settings.inputs) {
        isProfile.push_back(profile::isProfileInput(input));
        if (!isProfile.back()) traces.push_back(input);
    }
    const atp::HostAlignment alignment = atp::alignInputs(traces);
    for (const std::string& warning : alignment.warnings) {
        std::cerr << "perfmarker report: warning: " << warning << "\n";
    }
    if (!alignment.aligned.empty()) std::cerr << "perfmarker report: " << alignment.aligned << "\n";
    atp::ShiftingListener alignedTimeline(timeline);
    atp::TraceParser parser;
    parser.addListener(summary);
    parser.addListener(alignedTimeline);
    parser.addListener(warnings);
    std::string error;
    if (!readInputs(settings, isProfile, alignment, parser, alignedTimeline, profiles, error)) {
        std::cerr << "perfmarker report: " << error << "\n"
                  << "perfmarker report: nothing written (" << settings.output
                  << " is unchanged)\n";
        return kExitFailure;
    }
    report::ReportData data;
    data.title = settings.title.empty() ? defaultTitle(settings.inputs) : settings.title;
    data.inputs = settings.inputs;
    data.tables = summary.tables();
    profiles.appendTables(data.tables);
    data.timeline = timeline.take();
    data.maxItems = settings.maxItems;
    // Written under a temporary name, put in place when complete (atp/read/staged_output.h).
    if (!report::writeHtmlReportFile(settings.output, data, error)) {
        std::cerr << "perfmarker report: " << error << "\n"
                  << "perfmarker report: nothing written (" << settings.output
                  << " is unchanged)\n";
        return kExitFailure;
    }
    std::cout << settings.output << ": " << data.timeline.items.size() << " of "
              << data.timeline.totalItems << " slices, " << data.tables.size() << " tables, "
              << data.timeline.processes.size() << " processes\n";
    return 0;
}

}  // namespace

Subcommand addReportCommand(CLI::App& app) {
    auto settings = std::make_shared<ReportSettings>();
    Subcommand tool;
    tool.command = app.add_subcommand(
        "report", "Write one self-contained HTML page: summary tables and a zoomable timeline.");
    tool.command
        ->add_option("traces", settings->inputs,
                     "The .atp traces (one process each), kernel profile .csv and .occupancy files")
        ->required()
        ->type_name("TRACE");
    tool.command->add_option("-o,--output", settings->output, "The HTML file to write")
        ->required()
        ->type_name("PATH");
    tool.command->add_option("--title", settings->title,
                             "Page title (default: \"perfmarker report:\" and the file names)");
    tool.command
        ->add_option("--max-items", settings->maxItems,
                     "Most timeline slices to embed; beyond it the longest are kept")
        ->check(CLI::Range(size_t{1}, size_t{100000000}))
        ->capture_default_str();
    tool.command->footer("Example:\n  perfmarker report run.atp run.1234.atp -o run.html");
    tool.run = [settings] { return runReport(*settings); };
    return tool;
}

}  // namespace perfmarker::cli
