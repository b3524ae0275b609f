// The merge step (see merge.h). Inputs are read several times rather than held in memory: the
// OpenCL builder needs its counts before each section, and so do the marker blocks.
#include "atp/merge/merger.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

#include "atp/format/atp_file_writer.h"
#include "atp/format/module_lines.h"
#include "atp/format/perfmarker_section.h"
#include "atp/format/safe_files.h"
#include "atp/merge/agent_registry.h"
#include "atp/merge/finished_markers.h"
#include "record/fragments/fragment.h"
#include "record/session.h"

namespace perfmarker::atp {
namespace {

using record::RecordKind;
using record::RecordView;

// Marker records carry the values of MarkerKind (record/record_format.h): the marker lines are
// written with a cast from one to the other.
static_assert(static_cast<uint32_t>(RecordKind::MarkerBegin) ==
                  static_cast<uint32_t>(MarkerKind::Begin),
              "record::RecordKind and atp::MarkerKind share the marker values");
static_assert(static_cast<uint32_t>(RecordKind::MarkerEnd) ==
                  static_cast<uint32_t>(MarkerKind::End),
              "record::RecordKind and atp::MarkerKind share the marker values");
static_assert(static_cast<uint32_t>(RecordKind::MarkerEndEx) ==
                  static_cast<uint32_t>(MarkerKind::EndEx),
              "record::RecordKind and atp::MarkerKind share the marker values");

constexpr std::string_view kFragmentSuffix = ".frag";

// One thread's records in a fragment file (record/fragments/fragment.h), or a fragment file that
// could not be read (`problem`).
struct InputFile {
    std::string path;
    uint64_t tid = 0;
    uint64_t bytes = 0;
    record::FragmentStream stream;
    std::string problem;      // the file could not be scanned: noted once, left in place
    bool unreadable = false;  // failed on its first reading: skipped from then on, left in place
    bool read = false;
    bool truncationNoted = false;
};

struct MarkerThread {
    uint64_t tid = 0;
    std::vector<InputFile*> files;  // in serial order
    uint64_t count = 0;
};

// One marker library's contribution: its fragments, or else its finished file.
struct MarkerSource {
    std::string tag;
    std::vector<InputFile> fragments;
    std::vector<MarkerThread> threads;
    std::string finished;  // path; empty when fragments are used or there is no file
    uint64_t finishedBytes = 0;
    FinishedMarkerFile finishedFile;
    bool finishedUsable = false;
};

uint64_t fileSize(const std::string& path, bool& exists) {
    struct stat st {};
    exists = stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
    return exists ? static_cast<uint64_t>(st.st_size) : 0;
}

bool isMarkerKind(RecordKind kind) {
    return kind == RecordKind::MarkerBegin || kind == RecordKind::MarkerEnd ||
           kind == RecordKind::MarkerEndEx;
}

// The threads of every fragment file of `pid` with `tag`, by tid (a tid's streams in file and
// serial order: threads that reused a tid, one after the other).
std::vector<InputFile> fragmentsOf(const std::string& dir, uint64_t pid, std::string_view tag) {
    std::vector<InputFile> out;
    for (const record::FragmentFile& f : record::listFragments(dir, pid, std::string(tag))) {
        std::vector<record::FragmentStream> streams;
        std::string problem;
        if (!record::scanFragment(f.path, streams, problem)) {
            InputFile file;
            file.path = f.path;
            file.problem = problem;
            out.push_back(std::move(file));
            continue;
        }
        if (streams.empty()) {  // no block (the first write failed): merged as nothing, removed
            InputFile file;
            file.path = f.path;
            file.stream.path = f.path;
            out.push_back(std::move(file));
        }
        for (record::FragmentStream& stream : streams) {
            InputFile file;
            file.path = f.path;
            file.tid = stream.tid;
            file.bytes = stream.bytes;
            file.stream = std::move(stream);
            out.push_back(std::move(file));
        }
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const InputFile& a, const InputFile& b) { return a.tid < b.tid; });
    return out;
}

// True when `path` is a regular file of this user, not a link (atp/format/safe_files.h): the
// merge reads no file someone else could have planted in a shared directory.
bool ownFile(const std::string& path) {
    const int fd = openOwnFile(path);
    if (fd < 0) return false;
    close(fd);
    return true;
}

// "<digits>_<digits>.<tag>.frag" with one of our tags: the pid, else false.
bool sessionFragmentPid(std::string_view name, uint64_t& pid) {
    if (name.size() <= kFragmentSuffix.size() ||
        name.substr(name.size() - kFragmentSuffix.size()) != kFragmentSuffix) {
        return false;
    }
    name.remove_suffix(kFragmentSuffix.size());
    const size_t dot = name.find('.');
    if (dot == std::string_view::npos) return false;
    const std::string_view tag = name.substr(dot + 1);
    if (tag != kOclFragmentTag && tag != kHsaFragmentTag && tag != kClPerfMarkerTag &&
        tag != kActivityLoggerTag)
        return false;
    uint64_t numbers[2] = {0, 0};
    size_t field = 0;
    size_t digits = 0;
    for (const char c : name.substr(0, dot)) {
        if (c == '_' && digits > 0 && field < 1) {
            ++field;
            digits = 0;
        } else if (c >= '0' && c <= '9' && digits < 19) {
            numbers[field] = numbers[field] * 10 + static_cast<uint64_t>(c - '0');
            ++digits;
        } else {
            return false;
        }
    }
    pid = numbers[0];
    return field == 1 && digits > 0;
}

// "<digits>.modules": the modules file of a process (docs/call-sites.md).
bool modulesFilePid(std::string_view name, uint64_t& pid) {
    if (name.size() <= kModulesSuffix.size() ||
        name.substr(name.size() - kModulesSuffix.size()) != kModulesSuffix) {
        return false;
    }
    name.remove_suffix(kModulesSuffix.size());
    pid = 0;
    for (const char c : name) {
        if (c < '0' || c > '9' || pid > UINT64_MAX / 10) return false;
        pid = pid * 10 + static_cast<uint64_t>(c - '0');
    }
    return true;
}

class Merger {
public:
    Merger(const std::string& dir, uint64_t pid, const MergeOptions& options, MergeResult& result)
        : m_dir(dir), m_pid(pid), m_options(options), m_result(result) {}

