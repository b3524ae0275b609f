#include "export/export_common.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace perfmarker::exporter {
namespace {

bool parseDecimal(std::string_view text, uint64_t& value) {
    if (text.empty() || text.size() > 19) return false;
    value = 0;
    for (const char c : text) {
        if (c < '0' || c > '9') return false;
        value = value * 10 + static_cast<uint64_t>(c - '0');
    }
    return true;
}

std::string_view fileNameOf(std::string_view path) {
    const size_t slash = path.find_last_of('/');
    return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

void WarningLog::add(std::string message) {
    if (m_messages.size() < kMaxKept) {
        m_messages.push_back(std::move(message));
    } else {
        ++m_dropped;
    }
}

void ProcessIds::beginFile(std::string_view file) {
    m_file.assign(file);
    m_headerPid = 0;
    m_pid = 0;
    m_resolved = false;
}

void ProcessIds::header(std::string_view key, std::string_view value) {
    uint64_t pid = 0;
    if (key == "ProcessId" && parseDecimal(value, pid)) m_headerPid = pid;
}

uint64_t ProcessIds::nextSynthetic() {
    while (m_taken.count(m_nextSynthetic) != 0) ++m_nextSynthetic;
    return m_nextSynthetic++;
}

uint64_t ProcessIds::pid(WarningLog& warnings) {
    if (m_resolved) return m_pid;
    m_resolved = true;
    const uint64_t wanted = m_headerPid != 0 ? m_headerPid : pidFromFileName(m_file);
    if (wanted == 0) {
        m_pid = nextSynthetic();
    } else if (m_taken.count(wanted) != 0) {
        m_pid = nextSynthetic();
        warnings.add(m_file + ": pid " + std::to_string(wanted) +
                     " is already used by another trace; shown as pid " + std::to_string(m_pid));
    } else {
        m_pid = wanted;
    }
    m_taken.insert(m_pid);
    return m_pid;
}

uint64_t pidFromFileName(std::string_view path) {
    std::string_view name = fileNameOf(path);
    const size_t extension = name.find_last_of('.');
    if (extension == std::string_view::npos) return 0;
    name = name.substr(0, extension);
    const size_t dot = name.find_last_of('.');
    if (dot == std::string_view::npos || dot == 0) return 0;
    uint64_t pid = 0;
    return parseDecimal(name.substr(dot + 1), pid) ? pid : 0;
}

std::string traceBaseName(std::string_view path) {
    const std::string_view name = fileNameOf(path);
    const size_t dot = name.find_last_of('.');
    if (dot == std::string_view::npos || dot == 0) return std::string(name);
    return std::string(name.substr(0, dot));
}

CommandClass classifyCommand(const atp::OclCommand& command) {
    const uint32_t type = command.commandType;  // cl_command_type (docs/format.md#command-types)
    const auto within = [type](uint32_t first, uint32_t last) {
        return type >= first && type <= last;
    };
    if (command.isKernel || within(4592, 4594)) return CommandClass::Kernel;  // NDRANGE .. NATIVE
    const bool memory = within(4595, 4605)      // READ_BUFFER .. UNMAP_MEM_OBJECT
                        || within(4609, 4611)   // READ / WRITE / COPY_BUFFER_RECT
                        || within(4614, 4616)   // MIGRATE_MEM_OBJECTS, FILL_BUFFER, FILL_IMAGE
                        || within(4618, 4622);  // SVM_MEMCPY .. SVM_MIGRATE_MEM
    return memory ? CommandClass::Memory : CommandClass::Other;
}

std::string_view commandClassName(CommandClass kind) {
    switch (kind) {
        case CommandClass::Kernel:
            return "kernels";
        case CommandClass::Memory:
            return "memory";
        case CommandClass::Other:
            break;
    }
    return "other";
}

OutputFile::~OutputFile() { discard(); }

bool OutputFile::open(const std::string& path) {
    m_path = path;
    if (m_output.create(path)) {
        m_fd = ::open(m_output.path().c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    }
    if (m_fd < 0) {
        fail("cannot create", errno);
        m_output.discard();
        return false;
    }
    m_writes = atp::BatchedWrites(m_fd);
    return true;
}

bool OutputFile::commit(std::string& error) {
    if (failed() || m_fd >= 0) {
        error = failed() ? m_error : m_path + ": not closed";
        discard();
        return false;
    }
    if (m_output.commit(error)) return true;
    m_error = error;
    return false;
}

void OutputFile::discard() {
    if (m_fd >= 0) ::close(m_fd);
    m_fd = -1;
    m_writes = {};
    m_output.discard();
}

void OutputFile::write(std::string_view data) {
    if (m_fd < 0 || failed() || data.empty()) return;
    if (const int err = m_writes.write(data)) fail("cannot write", err);
}

bool OutputFile::close() {
    if (m_fd < 0) return !failed();
    if (!failed()) {
        if (const int err = m_writes.flush()) fail("cannot write", err);
    }
    if (::close(m_fd) != 0 && !failed()) fail("cannot close", errno);
    m_fd = -1;
    return !failed();
}

void OutputFile::fail(const char* what, int err) {
    if (failed()) return;
    m_error = m_path + ": " + what + ": " + std::strerror(err);
}

}  // namespace perfmarker::exporter
