// perfmarker: the command-line tool. `perfmarker trace [options] -- app [args]` runs an
// application under the OpenCL trace agent and leaves an `.atp` trace; `perfmarker merge DIR`
// turns a session directory left behind into traces; `summary`, `export` and `report` read
// traces (their options live in their own files).
#include <CLI/CLI.hpp>
#include <iostream>
#include <map>

#include "cli/agent_options.h"
#include "cli/commands.h"
#include "cli/paths.h"

namespace perfmarker::cli {
namespace {

// "<help> [VARIABLE, default X]" for value flags, "Sets VARIABLE=V. <help>" for switches.
std::string helpText(const AgentOption& option) {
    if (option.style == FlagStyle::SetsOne || option.style == FlagStyle::SetsZero) {
        return std::string("Sets ") + option.env + "=" +
               (option.style == FlagStyle::SetsOne ? "1" : "0") + ". " + option.help;
    }
    std::string text = std::string(option.help) + " [" + option.env;
    if (option.defaultValue[0] != '\0') text += std::string(", default ") + option.defaultValue;
    return text + "]";
}

// The flags that become session variables, all from the options table.
class AgentFlags {
public:
    void add(CLI::App& command) {
        for (const AgentOption& option : agentOptions()) {
            const std::string flag = "--" + option.flag;
            switch (option.style) {
                case FlagStyle::Launcher:
                    break;
                case FlagStyle::Value:
                    command.add_option(flag, m_values[option.env], helpText(option))
                        ->type_name(option.metavar)
                        ->group("Recording (session variables)");
                    break;
                case FlagStyle::SetsOne:
                case FlagStyle::SetsZero:
                    command.add_flag(flag, m_switches[option.env], helpText(option))
                        ->group("Recording (session variables)");
                    break;
            }
        }
    }

    // The variables of the flags that were given; Path values made absolute (the application
    // may run in another directory).
    EnvValues values(const CLI::App& command) const {
        EnvValues out;
        for (const AgentOption& option : agentOptions()) {
            if (option.style == FlagStyle::Launcher || command.count("--" + option.flag) == 0) {
                continue;
            }
            if (option.style == FlagStyle::Value) {
                const std::string& value = m_values.at(option.env);
                out[option.env] = std::string(option.kind) == "Path" && !value.empty()
                                      ? absolutePath(value)
                                      : value;
            } else {
                out[option.env] = option.style == FlagStyle::SetsOne ? "1" : "0";
            }
        }
        return out;
    }

private:
    std::map<std::string, std::string> m_values;  // map nodes stay put: CLI11 keeps pointers
    std::map<std::string, bool> m_switches;
};

// Validation of what CLI11 cannot check by type; throws CLI::ValidationError (exit 2).
void validateTrace(TraceSettings& settings) {
    EnvValues all = settings.sessionValues;
    all[optionByField("outputBase")->env] = "check";
    const std::string error = validateSessionValues(all);
    if (!error.empty()) {
        const AgentOption* option = optionByEnv(error.substr(0, error.find('=')));
        const std::string flag = option != nullptr ? "--" + option->flag + ": " : "";
        throw CLI::ValidationError(flag + error);
    }
    for (const std::string& assignment : settings.envAssignments) {
        const size_t eq = assignment.find('=');
        if (eq == 0 || eq == std::string::npos) {
            throw CLI::ValidationError("--env " + assignment + ": expected NAME=VALUE");
        }
        if (const AgentOption* option = optionByEnv(assignment.substr(0, eq))) {
            throw CLI::ValidationError(
                "--env " + assignment + ": " + option->env + " is a session variable; " +
                (option->style == FlagStyle::Launcher ? std::string("the launcher sets it")
                                                      : "use --" + option->flag));
        }
    }
}

// CLI11 reports an unknown first word only as "A subcommand is required"; name it instead.
void checkSubcommandName(const CLI::App& app, int argc, char** argv) {
    if (argc < 2 || argv[1][0] == '-') return;
    for (const CLI::App* command : app.get_subcommands({})) {
        if (command->check_name(argv[1])) return;
    }
    throw CLI::ExtrasError(std::string("unknown subcommand '") + argv[1] + "'",
                           CLI::ExitCodes::ExtrasError);
}

std::string failureMessage(const CLI::App*, const CLI::Error& e) {
    return std::string("perfmarker: ") + e.what() + "\nRun 'perfmarker --help' for usage.\n";
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "Record OpenCL API traces and markers into AMD-style .atp files, and summarise, "
        "export and report them.",
        "perfmarker"};
    app.set_version_flag("--version", "perfmarker " PERFMARKER_VERSION);
    app.require_subcommand(1);
    app.failure_message(&failureMessage);

    TraceSettings trace;
    AgentFlags agentFlags;
    CLI::App* traceCommand = app.add_subcommand(
        "trace", "Run an application under the OpenCL trace agent and write its .atp trace.");
    traceCommand
        ->add_option("-o,--output", trace.output,
                     "Trace file (default ./apitrace.atp); the extension becomes .atp; "
                     "___PID___ becomes each process's id")
        ->type_name("PATH");
    agentFlags.add(*traceCommand);
    traceCommand
        ->add_option("-e,--env", trace.envAssignments,
                     "Set a variable in the application's environment (repeatable)")
        ->type_name("NAME=VALUE")
        ->allow_extra_args(false);
    traceCommand
        ->add_option("-w,--working-dir", trace.workingDir,
                     "Run the application in DIR (default: the current directory)")
        ->type_name("DIR");
    traceCommand->add_flag("--progress", trace.progress,
                           "Show merge progress on stderr even when it is not a terminal");
    traceCommand->add_flag("--hsa", trace.hsa,
                           "Also trace HSA (ROCm) calls and kernel dispatches: adds the HSA trace "
                           "agent to HSA_TOOLS_LIB, keeping the tools already listed there");
    traceCommand->add_option("command", trace.command, "The application and its arguments")
        ->required();
    traceCommand->positionals_at_end();
    traceCommand->footer("Example:\n  perfmarker trace -o run.atp -- ./app --size 1024");

    MergeSettings merge;
    CLI::App* mergeCommand = app.add_subcommand(
        "merge",
        "Merge a session directory left behind (crash, or a run with OPENCL_LAYERS set "
        "by hand) into .atp traces.");
    mergeCommand->add_option("dir", merge.sessionDir, "The session directory")
        ->required()
        ->check(CLI::ExistingDirectory);
    mergeCommand
        ->add_option("-o,--output", merge.output,
                     "Trace file (default ./apitrace.atp); with several processes each "
                     "gets <name>.<pid>.atp")
        ->type_name("PATH");
    mergeCommand->add_flag("--progress", merge.progress,
                           "Show merge progress on stderr even when it is not a terminal");

    const std::vector<Subcommand> tools = {addProfileCommand(app), addSummaryCommand(app),
                                           addExportCommand(app), addReportCommand(app)};

    try {
        checkSubcommandName(app, argc, argv);
        app.parse(argc, argv);
        if (traceCommand->parsed()) {
            trace.sessionValues = agentFlags.values(*traceCommand);
            validateTrace(trace);
        }
    } catch (const CLI::ParseError& e) {
        const int status = app.exit(e);  // prints help/version or the message
        return status == 0 ? 0 : kExitUsage;
    }
    for (const Subcommand& tool : tools) {
        if (tool.command->parsed()) return tool.run();
    }
    return traceCommand->parsed() ? runTrace(trace) : runMerge(merge);
}

}  // namespace perfmarker::cli

int main(int argc, char** argv) { return perfmarker::cli::main(argc, argv); }
