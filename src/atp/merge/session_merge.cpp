// The merge as a session runs it (see session_merge.h).
#include "atp/merge/session_merge.h"

#include <unistd.h>

#include <climits>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "api/api_filter.h"
#include "atp/merge/agent_registry.h"
#include "atp/merge/loaded_call_sites.h"
#include "record/session_files.h"

namespace perfmarker::atp {

void applySessionToMerge(const record::SessionConfig& session, AtpHeader& header,
                         MergeOptions& options, std::string& error) {
    options.ocl.collapseEventInfo = session.collapse;
    options.ocl.maxApiCalls = session.maxApiCalls;
    options.hsa.maxApiCalls = session.maxApiCalls;
    options.hsa.demangleKernelNames = session.hsaDemangle;
    options.removeInputs = !session.keepFragments;
    // In the traced process: module and offset from the modules still loaded (the launcher's
    // collect replaces it with the symbolizing writer).
    options.callSites = [](const std::string&) -> std::unique_ptr<CallSiteWriter> {
        return std::make_unique<LoadedModuleCallSites>();
    };
    if (!session.apiFilterFile.empty()) {
        readApiFilter(session.apiFilterFile, header.clExcludedApis, error);
    }
}

ProcessStart ProcessStart::now() {
    ProcessStart start;
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) != nullptr) start.workingDirectory = cwd;
    start.clocks = readClockAnchor();
    return start;
}

void describeThisProcess(const ProcessStart& start, AtpHeader& header) {
    header.workingDirectory = start.workingDirectory;
    header.hostName = localHostName();
    header.clockStart = start.clocks;
    header.clockEnd = readClockAnchor();
    char exe[PATH_MAX];
    const ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) header.application.assign(exe, static_cast<size_t>(n));
    std::ifstream in("/proc/self/cmdline", std::ios::binary);
    const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    header.applicationArgs.clear();
    size_t pos = all.find('\0');  // skip argv[0]
    while (pos != std::string::npos && pos + 1 < all.size()) {
        const size_t end = all.find('\0', pos + 1);
        header.applicationArgs.push_back(all.substr(pos + 1, end - pos - 1));
        pos = end;
    }
}

bool mergeAtAgentExit(const record::SessionConfig& session, long pid, std::string_view tag,
                      const char* who, const ProcessStart& start) {
    const std::string sessionDir = record::sessionTempDir(session, pid);
    std::string error;
    const std::string tempDir = record::processFilesDir(sessionDir, pid, false, error);
    if (tempDir.empty()) {
        std::fprintf(stderr, "perfmarker: %s: merge failed: %s\n", who, error.c_str());
        return false;
    }
    if (!finishLiveAgent(tempDir, pid, tag)) return false;  // another agent merges later
    if (!session.mergeAtExit) return true;                  // the launcher merges
    AtpHeader header;
    MergeOptions options;
    describeThisProcess(start, header);
    applySessionToMerge(session, header, options, error);
    if (!error.empty()) std::fprintf(stderr, "perfmarker: %s: %s\n", who, error.c_str());
    MergeResult result;
    error.clear();
    if (!mergeProcess(tempDir, static_cast<uint64_t>(pid), session.outputBase, header, options,
                      result, error)) {
        std::fprintf(stderr, "perfmarker: %s: merge failed: %s\n", who, error.c_str());
        return false;
    }
    if (tempDir != sessionDir) rmdir(tempDir.c_str());  // the process's own, once it is empty
    return true;
}

}  // namespace perfmarker::atp
