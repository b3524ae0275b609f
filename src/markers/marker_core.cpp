#include "markers/marker_core.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "atp/format/finished_receipt.h"
#include "atp/format/perfmarker_section.h"
#include "atp/format/safe_files.h"
#include "record/collect.h"
#include "record/session_files.h"

namespace perfmarker::markers {
namespace {

constexpr size_t kWriteBatch = size_t{1} << 20;

// Turns the recorder's records into the Perfmarker section text, written in batches. The common
// lines are written in place at the end of the batch (atp::CommonLineWriter), the others
// through a string.
class SectionWriter {
public:
    explicit SectionWriter(int fd)
        : m_fd(fd),
          m_buffer(new char[kWriteBatch + atp::kMarkerLineRoom]),
          m_cursor(m_buffer.get()) {
        put(atp::kPerfmarkerSectionLine);
        put("\n");
        m_bodyOffset = atp::kPerfmarkerSectionLine.size() + 1;
    }

    void onThread(uint64_t tid, uint64_t recordCount) {
        endThread();
        ++m_threads;
        m_tid = tid;
        m_common = {};
        m_line.clear();
        atp::appendThreadHeader(m_line, tid, recordCount);
        put(m_line);
    }

    // Inlined in the unpacking loop of Recorder::collect (record/collect.h).
    __attribute__((always_inline)) void onRecord(const record::RecordView& r) {
        const auto kind = static_cast<atp::MarkerKind>(r.kind);
        // Room for the line: the batch is drained once it reaches kWriteBatch.
        if (char* end = m_common.put(m_cursor, kind, r.time, r.str0, r.str1, r.str2)) {
            m_cursor = end;
            if (m_cursor >= m_buffer.get() + kWriteBatch) drain();
        } else {
            m_line.clear();
            atp::appendMarkerLine(m_line, kind, r.time, r.str0, r.str1, r.str2);
            put(m_line);
        }
        if (kind == atp::MarkerKind::Begin) {
            ++m_depth;
        } else if (m_depth > 0) {
            --m_depth;
        }
    }

    // A run of marker words (record/collect.h), written in place: a Begin's line is copied from
    // the one kept for its slot, checked against the block's strings at its first Begin in the
    // run. Takes every word up to the first that is not a marker, which the unpacker reports.
    uint32_t onWords(const record::WordRun& run) {
        using namespace record::packed;
        uint32_t checked = 0;  // slots whose kept line was checked in this run
        uint32_t fast = 0;     // those of them whose line is a common line
        char* out = m_cursor;
        char* const full = m_buffer.get() + kWriteBatch;
        uint32_t i = 0;
        for (; i < run.count; ++i) {
            uint64_t word;
            std::memcpy(&word, run.words + size_t{8} * i, sizeof word);
            const uint64_t ns = word & kWordTimeMask;
            const uint64_t tag = word & kWordTagMask;
            const unsigned slot = (word >> kWordSlotShift) & (kWordSlots - 1);
            if (tag == kWordEnd) {
                out = m_common.putEnd(out, ns);
                m_depth -= m_depth != 0;
            } else if (tag == kWordBegin &&
                       (((fast >> slot) & 1) != 0 || slotIsCommon(run, slot, checked, fast))) {
                out = m_common.putBegin(out, m_slotLines[slot], ns);
                ++m_depth;
            } else {
                if (tag != kWordBegin || ((run.slotsDefined >> slot) & 1) == 0) break;
                m_cursor = out;
                onRecord(record::RecordView{ns,
                                            record::RecordKind::MarkerBegin,
                                            run.slotName[slot],
                                            run.slotGroup[slot],
                                            {}});
                out = m_cursor;
                continue;
            }
            if (PERFMARKER_UNLIKELY(out >= full)) {
                m_cursor = out;
                drain();
                out = m_cursor;
            }
        }
        m_cursor = out;
        return i;
    }

