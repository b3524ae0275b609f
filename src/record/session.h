// The session contract: how a profiler (the launcher, or a user by hand) tells the marker
// libraries and agents where to write. Read once from the environment; see docs/session.md.
#pragma once

#include <cstdint>
#include <string>

namespace perfmarker::record {

enum class FlushMode { Timeout, Cached };

struct SessionConfig {
    std::string outputBase;  // PERFMARKER_OUTPUT, ___PID___ not yet expanded
    FlushMode mode = FlushMode::Timeout;
    uint32_t intervalMs = 100;
    std::string tempDir;  // empty: directory of outputBase
    uint32_t maxMemoryMb = 64;
    // Tracing agents only (the marker libraries ignore them).
    bool startDisabled = false;
    uint32_t delayMs = 0;
    uint32_t durationMs = 0;
    std::string apiFilterFile;  // empty: no filter
    uint32_t maxApiCalls = 1000000;
    bool collapse = true;
    bool keepFragments = false;
    bool hsaDemangle = true;  // HSA kernel names demangled in the .atp
    bool sym = false;         // call sites recorded (docs/call-sites.md)
    bool mergeAtExit = true;  // false: the launcher merges (and symbolizes)
};

enum class SessionStatus { Present, Absent, Invalid };

struct SessionResult {
    SessionStatus status = SessionStatus::Absent;
    SessionConfig config;
    std::string error;  // set when Invalid: names the variable and the bad value
};

// Reads the contract through `getenv` (pass a fake in tests).
using EnvLookup = const char* (*)(const char* name);
SessionResult readSession(EnvLookup lookup = nullptr);

// Replaces every ___PID___ in `base` with `pid`.
std::string expandPid(const std::string& base, long pid);

// The directory part of a path ("." when there is none).
std::string directoryOf(const std::string& path);

// Markdown table of the options (for docs/session.md and --help).
std::string sessionOptionsMarkdown();

}  // namespace perfmarker::record
