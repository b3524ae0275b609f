// Which tracing agent of a process merges at exit. The OpenCL layer and the HSA agent can both
// be loaded in one process; each flushes its own fragments at exit, and only the last one to
// finish may run the merge, or the later merge would replace the first one's .atp. They share
// no memory they can rely on (each is dlopen'ed locally by a different loader), so they meet in
// the session's temporary directory: "<pid>.<tag>.live" exists while an agent still holds
// records. A file left behind by a process that died is removed by the launcher's merge.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace perfmarker::atp {

inline constexpr std::string_view kLiveSuffix = ".live";

// Creates "<dir>/<pid>.<tag>.live". False with `error` naming the path when it cannot.
bool registerLiveAgent(const std::string& dir, long pid, std::string_view tag, std::string& error);

// Removes this agent's live file and tells whether no other agent of `pid` is still live, i.e.
// whether the caller is the one to merge. The removal and the look are one step under a lock on
// the directory, so exactly one of several agents finishing at once gets true.
bool finishLiveAgent(const std::string& dir, long pid, std::string_view tag);

// "<digits>.<tag>.live": the pid, else false.
bool liveAgentPid(std::string_view name, uint64_t& pid);

// Removes the live files of `pid` (after its process ended); returns how many went.
size_t removeLiveAgents(const std::string& dir, uint64_t pid);

}  // namespace perfmarker::atp
