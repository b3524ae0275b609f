// `perfmarker export --format perfetto|vtune|csv TRACE... [-o OUT]`: converts traces for other
// tools through the exporters of src/export (see docs/export.md).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>

#include "atp/read/trace_parser.h"
#include "cli/commands.h"
#include "export/csv_exporter.h"
#include "export/perfetto_exporter.h"
#include "export/vtune_exporter.h"

namespace perfmarker::cli {
namespace {

namespace fs = std::filesystem;

struct ExportSettings {
    std::string format;
    std::vector<std::string> inputs;
    std::string output;
    double maxFileMb = 256;
    std::string hostname;
};

// The reader's lenient problems, printed as they come (only the first few: a broken trace can
// have thousands).
class ParserWarnings : public atp::TraceListener {
public:
    void onWarning(const std::string& message) override {
        if (++m_count <= kMaxPrinted)
            std::cerr << "perfmarker export: warning: " << message << "\n";
    }
    ~ParserWarnings() override {
        if (m_count > kMaxPrinted) {
            std::cerr << "perfmarker export: " << m_count - kMaxPrinted << " more warnings\n";
        }
    }

private:
    static constexpr size_t kMaxPrinted = 20;
    size_t m_count = 0;
};

// The first trace's path without its extension: "run/vecadd.atp" -> "run/vecadd".
std::string inputBase(const std::string& input) {
    const fs::path path(input);
    return (path.parent_path() / path.stem()).string();
}

// perfetto: OUT is the .json file (a directory gets <trace>.json in it); vtune and csv: OUT is
// the base of the file names (a directory gets <trace> as the base).
std::string outputPath(const ExportSettings& settings) {
    const std::string base = inputBase(settings.inputs.front());
    const std::string suffix = settings.format == "perfetto" ? ".json" : "";
    if (settings.output.empty()) return base + suffix;
    const bool isDirectory = settings.output.back() == '/' || fs::is_directory(settings.output);
    if (!isDirectory) return settings.output;
    return (fs::path(settings.output) / fs::path(base).filename()).string() + suffix;
}

std::string localHostname() {
    char name[256] = {};
    if (gethostname(name, sizeof name - 1) != 0 || name[0] == '\0') return "localhost";
    return name;
}

std::unique_ptr<exporter::Exporter> makeExporter(const ExportSettings& settings) {
    const std::string out = outputPath(settings);
    if (settings.format == "perfetto") {
        const auto bytes = static_cast<uint64_t>(settings.maxFileMb * 1024 * 1024);
        return std::make_unique<exporter::PerfettoExporter>(exporter::PerfettoOptions{out, bytes});
    }
    if (settings.format == "vtune") {
        exporter::VtuneOptions options;
        options.base = out;
        options.hostname = settings.hostname.empty() ? localHostname() : settings.hostname;
        options.rawClockOffsetNs = exporter::measureRawClockOffsetNs();
        return std::make_unique<exporter::VtuneExporter>(std::move(options));
    }
    return std::make_unique<exporter::CsvExporter>(out);
}

void printWarnings(const exporter::WarningLog& log) {
    for (const std::string& message : log.messages()) {
        std::cerr << "perfmarker export: warning: " << message << "\n";
    }
    if (log.dropped() > 0)
        std::cerr << "perfmarker export: " << log.dropped() << " more warnings\n";
}

int runExport(const ExportSettings& settings) {
    const std::unique_ptr<exporter::Exporter> output = makeExporter(settings);
    ParserWarnings parserWarnings;
    atp::TraceParser parser;
    parser.addListener(*output);
    parser.addListener(parserWarnings);
    std::string error;
    bool parsed = true;
    for (const std::string& input : settings.inputs) {
        if (!parser.parseFile(input, error)) {
            std::cerr << "perfmarker export: " << error << "\n";
            parsed = false;
            break;
        }
    }
    std::string writeError;
    const bool written = output->finish(writeError);
    printWarnings(output->warnings());
    if (!written) std::cerr << "perfmarker export: " << writeError << "\n";
    for (const std::string& file : output->writtenFiles()) {
        std::cerr << "perfmarker export: " << (parsed ? "wrote " : "wrote (incomplete) ") << file
                  << "\n";
    }
    return parsed && written ? 0 : kExitFailure;
}

}  // namespace

Subcommand addExportCommand(CLI::App& app) {
    auto settings = std::make_shared<ExportSettings>();
    CLI::App* command = app.add_subcommand(
        "export", "Convert traces for Perfetto / chrome://tracing, Intel VTune or spreadsheets");
    command->add_option("--format", settings->format, "Output format")
        ->required()
        ->check(CLI::IsMember({"perfetto", "vtune", "csv"}));
    command->add_option("traces", settings->inputs, "The .atp traces (one process each)")
        ->required();
    command
        ->add_option("-o,--output", settings->output,
                     "perfetto: the .json file (default <first trace>.json); vtune, csv: the base "
                     "of the file names or a directory (default <first trace>)")
        ->type_name("PATH");
    command
        ->add_option("--max-file-mb", settings->maxFileMb,
                     "perfetto: split the output into files of at most this size (default 256)")
        ->check(CLI::PositiveNumber);
    command->add_option("--hostname", settings->hostname,
                        "vtune: the machine the traces were taken on (default this one)");
    Subcommand tool;
    tool.command = command;
    tool.run = [settings] { return runExport(*settings); };
    return tool;
}

}  // namespace perfmarker::cli
