// `perfmarker summary`: PLACEHOLDER being written; replaced before it lands.
#include <CLI/CLI.hpp>

#include "cli/commands.h"

namespace perfmarker::cli {

Subcommand addSummaryCommand(CLI::App& app) {
    Subcommand tool;
    tool.command = app.add_subcommand("summary", "(not built yet)");
    tool.run = [] { return kExitFailure; };
    return tool;
}

}  // namespace perfmarker::cli