    bool run(const std::string& base, const AtpHeader& header, std::string& error);

private:
    void note(const std::string& text);
    void advance(uint64_t bytes);
    // Inputs without lines are not read again: the last report says "all done".
    void finishProgress();
    // Reads one input; `more` turns false when the visit wants no more records of the thread.
    bool readInput(InputFile& file, const RecordVisit& visit, bool& more, std::string& error);
    // Reads one thread's inputs in order, until the visit wants no more.
    bool replayFiles(const std::vector<InputFile*>& files, const RecordVisit& visit,
                     std::string& error);
    bool prepareOcl(OclTraceBuilder& builder, std::string& error);
    bool prepareHsa(HsaTraceBuilder& builder, std::string& error);
    bool writeHsa(HsaTraceBuilder& builder, const TextSink& sink, std::string& error);
    void findMarkers(const std::string& base);
    bool countMarkerThreads(MarkerSource& source, std::string& error);
    void checkFinishedFile(MarkerSource& source);
    bool hasMarkers() const;
    bool writeAtp(const std::string& path, const AtpHeader& header, OclTraceBuilder& builder,
                  HsaTraceBuilder& hsa, std::string& error);
    bool writeMarkers(AtpFileWriter& out, std::string& error);
    bool writeMarkerFragments(MarkerSource& source, AtpFileWriter& out, std::string& error);
    bool copyFinishedFile(const MarkerSource& source, AtpFileWriter& out, std::string& error);
    void removeInputs();

