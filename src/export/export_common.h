// What the three exporters share besides their base (exporter.h): the process id of each traced
// file, the kind of a device command, output files that report write errors, and the warning
// log.
#pragma once

#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "atp/format/safe_files.h"
#include "atp/read/staged_output.h"
#include "atp/read/trace_parser.h"

namespace perfmarker::exporter {

// Warnings an export collects (unbalanced markers, clamped timestamps, pid clashes). Keeps the
// first kMaxKept messages and counts the rest, so a broken trace cannot flood the terminal.
class WarningLog {
public:
    static constexpr size_t kMaxKept = 100;
    void add(std::string message);
    const std::vector<std::string>& messages() const { return m_messages; }
    size_t dropped() const { return m_dropped; }

private:
    std::vector<std::string> m_messages;
    size_t m_dropped = 0;
};

// Decides the pid of each traced file: the ProcessId= header key, else the <pid> of a
// "<name>.<pid>.atp" file name, else a synthetic id. Several files on one timeline must keep
// apart, so a pid already taken by an earlier file is replaced by a synthetic one (with a
// warning). Synthetic ids start at kSyntheticIdBase, above Linux's PID_MAX_LIMIT (2^22), so
// they never meet a real pid or tid.
class ProcessIds {
public:
    static constexpr uint64_t kSyntheticIdBase = uint64_t{1} << 22;

    void beginFile(std::string_view file);
    void header(std::string_view key, std::string_view value);
    // The pid of the current file, decided on the first call after beginFile().
    uint64_t pid(WarningLog& warnings);
    const std::string& file() const { return m_file; }
    bool resolved() const { return m_resolved; }

private:
    uint64_t nextSynthetic();
    std::set<uint64_t> m_taken;
    uint64_t m_nextSynthetic = kSyntheticIdBase;
    std::string m_file;
    uint64_t m_headerPid = 0;
    uint64_t m_pid = 0;
    bool m_resolved = false;
};

// The <pid> of "<name>.<pid>.atp" (any directory), 0 when the name has no such part.
uint64_t pidFromFileName(std::string_view path);

// The file name without its directory and without its last extension: "/a/vecadd.atp" ->
// "vecadd".
std::string traceBaseName(std::string_view path);

// The sub-tracks of a command queue (the kernel / memory / other branches of CodeXL's
// timeline): kernels; data movement (read, write, copy, map, unmap, fill, migrate, SVM
// copies); everything else (markers, barriers, user events, acquire/release, SVM free).
enum class CommandClass : uint8_t { Kernel, Memory, Other };
inline constexpr size_t kCommandClasses = 3;
CommandClass classifyCommand(const atp::OclCommand& command);
std::string_view commandClassName(CommandClass kind);  // "kernels", "memory", "other"

// An output file that remembers the first error (open, write or close) with the file's name, so
// callers check once at the end instead of after every write. It is written under a temporary
// name and put in place by commit() (atp/read/staged_output.h): until then, and for ever after
// discard(), the file at `path` is as it was.
class OutputFile {
public:
    OutputFile() = default;
    ~OutputFile();  // discard()s an output not committed
    OutputFile(const OutputFile&) = delete;
    OutputFile& operator=(const OutputFile&) = delete;

    bool open(const std::string& path);
    void write(std::string_view data);
    bool close();
    // After a successful close(): renames the output over `path`. False with `error` set.
    bool commit(std::string& error);
    // Closes the file if it is open and removes the temporary file.
    void discard();
    bool isOpen() const { return m_fd >= 0; }
    bool failed() const { return !m_error.empty(); }
    const std::string& error() const { return m_error; }
    const std::string& path() const { return m_path; }

private:
    void fail(const char* what, int err);
    int m_fd = -1;
    atp::BatchedWrites m_writes;
    atp::StagedOutput m_output;
    std::string m_path;
    std::string m_error;
};

}  // namespace perfmarker::exporter
