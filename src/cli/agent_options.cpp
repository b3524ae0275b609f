#include "cli/agent_options.h"

#include <cctype>
#include <cstring>

#include "record/session.h"

namespace perfmarker::cli {
namespace {

constexpr char kEnvPrefix[] = "PERFMARKER_";
constexpr char kMillisSuffix[] = "_MS";

bool isLauncherField(const char* field) {
    return std::strcmp(field, "outputBase") == 0 || std::strcmp(field, "tempDir") == 0 ||
           std::strcmp(field, "mergeAtExit") == 0;
}

std::string flagNameOf(const char* env) {
    std::string name = env;
    if (name.compare(0, sizeof kEnvPrefix - 1, kEnvPrefix) == 0) {
        name.erase(0, sizeof kEnvPrefix - 1);
    }
    const size_t suffix = sizeof kMillisSuffix - 1;
    if (name.size() > suffix && name.compare(name.size() - suffix, suffix, kMillisSuffix) == 0) {
        name.erase(name.size() - suffix);
    }
    for (char& c : name) {
        c = c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    return name;
}

// Metavar per value kind; an unknown kind still works as a value flag (the reader validates
// it), but a unit test asks for it to be added here.
bool describeKind(AgentOption& option) {
    static const std::map<std::string, std::string> kMetavars = {{"Path", "FILE"},
                                                                 {"Mode", "timeout|cached"},
                                                                 {"Millis", "MS"},
                                                                 {"Megabytes", "MB"},
                                                                 {"Count", "N"}};
    const std::string kind = option.kind;
    if (kind == "Bool") {
        const bool onByDefault = std::strcmp(option.defaultValue, "1") == 0;
        option.style = onByDefault ? FlagStyle::SetsZero : FlagStyle::SetsOne;
        if (onByDefault) option.flag = "no-" + option.flag;
        return true;
    }
    auto it = kMetavars.find(kind);
    if (it == kMetavars.end()) {
        option.metavar = "VALUE";
        return false;
    }
    // Count options named *_MS are durations.
    option.metavar = kind == "Count" && std::strstr(option.env, kMillisSuffix) ? "MS" : it->second;
    return true;
}

std::vector<AgentOption> buildOptions() {
    std::vector<AgentOption> options;
#define PERFMARKER_SESSION_OPTION(field, env, kind, def, help) \
    options.push_back(AgentOption{#field, env, #kind, def, help, {}, FlagStyle::Value, {}, true});
#include "record/session_options.inc"
#undef PERFMARKER_SESSION_OPTION
    for (AgentOption& option : options) {
        option.flag = flagNameOf(option.env);
        if (isLauncherField(option.field)) {
            option.style = FlagStyle::Launcher;
            continue;
        }
        option.knownKind = describeKind(option);
    }
    return options;
}

// readSession takes a plain function pointer; the values it looks at are parked here for the
// duration of one call (the launcher is single-threaded while it parses its command line).
const EnvValues* g_lookupValues = nullptr;

const char* lookupParked(const char* name) {
    auto it = g_lookupValues->find(name);
    return it == g_lookupValues->end() ? nullptr : it->second.c_str();
}

}  // namespace

const std::vector<AgentOption>& agentOptions() {
    static const std::vector<AgentOption> options = buildOptions();
    return options;
}

const AgentOption* optionByField(const std::string& field) {
    for (const AgentOption& option : agentOptions()) {
        if (field == option.field) return &option;
    }
    return nullptr;
}

const AgentOption* optionByEnv(const std::string& env) {
    for (const AgentOption& option : agentOptions()) {
        if (env == option.env) return &option;
    }
    return nullptr;
}

std::string validateSessionValues(const EnvValues& values) {
    g_lookupValues = &values;
    const record::SessionResult result = record::readSession(&lookupParked);
    g_lookupValues = nullptr;
    if (result.status == record::SessionStatus::Invalid) return result.error;
    if (result.status == record::SessionStatus::Absent) {
        return std::string(optionByField("outputBase")->env) + " is not set";
    }
    return "";
}

record::SessionConfig sessionFromValues(const EnvValues& values) {
    EnvValues withOutput = values;
    withOutput.emplace(optionByField("outputBase")->env, "session");  // presence makes a session
    g_lookupValues = &withOutput;
    const record::SessionResult result = record::readSession(&lookupParked);
    g_lookupValues = nullptr;
    return result.config;
}

}  // namespace perfmarker::cli