    bool finish() {
        endThread();
        drain();
        return m_error.empty();
    }
    const std::string& error() const { return m_error; }
    const std::vector<uint64_t>& unbalancedThreads() const { return m_unbalanced; }
    uint64_t threads() const { return m_threads; }
    uint64_t bodyOffset() const { return m_bodyOffset; }

private:
    // onWords()'s first Begin of a defined slot in the run: true, and the slot marked fast,
    // when the line it keeps is (or is made) the common line of the block's strings.
    [[gnu::noinline]] bool slotIsCommon(const record::WordRun& run, unsigned slot,
                                        uint32_t& checked, uint32_t& fast) {
        const uint32_t bit = 1u << slot;
        if ((run.slotsDefined & bit) == 0 || (checked & bit) != 0) return false;
        checked |= bit;
        const std::string_view name = run.slotName[slot], group = run.slotGroup[slot];
        atp::CommonLineWriter::BeginLine& line = m_slotLines[slot];
        if (!line.holds(name, group) && !line.make(name, group)) return false;
        fast |= bit;
        return true;
    }

    void endThread() {
        if (m_depth != 0) m_unbalanced.push_back(m_tid);
        m_depth = 0;
    }
    void put(std::string_view text) {
        if (static_cast<size_t>(m_cursor - m_buffer.get()) + text.size() > kWriteBatch) {
            drain();
            if (text.size() > kWriteBatch) return writeAll(text.data(), text.size());
        }
        std::memcpy(m_cursor, text.data(), text.size());
        m_cursor += text.size();
    }
    void drain() {
        writeAll(m_buffer.get(), static_cast<size_t>(m_cursor - m_buffer.get()));
        m_cursor = m_buffer.get();
    }
    void writeAll(const char* p, size_t n) {
        if (!m_error.empty()) return;
        if (const int err = atp::appendAll(m_fd, m_written, p, n)) m_error = std::strerror(err);
        m_written += n;
    }

