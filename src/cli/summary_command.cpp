// `perfmarker summary TRACE...`: the summary pages and best-practice messages of one or more
// traces (docs/summary.md), and the pages of kernel profile files given with them or alone
// (docs/summary.md#kernel-profile-pages), as aligned text, Markdown, CSV or JSON.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "analysis/profile/profile_pages.h"
#include "analysis/render.h"
#include "analysis/summary.h"
#include "atp/read/staged_output.h"
#include "atp/read/trace_parser.h"
#include "cli/commands.h"
#include "cli/spooled_input.h"
#include "profile/read/profile_lines.h"

namespace perfmarker::cli {
namespace {

constexpr const char* kPrefix = "perfmarker summary: ";

struct SummarySettings {
    std::vector<std::string> traces;
    std::string format = "text";
    std::string output;
    size_t top = 10;
    size_t maxMessages = 200;
};

// The reader's lenient problems go to stderr as they come.
class WarningPrinter : public atp::TraceListener {
public:
    void onWarning(const std::string& message) override {
        std::cerr << kPrefix << "warning: " << message << "\n";
    }
};

// Traces go through the trace reader, profile files (by content, or by a .csv / .occupancy
// name) into the profile pages.
bool readInputs(const SummarySettings& settings, analysis::TraceSummary& summary,
                analysis::ProfilePages& profiles) {
    WarningPrinter warnings;
    atp::TraceParser parser;
    parser.addListener(summary);
    parser.addListener(warnings);
    for (const std::string& trace : settings.traces) {
        std::string error;
        // A pipe (/dev/stdin) is read from a copy: the reader reads an input more than once.
        SpooledInput input;
        if (!input.open(trace, error)) {
            std::cerr << kPrefix << error << "\n";
            return false;
        }
        const std::string& path = input.readPath();
        const bool read = profile::isProfileInput(path) ? profiles.addFile(path, error)
                                                        : parser.parseFile(path, trace, error);
        if (read) continue;
        // The reader's messages start with "<file>:<line>:"; make sure the file is named.
        if (error.rfind(trace, 0) != 0) error = trace + ": " + error;
        std::cerr << kPrefix << error << "\n";
        return false;
    }
    return true;
}

bool writeOutput(const std::string& path, const std::string& text) {
    if (path.empty() || path == "-") {
        std::cout << text;
        std::cout.flush();
        if (std::cout) return true;
        std::cerr << kPrefix << "cannot write to standard output\n";
        return false;
    }
    // Written under a temporary name, put in place when complete (atp/read/staged_output.h).
    std::string error;
    if (atp::writeStagedFile(path, text, error)) return true;
    std::cerr << kPrefix << error << "\n";
    return false;
}

int runSummary(const SummarySettings& settings) {
    analysis::SummaryOptions options;
    options.topCount = settings.top;
    options.maxMessagesPerRule = settings.maxMessages;
    analysis::TraceSummary summary(options);
    analysis::ProfilePages profiles;
    if (!readInputs(settings, summary, profiles)) return kExitFailure;
    std::vector<analysis::Table> tables = summary.tables();
    profiles.appendTables(tables);
    const auto format = analysis::parseOutputFormat(settings.format);
    const std::string text =
        analysis::render(tables, format.value_or(analysis::OutputFormat::Text));
    return writeOutput(settings.output, text) ? 0 : kExitFailure;
}

}  // namespace

Subcommand addSummaryCommand(CLI::App& app) {
    auto settings = std::make_shared<SummarySettings>();
    CLI::App* command = app.add_subcommand(
        "summary",
        "Summarise traces: API, context, kernel, data-transfer and marker pages, and "
        "best-practice warnings; kernel profile and occupancy pages of profile files.");
    command
        ->add_option("traces", settings->traces,
                     ".atp traces (or marker files), kernel profile .csv and .occupancy files")
        ->required()
        ->type_name("TRACE");
    command->add_option("-f,--format", settings->format, "Output format (default text)")
        ->check(CLI::IsMember({"text", "md", "csv", "json"}))
        ->type_name("text|md|csv|json");
    command->add_option("-o,--output", settings->output, "Write to FILE instead of stdout")
        ->type_name("FILE");
    command
        ->add_option("--top", settings->top, "Rows of the top-kernel/transfer pages (default 10)")
        ->check(CLI::Range(size_t{1}, size_t{1000000}));
    command
        ->add_option("--max-messages", settings->maxMessages,
                     "Best-practice messages per rule before it is cut short (default 200)")
        ->check(CLI::Range(size_t{1}, size_t{100000000}));
    command->footer(
        "Several traces are summed into one set of pages.\n"
        "Example:\n  perfmarker summary run.atp --format md -o summary.md --top 20\n"
        "  perfmarker summary p.csv p.occupancy");
    Subcommand tool;
    tool.command = command;
    tool.run = [settings] { return runSummary(*settings); };
    return tool;
}

}  // namespace perfmarker::cli
