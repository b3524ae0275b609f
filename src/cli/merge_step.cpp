#include "cli/merge_step.h"

#include <algorithm>

#include "atp/merge/merger.h"
#include "atp/merge/session_merge.h"

namespace perfmarker::cli {

MergeReport mergeSessionLeftovers(const MergeJob& job, const std::vector<long>& markerOnlyPids) {
    MergeReport report;
    atp::SessionDirListing listing;
    std::string error;
    if (!atp::listSessionPids(job.sessionDir, listing, error)) {
        report.processes.push_back(ProcessMerge{0, "", error});
        return report;
    }
    for (long pid : markerOnlyPids) listing.pids.push_back(static_cast<uint64_t>(pid));
    std::sort(listing.pids.begin(), listing.pids.end());
    listing.pids.erase(std::unique(listing.pids.begin(), listing.pids.end()), listing.pids.end());
    for (uint64_t pid : listing.pids) {
        const long p = static_cast<long>(pid);
        atp::AtpHeader header;
        header.application = job.run.application;
        header.applicationArgs = job.run.arguments;
        header.workingDirectory = job.run.workingDirectory;
        for (const auto& [name, value] : job.run.envVars) header.envVars[name] = value;
        atp::MergeOptions options;
        std::string filterError;
        atp::applySessionToMerge(job.session, header, options, filterError);
        if (job.progress) {
            options.progress = [&job, p](uint64_t done, uint64_t total) {
                job.progress(p, done, total);
            };
        }
        atp::MergeResult result;
        ProcessMerge merged{p, "", ""};
        if (!atp::mergeProcess(job.sessionDir, pid, job.outputBase(p), header, options, result,
                               merged.error)) {
            if (merged.error.empty()) merged.error = "merge failed";
        } else if (result.written) {
            merged.atpPath = result.atpPath;
        }
        if (!filterError.empty() && merged.error.empty()) merged.error = filterError;
        report.processes.push_back(std::move(merged));
    }
    return report;
}

}  // namespace perfmarker::cli
