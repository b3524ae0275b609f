// The marker state machine and hot path shared by CLPerfMarker and ActivityLogger. The two C
// facades differ only in their codes, file extension and a few names (Flavor).
#pragma once

#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>

#include "record/recorder.h"
#include "record/session.h"

namespace perfmarker::markers {

// Return codes: 0..-8 are the same numbers in both APIs (docs/session.md#return-codes).
enum Code : int {
    kSuccess = 0,
    kUninitialized = -1,
    kFinalized = -2,
    kUnbalanced = -3,
    kNotDetected = -4,
    kNullName = -5,
    kInternalError = -6,
    kOutOfMemory = -7,
    kFailedToOpenOutput = -8,
};

struct Flavor {
    const char* extension;  // "clperfmarker" or "amdtperfmarker"
    int invalidSessionCode;  // AP_INTERNAL_ERROR or AL_GPU_PROFILER_MISMATCH
};
inline constexpr Flavor kCLPerfMarker{"clperfmarker", kInternalError};
inline constexpr Flavor kActivityLogger{"amdtperfmarker", -12};

class MarkerCore {
public:
    explicit MarkerCore(Flavor flavor, record::EnvLookup env = nullptr)
        : m_flavor(flavor), m_env(env) {}
    ~MarkerCore();

    int initialize();
    int finalize();
    // Flushes recorded markers to the fragments (at process exit without finalize).
    void flush();

    // The hot path is split so that the idle case (no session, or not initialized) is one
    // load and one branch with no stack frame: facades test isRecording() inline and call the
    // record*() functions, which assume a recording state, out of line.
    static bool isRecording(const MarkerCore* core) {
        return core != nullptr && core->m_state.load(std::memory_order_acquire) == kRecording;
    }
    static int idleCode(const MarkerCore* core) {
        return core == nullptr ? kUninitialized : core->stateCode();
    }

    int begin(const char* name, const char* group, const char* userString) {
        return isRecording(this) ? recordBegin(name, group, userString) : stateCode();
    }
    int end() { return isRecording(this) ? recordEnd() : stateCode(); }
    int endEx(const char* name, const char* group, const char* userString) {
        return isRecording(this) ? recordEndEx(name, group, userString) : stateCode();
    }

    // The common case inline: the thread has its log, the clock is the TSC and the marker is
    // one compact word. Everything else goes out of line by a tail call, so that the inline
    // part saves no registers (docs/performance.md, "Where the time goes").
    int recordBegin(const char* name, const char* group, const char* userString) {
        record::Recorder* const recorder = m_recorder.get();
        record::ThreadLog* const log = recorder->cachedThreadLog();
        if (PERFMARKER_UNLIKELY(name == nullptr || log == nullptr || !recorder->useTsc())) {
            return recordBeginSlow(name, group, userString);
        }
        const uint64_t ticks = record::readTsc();
        if (PERFMARKER_UNLIKELY(!recorder->appendBeginWord(log, ticks, name, group, userString))) {
            return recordBeginRecord(log, ticks, name, group, userString);
        }
        return published(log, +1);
    }

    int recordEnd() {
        record::Recorder* const recorder = m_recorder.get();
        record::ThreadLog* const log = recorder->cachedThreadLog();
        if (PERFMARKER_UNLIKELY(log == nullptr || !recorder->useTsc() || log->userState == 0 ||
                                !recorder->appendEndWord(log, record::readTsc()))) {
            return recordEndSlow();
        }
        return published(log, -1);
    }

    int recordEndEx(const char* name, const char* group, const char* userString);

    // For tests and benchmarks.
    record::Recorder* recorder() { return m_recorder.get(); }
    std::string outputPath() const;

private:
    // kFailed: a finalize could not write the output; the records are kept and the next
    // finalize tries again (recording calls answer as after a finalize).
    enum State : int { kNotInitialized = 0, kRecording = 1, kDone = 2, kFailed = 3 };

    // After a record is published: true when a finalize began meanwhile, so the record may or
    // may not be in the output and the call must not report success. Finalize changes the state
    // and then runs Recorder::fenceAllThreads() before it collects: a record published before
    // this load saw "recording" is visible to it, and a load after the fence sees the change
    // (docs/session.md#finalize-and-recording-threads). Only the compiler must keep the load
    // after the publishing store; the processor needs no fence here.
    bool lostToFinalize() const {
        std::atomic_signal_fence(std::memory_order_seq_cst);
        return m_state.load(std::memory_order_relaxed) != kRecording;
    }

    // The out-of-line cases of recordBegin() and recordEnd(): every case (their first steps
    // taken again), and a Begin that is a record.
    [[gnu::noinline]] int recordBeginSlow(const char* name, const char* group,
                                          const char* userString);
    [[gnu::noinline]] int recordBeginRecord(record::ThreadLog* log, uint64_t ticks,
                                            const char* name, const char* group,
                                            const char* userString);
    [[gnu::noinline]] int recordEndSlow();

    // A marker's record is published: the call's code, and the thread's nesting depth.
    int published(record::ThreadLog* log, int depthChange) {
        if (PERFMARKER_UNLIKELY(lostToFinalize())) return kFinalized;
        log->userState += static_cast<uint64_t>(static_cast<int64_t>(depthChange));
        return kSuccess;
    }

    static std::string_view view(const char* s) {
        return s == nullptr ? std::string_view() : std::string_view(s, std::strlen(s));
    }
    int stateCode() const {
        return m_state.load(std::memory_order_acquire) == kNotInitialized ? kUninitialized
                                                                          : kFinalized;
    }
    int appendFailureCode() const {
        return m_state.load() == kRecording ? kOutOfMemory : kFinalized;
    }
    bool writeOutput(const std::string& path, std::string& error);

    const Flavor m_flavor;
    const record::EnvLookup m_env;
    std::atomic<int> m_state{kNotInitialized};
    std::mutex m_lifecycleMutex;  // serializes initialize/finalize/flush (not the hot path)
    std::unique_ptr<record::Recorder> m_recorder;
    record::SessionConfig m_config;
    long m_initPid = 0;
    std::string m_filesDir;  // where the fragments go (record/session_files.h)
};

// The process-wide core behind one C facade. Constant-initialized, so the hot path's first
// step is one load and one branch: no guard variable, no call.
class GlobalCore {
public:
    // `idleWord` is the facade's exported fast-path word (see the public headers): 0 while
    // recording, else the code begin/end return. Kept equal to the core's state here.
    constexpr GlobalCore(const Flavor& flavor, int* idleWord)
        : m_flavor(flavor), m_idleWord(idleWord) {}

    // Null until the first initialize call.
    MarkerCore* get() const { return m_core.load(std::memory_order_acquire); }

    // Creates the core on first use; `atExit` (which should call flushAtExit) is registered
    // once a session is detected.
    int initialize(void (*atExit)());
    int finalize();
    void flushAtExit() {
        if (MarkerCore* core = get()) core->flush();
    }

private:
    // Stores the fast-path word for the core's current state (under m_mutex).
    void publishIdleCode(const MarkerCore* core);

    const Flavor& m_flavor;
    int* const m_idleWord;
    std::atomic<MarkerCore*> m_core{nullptr};  // never freed: threads may call during exit
    std::mutex m_mutex;                        // guards creation and m_atExitRegistered
    bool m_atExitRegistered = false;
};

}  // namespace perfmarker::markers
