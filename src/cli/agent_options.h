// The launcher's view of the session options table (src/record/session_options.inc): which
// options become `perfmarker trace` flags, under which name, and how a flag turns into the
// environment the agents and marker libraries read. Nothing here lists a variable name: every
// name comes from the table.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "record/session.h"

namespace perfmarker::cli {

// How an option is given on the command line.
enum class FlagStyle {
    Value,     // --name VALUE
    SetsOne,   // --name            (Bool option whose default is 0)
    SetsZero,  // --no-name         (Bool option whose default is 1)
    Launcher,  // no flag: the launcher sets the variable itself (output base, temp dir)
};

struct AgentOption {
    const char* field;  // SessionConfig member
    const char* env;    // environment variable
    const char* kind;   // the table's kind, as written there (Path, Mode, Bool, ...)
    const char* defaultValue;
    const char* help;
    std::string flag;  // long flag without the dashes ("interval", "no-collapse")
    FlagStyle style = FlagStyle::Value;
    std::string metavar;    // shown in --help for Value flags ("MS", "FILE", ...)
    bool knownKind = true;  // false: a kind this file does not know (treated as Value)
};

// Every option of the table, in table order, with its derived flag.
//
// Flag names are derived from the variable name: drop `PERFMARKER_`, drop a trailing `_MS`
// (the unit is the metavar), lower-case, `_` -> `-`. Bool options become switches that set the
// opposite of their default (`--start-disabled`, `--no-collapse`). PERFMARKER_OUTPUT and
// PERFMARKER_TMPDIR and PERFMARKER_MERGE_AT_EXIT (fields outputBase, tempDir, mergeAtExit) have
// no flag: the launcher owns them.
const std::vector<AgentOption>& agentOptions();

// The option of a field (nullptr when the table has no such field).
const AgentOption* optionByField(const std::string& field);

// The option whose variable is `env` (nullptr when it is not a session variable).
const AgentOption* optionByEnv(const std::string& env);

// Environment variable -> value.
using EnvValues = std::map<std::string, std::string>;

// Checks a complete set of session variables with the same reader the libraries use
// (record::readSession). Returns "" when valid, else the reader's message naming the variable.
std::string validateSessionValues(const EnvValues& values);

// The session those variables describe, as the agent will read it (defaults where a variable is
// absent; call validateSessionValues first for the error of an invalid one).
record::SessionConfig sessionFromValues(const EnvValues& values);

}  // namespace perfmarker::cli
