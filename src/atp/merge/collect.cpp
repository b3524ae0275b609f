// Collecting a session (collect.h).
#include "atp/merge/collect.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "atp/merge/merger.h"
#include "atp/merge/session_merge.h"
#include "record/session_files.h"

namespace perfmarker::atp {
namespace {

namespace fs = std::filesystem;

struct SessionFile {
    long pid;
    std::string ext;
    fs::path path;
};

std::vector<SessionFile> listSessionFiles(const std::string& dir) {
    std::vector<SessionFile> files;
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(dir, error)) {
        std::string ext;
        const long pid = sessionFilePid(entry.path().filename().string(), ext);
        if (pid > 0 && entry.is_regular_file(error)) files.push_back({pid, ext, entry.path()});
    }
    // `.atp` first, then by pid and extension: the report reads in a stable order.
    std::sort(files.begin(), files.end(), [](const SessionFile& a, const SessionFile& b) {
        if ((a.ext == "atp") != (b.ext == "atp")) return a.ext == "atp";
        return a.pid != b.pid ? a.pid < b.pid : a.ext < b.ext;
    });
    return files;
}

// rename(2), or copy and delete across file systems.
bool moveFile(const fs::path& from, const std::string& to, std::string& error) {
    std::error_code ec;
    fs::rename(from, to, ec);
    if (ec == std::errc::cross_device_link) {
        ec.clear();
        fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
        if (!ec) fs::remove(from, ec);
    }
    if (ec) error = ec.message();
    return !ec;
}

// The application's pid when known; otherwise the only process of the session, if there is
// exactly one.
long effectiveMainPid(long mainPid, const std::vector<SessionFile>& files) {
    if (mainPid > 0) return mainPid;
    std::set<long> pids;
    for (const SessionFile& file : files) pids.insert(file.pid);
    return pids.size() == 1 ? *pids.begin() : -1;
}

// Processes whose marker library wrote its finished file and for which no `.atp` exists: no
// agent ran in them (they made no OpenCL or HSA calls), so the markers go into an `.atp` of
// their own, as `-o` asked.
std::vector<long> markerOnlyPids(const std::string& dir) {
    std::set<long> withAtp;
    std::set<long> withMarkers;
    for (const SessionFile& file : listSessionFiles(dir)) {
        if (file.ext == "atp") withAtp.insert(file.pid);
        if (file.ext == "clperfmarker" || file.ext == "amdtperfmarker") {
            withMarkers.insert(file.pid);
        }
    }
    std::vector<long> pids;
    for (long pid : withMarkers) {
        if (withAtp.count(pid) == 0) pids.push_back(pid);
    }
    return pids;
}

// One process, with the header of the run and the session's options. False with `error`.
bool mergeOne(const CollectRequest& request, uint64_t pid, std::string& error) {
    AtpHeader header;
    header.application = request.run.application;
    header.applicationArgs = request.run.arguments;
    header.workingDirectory = request.run.workingDirectory;
    header.hostName = request.run.hostName;
    header.clockStart = request.run.clockStart;
    header.clockEnd = request.run.clockEnd;
    for (const auto& [name, value] : request.run.envVars) header.envVars[name] = value;
    MergeOptions options;
    std::string filterError;
    applySessionToMerge(request.session, header, options, filterError);
    // Never the in-process writer of applySessionToMerge: these addresses are another process's.
    options.callSites = request.callSites;
    if (!options.callSites) {
        options.callSites = [](const std::string&) -> std::unique_ptr<CallSiteWriter> {
            return std::make_unique<BareCallSites>();
        };
    }
    const long p = static_cast<long>(pid);
    if (request.progress) {
        options.progress = [&request, p](uint64_t done, uint64_t total) {
            request.progress(p, done, total);
        };
    }
    const std::string base =
        request.sessionDir + "/" + kSessionBaseName + "." + std::to_string(pid);
    // The process's files are in its private directory when the session directory is shared
    // (record/session_files.h); files an older version left in the directory itself otherwise.
    std::string dirError;
    std::string dir = record::processFilesDir(request.sessionDir, p, false, dirError);
    if (dir.empty()) dir = request.sessionDir;
    MergeResult merged;
    if (!mergeProcess(dir, pid, base, header, options, merged, error)) {
        if (error.empty()) error = "merge failed";
        return false;
    }
    if (dir != request.sessionDir) rmdir(dir.c_str());  // once empty
    error = filterError;
    return filterError.empty();
}

// Merges every process that has fragments in the session directory, and every process in
// `markerOnly` (its marker library finished its own file, and no agent wrote an .atp), writing
// <session dir>/trace.<pid>.atp and deleting what it consumed. Files of other processes and
// foreign files are left alone.
void runMerge(const CollectRequest& request, const std::vector<long>& markerOnly,
              CollectResult& result, std::ostream& log) {
    SessionDirListing listing;
    std::string error;
    if (!listSessionPids(request.sessionDir, listing, error)) {
        log << "perfmarker: process 0 not merged: " << error << "\n";
        result.ok = false;
        return;
    }
    for (long pid : markerOnly) listing.pids.push_back(static_cast<uint64_t>(pid));
    for (long pid : record::processDirPids(request.sessionDir)) {
        listing.pids.push_back(static_cast<uint64_t>(pid));
    }
    std::sort(listing.pids.begin(), listing.pids.end());
    listing.pids.erase(std::unique(listing.pids.begin(), listing.pids.end()), listing.pids.end());
    for (uint64_t pid : listing.pids) {
        error.clear();
        if (!mergeOne(request, pid, error)) {
            log << "perfmarker: process " << pid << " not merged: " << error << "\n";
            result.ok = false;
        }
    }
    if (request.progressDone) request.progressDone();
}

void moveOutputs(const CollectRequest& request, CollectResult& result, std::ostream& log) {
    if (!request.outputPath) return;  // (the files stay in the session directory)
    const std::vector<SessionFile> files = listSessionFiles(request.sessionDir);
    const long mainPid = effectiveMainPid(request.mainPid, files);
    for (const SessionFile& file : files) {
        const std::string target = request.outputPath(file.pid, file.pid == mainPid, file.ext);
        std::string error;
        if (moveFile(file.path, target, error)) {
            result.written.push_back(target);
        } else {
            log << "perfmarker: cannot move " << file.path.string() << " to " << target << ": "
                << error << "\n";
            result.ok = false;
        }
    }
}

void reportLeftovers(const CollectRequest& request, CollectResult& result, std::ostream& log) {
    std::error_code error;
    for (const auto& entry : fs::directory_iterator(request.sessionDir, error)) {
        result.leftOver.push_back(entry.path().filename().string());
    }
    std::sort(result.leftOver.begin(), result.leftOver.end());
    if (result.leftOver.empty()) {
        if (request.removeWhenEmpty) result.removed = fs::remove(request.sessionDir, error);
        return;
    }
    log << "perfmarker: left alone in " << request.sessionDir << ":";
    for (const std::string& name : result.leftOver) log << " " << name;
    log << "\n";
}

}  // namespace

long sessionFilePid(const std::string& name, std::string& ext) {
    const std::string prefix = std::string(kSessionBaseName) + ".";
    if (name.compare(0, prefix.size(), prefix) != 0) return -1;
    const size_t dot = name.find('.', prefix.size());
    if (dot == std::string::npos || dot == prefix.size() || dot + 1 == name.size()) return -1;
    for (size_t i = prefix.size(); i < dot; ++i) {
        if (!std::isdigit(static_cast<unsigned char>(name[i]))) return -1;
    }
    for (size_t i = dot + 1; i < name.size(); ++i) {
        if (!std::isalnum(static_cast<unsigned char>(name[i]))) return -1;
    }
    ext = name.substr(dot + 1);
    return std::strtol(name.c_str() + prefix.size(), nullptr, 10);
}

CollectResult collectSession(const CollectRequest& request, std::ostream& log) {
    CollectResult result;
    runMerge(request, markerOnlyPids(request.sessionDir), result, log);
    moveOutputs(request, result, log);
    for (const std::string& path : result.written) log << "perfmarker: wrote " << path << "\n";
    reportLeftovers(request, result, log);
    return result;
}

}  // namespace perfmarker::atp
