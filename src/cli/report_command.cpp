// `perfmarker report`: PLACEHOLDER being written; replaced before it lands.
#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace perfmarker::cli {

Subcommand addReportCommand(CLI::App& app) {
    Subcommand tool;
    tool.command = app.add_subcommand("report", "(not built yet)");
    tool.run = [] { return kExitFailure; };
    return tool;
}

}  // namespace perfmarker::cli
