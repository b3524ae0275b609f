// `perfmarker export --format perfetto|vtune|csv|otf2|sqlite TRACE... [PROFILE.csv...] [-o OUT]`:
// converts traces for other tools through the exporters of src/export (see docs/export.md); the
// Perfetto export attaches each trace's kernel profile to its kernel slices
// (docs/export.md#kernel-profiles).
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>

#include "atp/read/clock_alignment.h"
#include "atp/read/trace_parser.h"
#include "cli/commands.h"
#include "export/csv_exporter.h"
#include "export/db/otf2_exporter.h"
#include "export/db/sqlite_exporter.h"
#include "export/perfetto_exporter.h"
#include "export/vtune_exporter.h"
#include "profile/read/csv_reader.h"
#include "profile/read/profile_lines.h"

namespace perfmarker::cli {
namespace {

namespace fs = std::filesystem;

struct ExportSettings {
    std::string format;
    std::vector<std::string> inputs;
    std::string output;
    double maxFileMb = 256;
    std::string hostname;
    bool force = false;     // otf2, sqlite: replace an existing output
    bool progress = false;  // progress on stderr even when it is not a terminal
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
// the base of the file names (a directory gets <trace> as the base); sqlite: the database (a
// directory gets <trace>.db); otf2: OUT is the archive's directory (docs/otf2.md#layout).
std::string outputPath(const ExportSettings& settings) {
    const std::string base = inputBase(settings.inputs.front());
    if (settings.format == "otf2") {
        return settings.output.empty() ? base + "-otf2" : settings.output;
    }
    const std::string suffix = settings.format == "perfetto" ? ".json"
                               : settings.format == "sqlite" ? ".db"
                                                             : "";
    if (settings.output.empty()) return base + suffix;
    const bool isDirectory = settings.output.back() == '/' || fs::is_directory(settings.output);
    if (!isDirectory) return settings.output;
    return (fs::path(settings.output) / fs::path(base).filename()).string() + suffix;
}

std::unique_ptr<exporter::Exporter> makeExporter(const ExportSettings& settings,
                                                 std::vector<profile::ProfileCsv> profiles,
                                                 exporter::db::ExportProgress& progress) {
    const std::string out = outputPath(settings);
    if (settings.format == "otf2") {
        return std::make_unique<exporter::db::Otf2Exporter>(
            exporter::db::Otf2Options{out, settings.force, &progress});
    }
    if (settings.format == "sqlite") {
        return std::make_unique<exporter::db::SqliteExporter>(
            exporter::db::SqliteOptions{out, settings.force, &progress});
    }
    if (settings.format == "perfetto") {
        const auto bytes = static_cast<uint64_t>(settings.maxFileMb * 1024 * 1024);
        auto perfetto =
            std::make_unique<exporter::PerfettoExporter>(exporter::PerfettoOptions{out, bytes});
        perfetto->setProfiles(std::move(profiles));
        return perfetto;
    }
    if (settings.format == "vtune") {
        exporter::VtuneOptions options;
        options.base = out;
        options.hostname = settings.hostname;
        options.fallbackHostname = atp::localHostName();
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

// Splits the inputs into traces (`traced.inputs`) and kernel profile CSVs, the n-th profile going
// with the n-th trace. 0, or kExitUsage after saying why the inputs do not go together.
int splitInputs(const ExportSettings& settings, ExportSettings& traced,
                std::vector<std::string>& profiles) {
    traced = settings;
    traced.inputs.clear();
    for (const std::string& input : settings.inputs) {
        if (!profile::isProfileInput(input)) {
            traced.inputs.push_back(input);
        } else if (profile::detectProfileFile(input) == profile::ProfileFileKind::Occupancy) {
            std::cerr << "perfmarker export: " << input
                      << ": an occupancy file is not exported; give the kernel profile .csv "
                         "(perfmarker summary shows its occupancy page)\n";
            return kExitUsage;
        } else {
            profiles.push_back(input);
        }
    }
    if (profiles.empty()) return 0;
    if (settings.format != "perfetto") {
        std::cerr << "perfmarker export: kernel profiles (" << profiles.front()
                  << ") are only attached by --format perfetto\n";
        return kExitUsage;
    }
    if (profiles.size() > traced.inputs.size()) {
        std::cerr << "perfmarker export: " << profiles.size() << " kernel profile(s) for "
                  << traced.inputs.size()
                  << " trace(s): each profile goes with one trace, the n-th with the n-th\n";
        return kExitUsage;
    }
    return 0;
}

bool loadProfiles(const std::vector<std::string>& paths,
                  std::vector<profile::ProfileCsv>& profiles) {
    for (const std::string& path : paths) {
        std::string error;
        if (!profile::loadProfileCsv(path, profiles.emplace_back(), error)) {
            std::cerr << "perfmarker export: " << error << "\n"
                      << "perfmarker export: nothing written (existing outputs are unchanged)\n";
            return false;
        }
    }
    return true;
}

// otf2, sqlite: an existing output is refused before anything is read, unless --force
// (export/db/db_output.h).
bool mayWrite(const ExportSettings& settings) {
    std::string error;
    const std::string out = outputPath(settings);
    const bool may =
        settings.format == "otf2"     ? exporter::db::mayWriteArchive(out, settings.force, error)
        : settings.format == "sqlite" ? exporter::db::mayWriteFile(out, settings.force, error)
                                      : true;
    if (may) return true;
    std::cerr << "perfmarker export: " << error << "\n"
              << "perfmarker export: nothing written (existing outputs are unchanged)\n";
    return false;
}

// The progress line (docs/export.md#progress): on a terminal, or with --progress.
std::unique_ptr<exporter::db::ExportProgress> makeProgress(const ExportSettings& settings) {
    std::vector<uint64_t> sizes;
    for (const std::string& input : settings.inputs) {
        std::error_code ignored;
        const uintmax_t size = fs::file_size(input, ignored);
        sizes.push_back(ignored ? 0 : static_cast<uint64_t>(size));
    }
    const bool terminal = isatty(STDERR_FILENO) != 0;
    return std::make_unique<exporter::db::ExportProgress>(
        std::move(sizes), settings.progress || terminal ? stderr : nullptr, terminal);
}

int runTracesExport(const ExportSettings& settings, std::vector<profile::ProfileCsv> profiles) {
    if (!mayWrite(settings)) return kExitFailure;
    const auto progress = makeProgress(settings);
    const std::unique_ptr<exporter::Exporter> output =
        makeExporter(settings, std::move(profiles), *progress);
    // VTune files are per host, each on its own clock; the other formats put every trace on
    // one timeline (atp/read/clock_alignment.h).
    atp::HostAlignment alignment;
    alignment.shiftNs.assign(settings.inputs.size(), 0);
    if (settings.format != "vtune") alignment = atp::alignInputs(settings.inputs);
    for (const std::string& warning : alignment.warnings) {
        std::cerr << "perfmarker export: warning: " << warning << "\n";
    }
    if (!alignment.aligned.empty()) std::cerr << "perfmarker export: " << alignment.aligned << "\n";
    atp::ShiftingListener aligned(*output);
    ParserWarnings parserWarnings;
    atp::TraceParser parser;
    parser.addListener(aligned);
    parser.addListener(*progress);  // before the warnings: it ends its line before they print
    parser.addListener(parserWarnings);
    std::string error;
    bool parsed = true;
    for (size_t i = 0; i < settings.inputs.size(); ++i) {
        const std::string& input = settings.inputs[i];
        aligned.setShift(alignment.shiftNs[i]);
        if (!parser.parseFile(input, error)) {
            progress->finish();
            std::cerr << "perfmarker export: " << error << "\n";
            parsed = false;
            break;
        }
    }
    // Every output is written under a temporary name and put in place only when the whole
    // export succeeded: a failed one leaves the files it would have replaced as they were
    // (docs/export.md#how-outputs-are-written).
    if (!parsed) {
        output->abandon();
        printWarnings(output->warnings());
        std::cerr << "perfmarker export: nothing written (existing outputs are unchanged)\n";
        return kExitFailure;
    }
    std::string writeError;
    const bool written = output->finish(writeError);
    progress->finish();
    printWarnings(output->warnings());
    if (!written) {
        std::cerr << "perfmarker export: " << writeError << "\n"
                  << "perfmarker export: nothing written (existing outputs are unchanged)\n";
        return kExitFailure;
    }
    const auto* counted = dynamic_cast<const exporter::db::CountedExport*>(output.get());
    for (const std::string& file : output->writtenFiles()) {
        std::cerr << "perfmarker export: wrote " << file;
        if (counted != nullptr) {
            std::cerr << ": " << exporter::db::describeCounts(counted->counts());
        }
        std::cerr << "\n";
    }
    for (const std::string& file : output->removedFiles()) {
        std::cerr << "perfmarker export: removed " << file
                  << " (a part of an earlier, larger export to the same name)\n";
    }
    return 0;
}

int runExport(const ExportSettings& given) {
    ExportSettings settings;
    std::vector<std::string> profilePaths;
    if (const int status = splitInputs(given, settings, profilePaths); status != 0) return status;
    std::vector<profile::ProfileCsv> profiles;
    if (!loadProfiles(profilePaths, profiles)) return kExitFailure;
    return runTracesExport(settings, std::move(profiles));
}

}  // namespace

Subcommand addExportCommand(CLI::App& app) {
    auto settings = std::make_shared<ExportSettings>();
    CLI::App* command = app.add_subcommand(
        "export",
        "Convert traces for Perfetto / chrome://tracing, Intel VTune, spreadsheets, HPC trace "
        "tools (OTF2) or queries (SQLite)");
    command->add_option("--format", settings->format, "Output format")
        ->required()
        ->check(CLI::IsMember({"perfetto", "vtune", "csv", "otf2", "sqlite"}));
    command
        ->add_option("traces", settings->inputs,
                     "The .atp traces (one process each); perfetto: kernel profile .csv files, "
                     "the n-th with the n-th trace")
        ->required();
    command
        ->add_option("-o,--output", settings->output,
                     "perfetto: the .json file (default <first trace>.json); vtune, csv: the base "
                     "of the file names or a directory (default <first trace>); sqlite: the "
                     "database (default <first trace>.db); otf2: the archive's directory "
                     "(default <first trace>-otf2)")
        ->type_name("PATH");
    command->add_flag("--force", settings->force,
                      "otf2, sqlite: replace an existing archive or database");
    command->add_flag("--progress", settings->progress,
                      "Show progress on stderr even when it is not a terminal");
    command
        ->add_option("--max-file-mb", settings->maxFileMb,
                     "perfetto: split the output into files of at most this size (default 256)")
        ->check(CLI::PositiveNumber);
    command->add_option("--hostname", settings->hostname,
                        "vtune: the host in the file names (default: each trace's HostName=, "
                        "else this machine)");
    Subcommand tool;
    tool.command = command;
    tool.run = [settings] { return runExport(*settings); };
    return tool;
}

}  // namespace perfmarker::cli