    int m_fd;
    uint64_t m_written = 0;
    std::unique_ptr<char[]> m_buffer;  // kWriteBatch, and the room of one line past it
    char* m_cursor;
    atp::CommonLineWriter m_common;        // the thread's timestamp digits and last Begin
    // The Begin line of each slot of marker words, as last made (onWords()).
    atp::CommonLineWriter::BeginLine m_slotLines[record::packed::kWordSlots];
    std::string m_line;                    // a line or header that is not written in place
    std::string m_error;
    uint64_t m_tid = 0;
    uint64_t m_depth = 0;
    uint64_t m_threads = 0;
    uint64_t m_bodyOffset = 0;
    std::vector<uint64_t> m_unbalanced;
};

}  // namespace

MarkerCore::~MarkerCore() = default;

int GlobalCore::initialize(void (*atExit)()) {
    std::lock_guard<std::mutex> lock(m_mutex);
    MarkerCore* core = m_core.load(std::memory_order_relaxed);
    if (core == nullptr) {
        core = new MarkerCore(m_flavor);
        m_core.store(core, std::memory_order_release);
    }
    const int code = core->initialize();
    if (code == kSuccess && !m_atExitRegistered) {
        m_atExitRegistered = true;
        std::atexit(atExit);  // exit without finalize still flushes to the fragments
    }
    publishIdleCode(core);
    return code;
}

int GlobalCore::finalize() {
    std::lock_guard<std::mutex> lock(m_mutex);
    MarkerCore* core = get();
    if (core == nullptr) return kUninitialized;
    // Callers that still see 0 while the file is written enter the library, where the core's
    // own state (already done) answers them with the finalized code.
    const int code = core->finalize();
    publishIdleCode(core);
    return code;
}

void GlobalCore::publishIdleCode(const MarkerCore* core) {
    // Relaxed readers: a caller that sees 0 enters the library, which checks the state itself.
    __atomic_store_n(m_idleWord, MarkerCore::isRecording(core) ? 0 : MarkerCore::idleCode(core),
                     __ATOMIC_RELEASE);
}

int MarkerCore::initialize() {
    std::lock_guard<std::mutex> lock(m_lifecycleMutex);
    const int state = m_state.load();
    if (state == kDone || state == kFailed) return kFinalized;
    if (state == kRecording) return kSuccess;
    record::SessionResult session = record::readSession(m_env);
    if (session.status == record::SessionStatus::Absent) return kNotDetected;
    if (session.status == record::SessionStatus::Invalid) {
        std::fprintf(stderr, "perfmarker: invalid session: %s\n", session.error.c_str());
        return m_flavor.invalidSessionCode;
    }
    m_config = session.config;
    m_initPid = static_cast<long>(getpid());
    record::RecorderOptions options;
    options.mode = m_config.mode;
    options.intervalMs = m_config.intervalMs;
    // Where the output and the fragments go is checked now, not at finalize.
    const std::string base = record::expandPid(m_config.outputBase, m_initPid);
    const std::string outputDir = record::directoryOf(base);
    if (base.back() == '/') {
        std::fprintf(stderr,
                     "perfmarker: not recording: the output base %s ends in '/'; name a file "
                     "base in that directory (e.g. %srun)\n",
                     base.c_str(), base.c_str());
        return kFailedToOpenOutput;
    }
    if (access(outputDir.c_str(), W_OK | X_OK) != 0) {
        std::fprintf(stderr, "perfmarker: not recording: cannot write into %s: %s\n",
                     outputDir.c_str(), std::strerror(errno));
        return kFailedToOpenOutput;
    }
    std::string error;
    options.fragmentDir = record::processFilesDir(record::sessionTempDir(m_config, m_initPid),
                                                  m_initPid, true, error);
    if (options.fragmentDir.empty()) {
        std::fprintf(stderr, "perfmarker: not recording: %s\n", error.c_str());
        return kFailedToOpenOutput;
    }
    m_filesDir = options.fragmentDir;
    options.fragmentTag = m_flavor.extension;
    options.maxMemoryBytes = size_t{m_config.maxMemoryMb} << 20;
    m_recorder = std::make_unique<record::Recorder>(options);
    m_state.store(kRecording, std::memory_order_release);
    return kSuccess;
}

std::string MarkerCore::outputPath() const {
    const long pid = static_cast<long>(getpid());
    std::string base = record::expandPid(m_config.outputBase, pid);
    // A forked child writes its own file even when the base has no ___PID___.
    if (pid != m_initPid && base == m_config.outputBase) base += "." + std::to_string(pid);
    return base + "." + m_flavor.extension;
}

int MarkerCore::recordBeginSlow(const char* name, const char* group, const char* userString) {
    if (PERFMARKER_UNLIKELY(name == nullptr)) return kNullName;
    record::ThreadLog* log = m_recorder->threadLog();
    if (PERFMARKER_UNLIKELY(log == nullptr)) return kOutOfMemory;
    const uint64_t ticks = m_recorder->now();
    if (PERFMARKER_UNLIKELY(!m_recorder->appendBegin(log, ticks, name, group, userString))) {
        return appendFailureCode();
    }
    return published(log, +1);
}

int MarkerCore::recordBeginRecord(record::ThreadLog* log, uint64_t ticks, const char* name,
                                  const char* group, const char* userString) {
    if (PERFMARKER_UNLIKELY(!m_recorder->appendBeginRecord(log, ticks, name, group, userString))) {
        return appendFailureCode();
    }
    return published(log, +1);
}

int MarkerCore::recordEndSlow() {
    const uint64_t ticks = m_recorder->now();
    record::ThreadLog* log = m_recorder->threadLog();
    if (PERFMARKER_UNLIKELY(log == nullptr)) return kOutOfMemory;
    if (log->userState == 0) return kUnbalanced;
    if (PERFMARKER_UNLIKELY(!m_recorder->appendEnd(log, ticks))) return appendFailureCode();
    return published(log, -1);
}

int MarkerCore::recordEndEx(const char* name, const char* group, const char* userString) {
    const uint64_t ticks = m_recorder->now();
    const std::string_view n = view(name);
    const std::string_view g = view(group);
    const bool defaultGroup = g.empty() || g == atp::kDefaultGroup;
    if (n.empty() && !defaultGroup) return kNullName;
    record::ThreadLog* log = m_recorder->threadLog();
    if (log == nullptr) return kOutOfMemory;
    if (log->userState == 0) return kUnbalanced;
    const std::string_view u = view(userString);
    const bool plainEnd = n.empty() && u.empty();
    const auto kind = plainEnd ? record::RecordKind::MarkerEnd : record::RecordKind::MarkerEndEx;
    if (!m_recorder->append(log, kind, ticks, plainEnd ? std::string_view() : n,
                            plainEnd ? std::string_view() : g, u)) {
        return appendFailureCode();
    }
    if (lostToFinalize()) return kFinalized;
    --log->userState;
    return kSuccess;
}

void MarkerCore::flush() {
    std::lock_guard<std::mutex> lock(m_lifecycleMutex);
    const int state = m_state.load();
    if (state == kRecording) m_recorder->flushNow();
    // A finalize that failed kept the records: one more try to leave them for `perfmarker merge`.
    std::string ignored;
    if (state == kFailed) m_recorder->spillToFragments(ignored);
}

int MarkerCore::finalize() {
    std::lock_guard<std::mutex> lock(m_lifecycleMutex);
    const int state = m_state.load();
    if (state == kNotInitialized) return kUninitialized;
    if (state == kDone) return kFinalized;
    if (state == kRecording) {
        // From here no recording call reports success for a record finalize does not see.
        m_state.store(kFailed);
        record::Recorder::fenceAllThreads();
    }
    std::string error;
    m_recorder->stop(error);  // a fragment failure keeps the data in memory: still written below
    const std::string path = outputPath();
    if (!writeOutput(path, error)) {
        // Nothing is dropped: the records stay (in memory and fragments) for the next finalize,
        // and go to the fragments where they can, for `perfmarker merge`.
        std::string spillError;
        m_recorder->spillToFragments(spillError);
        std::fprintf(stderr,
                     "perfmarker: cannot write %s: %s; the markers are kept, finalize again to "
                     "retry\n",
                     path.c_str(), error.c_str());
        return kFailedToOpenOutput;
    }
    m_state.store(kDone);
    m_recorder->removeFragments();
    // The process's own directory in a shared one goes once no library has files left in it.
    if (m_filesDir != record::sessionTempDir(m_config, m_initPid)) rmdir(m_filesDir.c_str());
    return kSuccess;
}

bool MarkerCore::writeOutput(const std::string& path, std::string& error) {
    // Write to a new temporary name and rename: a reader never sees half a file, and a file
    // someone else put at a name we would use is never written into (atp/format/safe_files.h).
    std::string temp;
    int fd = atp::createTempNextTo(path, 0666, temp);
    if (fd < 0) {
        error = std::strerror(errno);
        return false;
    }
    SectionWriter writer(fd);
    bool ok = m_recorder->collect(writer, error);
    ok = writer.finish() && ok;
    if (!writer.error().empty()) error = writer.error();
    // Lets the merge copy the file as it is instead of checking every line; without the receipt
    // (a filesystem without user attributes) it checks them (atp/format/finished_receipt.h).
    if (ok) (void)atp::writeFinishedReceipt(fd, writer.threads(), writer.bodyOffset());
    if (close(fd) != 0 && ok) {
        ok = false;
        error = std::strerror(errno);
    }
    if (ok && std::rename(temp.c_str(), path.c_str()) != 0) {
        ok = false;
        error = std::strerror(errno);
    }
    if (!ok) {
        unlink(temp.c_str());
        return false;
    }
    for (uint64_t tid : writer.unbalancedThreads()) {
        std::fprintf(stderr, "perfmarker: [Thread %llu] Unbalanced PerfMarker detected.\n",
                     static_cast<unsigned long long>(tid));
    }
    return true;
}

}  // namespace perfmarker::markers