    const std::string& m_dir;
    uint64_t m_pid;
    const MergeOptions& m_options;
    MergeResult& m_result;
    std::unique_ptr<CallSiteWriter> m_callSites;  // null: no Stack Trace sections
    std::string m_modulesPath;                    // the process's modules file (call sites)
    std::vector<InputFile> m_ocl;
    std::vector<InputFile> m_hsa;
    std::vector<MarkerSource> m_markers;
    uint64_t m_done = 0;
    uint64_t m_total = 0;
};

void Merger::note(const std::string& text) {
    m_result.notes.push_back(text);
    if (m_options.note) {
        m_options.note(text);
    } else {
        std::fprintf(stderr, "perfmarker: %s\n", text.c_str());
    }
}

void Merger::advance(uint64_t bytes) {
    m_done += bytes;
    if (m_options.progress) m_options.progress(m_done, std::max(m_done, m_total));
}

void Merger::finishProgress() {
    m_total = m_done = std::max(m_done, m_total);
    if (m_options.progress) m_options.progress(m_done, m_total);
}

bool Merger::replayFiles(const std::vector<InputFile*>& files, const RecordVisit& visit,
                         std::string& error) {
    bool more = true;
    for (InputFile* file : files) {
        if (!more) {
            advance(file->bytes);
        } else if (!readInput(*file, visit, more, error)) {
            return false;
        }
    }
    return true;
}

bool Merger::readInput(InputFile& file, const RecordVisit& visit, bool& more, std::string& error) {
    if (file.unreadable) {
        advance(file.bytes);
        return true;
    }
    uint64_t records = 0;
    bool truncated = false;
    std::string why = file.problem;
    const auto count = [&](const RecordView& r) {
        ++records;
        more = visit(r);
        return more;
    };
    const bool ok = why.empty() && record::readStream(file.stream, count, why, &truncated);
    advance(file.bytes);
    if (!ok && !file.read) {
        file.unreadable = true;
        m_result.kept.push_back(file.path);
        note(why + " (not merged, left in place)");
        return true;
    }
    if (!ok) {
        error = why;
        return false;
    }
    if (truncated && !file.truncationNoted) {
        file.truncationNoted = true;
        note(file.path + ": thread " + std::to_string(file.stream.tid) +
             "'s last record is cut short (the process died while writing?) or damaged; the " +
             std::to_string(records) + " whole records before it are merged");
    }
    file.read = true;
    return true;
}

bool Merger::prepareOcl(OclTraceBuilder& builder, std::string& error) {
    uint64_t bytes = 0;
    for (size_t i = 0; i < m_ocl.size();) {
        size_t end = i;
        while (end < m_ocl.size() && m_ocl[end].tid == m_ocl[i].tid) bytes += m_ocl[end++].bytes;
        std::vector<InputFile*> files;
        for (size_t k = i; k < end; ++k) files.push_back(&m_ocl[k]);
        builder.addThread(m_ocl[i].tid, [this, files](const RecordVisit& visit, std::string& err) {
            return replayFiles(files, visit, err);
        });
        i = end;
    }
    const uint64_t before = m_done;
    if (!builder.prepare(error)) return false;
    // The maxApiCalls cut reads the fragments once more inside prepare().
    m_total += (m_done - before) - bytes;
    return true;
}

// The HSA fragments, one thread block per tid, as for OpenCL (threads without API calls, such as
// the runtime's signal-handler thread, get no block).
bool Merger::prepareHsa(HsaTraceBuilder& builder, std::string& error) {
    for (size_t i = 0; i < m_hsa.size();) {
        size_t end = i;
        std::vector<InputFile*> files;
        while (end < m_hsa.size() && m_hsa[end].tid == m_hsa[i].tid) files.push_back(&m_hsa[end++]);
        builder.addThread(m_hsa[i].tid, [this, files](const RecordVisit& visit, std::string& err) {
            return replayFiles(files, visit, err);
        });
        i = end;
    }
    return builder.prepare(error);
}

bool Merger::writeHsa(HsaTraceBuilder& builder, const TextSink& sink, std::string& error) {
    if (builder.hasApiLines() &&
        !(builder.writeApiSection(sink, error) && builder.writeTimestampSection(sink, error))) {
        return false;
    }
    if (builder.hasDispatches() && !builder.writeKernelSection(sink, error)) return false;
    return !builder.hasApiLines() || !m_callSites ||
           builder.writeStackSection(sink, *m_callSites, error);
}

void Merger::findMarkers(const std::string& base) {
    for (const std::string_view tag : {kClPerfMarkerTag, kActivityLoggerTag}) {
        MarkerSource source;
        source.tag = std::string(tag);
        source.fragments = fragmentsOf(m_dir, m_pid, tag);
        const std::string finished = base + "." + source.tag;
        bool exists = false;
        const uint64_t size = fileSize(finished, exists);
        if (!source.fragments.empty() && exists) {
            m_result.kept.push_back(finished);
            note(finished + ": not merged, the library's fragments of process " +
                 std::to_string(m_pid) + " take precedence (left in place)");
        } else if (exists && !ownFile(finished)) {
            m_result.kept.push_back(finished);
            note(finished + ": not merged: not a regular file of this user (left alone)");
        } else if (exists) {
            source.finished = finished;
            source.finishedBytes = size;
        }
        for (InputFile& f : source.fragments) m_total += 2 * f.bytes;
        m_total += 2 * source.finishedBytes;
        m_markers.push_back(std::move(source));
    }
}

bool Merger::countMarkerThreads(MarkerSource& source, std::string& error) {
    for (InputFile& file : source.fragments) {
        if (source.threads.empty() || source.threads.back().tid != file.tid) {
            source.threads.push_back(MarkerThread{file.tid, {}, 0});
        }
        MarkerThread& thread = source.threads.back();
        thread.files.push_back(&file);
        const auto count = [&thread](const RecordView& r) {
            thread.count += isMarkerKind(r.kind);
            return true;
        };
        bool more = true;
        if (!readInput(file, count, more, error)) return false;
    }
    return true;
}

void Merger::checkFinishedFile(MarkerSource& source) {
    if (source.finished.empty()) return;
    std::string problem;
    const bool ok = checkFinishedMarkerFile(source.finished, source.finishedFile, problem);
    advance(source.finishedBytes);
    if (!ok) {
        m_result.kept.push_back(source.finished);
        note(problem + " (not merged, left in place)");
        return;
    }
    source.finishedUsable = true;
}

bool Merger::hasMarkers() const {
    for (const MarkerSource& source : m_markers) {
        if (source.finishedUsable && source.finishedFile.threads > 0) return true;
        for (const MarkerThread& t : source.threads) {
            if (t.count > 0) return true;
        }
    }
    return false;
}

// The marker lines of a session that was not finalized (a crash, or no finalize call), from its
// fragments: each line goes to `out` as it is formatted (`out` writes in batches), so that the
// merge's memory does not grow with the session (docs/opencl-trace.md#the-merge-step).
bool Merger::writeMarkerFragments(MarkerSource& source, AtpFileWriter& out, std::string& error) {
    std::string text;  // a thread header, or a line that is not of the common shape
    for (MarkerThread& thread : source.threads) {
        if (thread.count == 0) continue;
        ++m_result.markerThreads;
        text.clear();
        appendThreadHeader(text, thread.tid, thread.count);
        if (!out.write(text)) return false;
        uint64_t written = 0;
        bool writing = true;
        CommonLineWriter common;  // a thread's timestamps share their high digits
        const auto line = [&](const RecordView& r) {
            if (!isMarkerKind(r.kind)) return true;
            const auto kind = static_cast<MarkerKind>(r.kind);
            char line[kMarkerLineRoom];
            if (const char* end = common.put(line, kind, r.time, r.str0, r.str1, r.str2)) {
                writing = out.write({line, static_cast<size_t>(end - line)});
            } else {
                text.clear();
                appendMarkerLine(text, kind, r.time, r.str0, r.str1, r.str2);
                writing = out.write(text);
            }
            ++written;
            return writing;  // a failed write stops the reading: out keeps the reason
        };
        for (InputFile* file : thread.files) {
            bool more = true;
            if (!readInput(*file, line, more, error)) return false;
            if (!writing) return false;
        }
        if (written != thread.count) {
            error = "the marker fragments of thread " + std::to_string(thread.tid) +
                    " changed while they were merged";
            return false;
        }
    }
    return true;
}

// Copies the blocks verbatim, without the section line (ours is already written), blank lines,
// "ProfilerVersion=" lines and CR line ends.
bool Merger::copyFinishedFile(const MarkerSource& source, AtpFileWriter& out, std::string& error) {
    if (!copyFinishedMarkerLines(source.finished, out, error)) return false;
    m_result.markerThreads += source.finishedFile.threads;
    advance(source.finishedBytes);
    return true;
}

bool Merger::writeMarkers(AtpFileWriter& out, std::string& error) {
    if (!hasMarkers()) return true;
    out.write(kPerfmarkerSectionLine);
    out.write("\n");
    for (MarkerSource& source : m_markers) {
        if (!writeMarkerFragments(source, out, error)) return false;
        if (source.finishedUsable && !copyFinishedFile(source, out, error)) return false;
    }
    return true;
}

bool Merger::writeAtp(const std::string& path, const AtpHeader& header, OclTraceBuilder& builder,
                      HsaTraceBuilder& hsa, std::string& error) {
    AtpFileWriter out;
    const TextSink sink = [&out](std::string_view text) { return out.write(text); };
    bool ok = out.open(path) && out.write(formatAtpHeader(header));
    if (ok && builder.hasLines()) {
        ok = builder.writeApiSection(sink, error) && builder.writeTimestampSection(sink, error) &&
             (!m_callSites || builder.writeStackSection(sink, *m_callSites, error));
    }
    ok = ok && writeHsa(hsa, sink, error);
    ok = ok && writeMarkers(out, error) && out.commit();
    if (!ok) {
        if (out.failed()) error = out.error();  // the root cause, rather than its echo
        out.abandon();
        return false;
    }
    return true;
}

void Merger::removeInputs() {
    // A fragment file holds several threads: it goes only when every one of them was merged.
    std::set<std::string> merged;
    std::set<std::string> left;
    const auto sort = [&](const InputFile& f) { (f.unreadable ? left : merged).insert(f.path); };
    for (const std::vector<InputFile>* files : {&m_ocl, &m_hsa}) {
        for (const InputFile& f : *files) sort(f);
    }
    std::vector<const std::string*> paths;
    for (const MarkerSource& source : m_markers) {
        for (const InputFile& f : source.fragments) sort(f);
        if (source.finishedUsable) paths.push_back(&source.finished);
    }
    for (const std::string& path : merged) {
        if (left.count(path) == 0) paths.push_back(&path);
    }
    struct stat st {};
    if (!m_modulesPath.empty() && lstat(m_modulesPath.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
        paths.push_back(&m_modulesPath);
    }
    for (const std::string* path : paths) {
        if (unlink(path->c_str()) == 0 || errno == ENOENT) {
            m_result.removed.push_back(*path);
        } else {
            note("cannot remove " + *path + ": " + std::strerror(errno));
        }
    }
}

bool Merger::run(const std::string& base, const AtpHeader& header, std::string& error) {
    m_result.atpPath = base + ".atp";
    m_ocl = fragmentsOf(m_dir, m_pid, kOclFragmentTag);
    for (const InputFile& f : m_ocl) m_total += 3 * f.bytes;  // prepare + two sections
    m_hsa = fragmentsOf(m_dir, m_pid, kHsaFragmentTag);
    for (const InputFile& f : m_hsa) m_total += 4 * f.bytes;  // prepare + three sections
    findMarkers(base);

    const OclFormatter& formatter =
        m_options.formatter != nullptr ? *m_options.formatter : defaultOclFormatter();
    OclTraceBuilder builder(formatter, m_options.ocl);
    if (!prepareOcl(builder, error)) return false;
    HsaTraceBuilder hsa(m_options.hsa);
    if (!prepareHsa(hsa, error)) return false;
    for (MarkerSource& source : m_markers) {
        if (!countMarkerThreads(source, error)) return false;
        checkFinishedFile(source);
    }
    m_modulesPath = m_dir + "/" + std::to_string(m_pid) + std::string(kModulesSuffix);
    if (!builder.hasLines() && !hsa.hasApiLines() && !hsa.hasDispatches() && !hasMarkers()) {
        if (m_options.removeInputs) unlink(m_modulesPath.c_str());
        finishProgress();
        note("no trace records of process " + std::to_string(m_pid) + " in " + m_dir +
             ": no .atp written");
        return true;
    }
    struct stat modules {};
    if (m_options.callSites && lstat(m_modulesPath.c_str(), &modules) == 0) {
        m_callSites = m_options.callSites(m_modulesPath);
    }
    AtpHeader withPid = header;
    withPid.processId = m_pid;
    withPid.apiCallsLeftOut = builder.stats().droppedLines + hsa.stats().droppedLines;
    if (!writeAtp(m_result.atpPath, withPid, builder, hsa, error)) return false;
    m_result.written = true;
    m_result.ocl = builder.stats();
    m_result.hsa = hsa.stats();
    for (const std::string& warning : builder.warnings()) note(m_result.atpPath + ": " + warning);
    for (const std::string& warning : hsa.warnings()) note(m_result.atpPath + ": " + warning);
    if (m_callSites) {
        for (const std::string& text : m_callSites->notes()) note(m_result.atpPath + ": " + text);
    }
    if (m_options.removeInputs) removeInputs();
    finishProgress();
    return true;
}

}  // namespace

bool mergeProcess(const std::string& tempDir, uint64_t pid, const std::string& outputBase,
                  const AtpHeader& header, const MergeOptions& options, MergeResult& result,
                  std::string& error) {
    result = MergeResult{};
    const std::string base = record::expandPid(outputBase, static_cast<long>(pid));
    Merger merger(tempDir, pid, options, result);
    if (!merger.run(base, header, error)) return false;
    // The process has ended or its last agent is merging: a live file left is a dead agent's.
    if (options.removeInputs) removeLiveAgents(tempDir, pid);
    return true;
}

bool listSessionPids(const std::string& dir, SessionDirListing& out, std::string& error) {
    out = SessionDirListing{};
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) {
        error = "cannot read the directory " + dir + ": " + std::strerror(errno);
        return false;
    }
    while (const dirent* entry = readdir(d)) {
        const std::string_view name = entry->d_name;
        if (name == "." || name == "..") continue;
        uint64_t pid = 0;
        if (sessionFragmentPid(name, pid) || liveAgentPid(name, pid)) {
            out.pids.push_back(pid);
        } else if (modulesFilePid(name, pid)) {
            out.pids.push_back(pid);  // merged (or removed) with the process's fragments
        } else {
            out.foreign.emplace_back(name);
        }
    }
    closedir(d);
    std::sort(out.pids.begin(), out.pids.end());
    out.pids.erase(std::unique(out.pids.begin(), out.pids.end()), out.pids.end());
    std::sort(out.foreign.begin(), out.foreign.end());
    return true;
}

}  // namespace perfmarker::atp
