/*
 * perfmarker: ActivityLogger API (drop-in compatible with CXLActivityLogger.h).
 *
 * Label regions of host code with amdtBeginMarker()/amdtEndMarker(). Under a perfmarker
 * session (see docs/session.md) markers are recorded and amdtFinalizeActivityLogger() writes
 * `<base>.amdtperfmarker`. Unlike the original, the user string of a marker (for example a
 * color) is kept in the record so that exporters can use it.
 *
 * Compiles as C99 and as C++; amdtScopedMarker is available to C++ only.
 */
#ifndef ACTIVITY_LOGGER_H
#define ACTIVITY_LOGGER_H

/** Calling convention of the API (the original used __stdcall on Windows). */
#if defined(_WIN32) || defined(__CYGWIN__)
#define AL_API_CALL __stdcall
#else
#define AL_API_CALL
#endif

/** Symbol export attribute, kept apart from the calling convention. */
#if defined(_WIN32) || defined(__CYGWIN__)
#define AL_EXPORT
#elif defined(__GNUC__)
#define AL_EXPORT __attribute__((visibility("default")))
#else
#define AL_EXPORT
#endif

/** @name Return codes (values identical to the original library; 0..-8 equal the AP_* codes)
 *  @{ */
#define AL_SUCCESS 0                          /**< The call succeeded. */
#define AL_UNINITIALIZED_ACTIVITY_LOGGER (-1) /**< amdtInitializeActivityLogger() not called. */
#define AL_FINALIZED_ACTIVITY_LOGGER (-2)     /**< amdtFinalizeActivityLogger() already called. */
#define AL_UNBALANCED_MARKER (-3)             /**< End without a matching Begin on this thread. */
#define AL_GPU_PROFILER_NOT_DETECTED (-4)     /**< No profiler session in the environment. */
#define AL_APP_PROFILER_NOT_DETECTED AL_GPU_PROFILER_NOT_DETECTED        /**< Legacy alias. */
#define AL_CODEXL_GPU_PROFILER_NOT_DETECTED AL_GPU_PROFILER_NOT_DETECTED /**< Legacy alias. */
#define AL_NULL_MARKER_NAME (-5)              /**< The marker name is NULL (or empty where a
                                                   group is given to amdtEndMarkerEx()). */
#define AL_INTERNAL_ERROR (-6)                /**< An internal error (message on stderr). */
#define AL_OUT_OF_MEMORY (-7)                 /**< Memory for the marker could not be obtained. */
#define AL_FAILED_TO_OPEN_OUTPUT_FILE (-8)    /**< The output file could not be written. */
#define AL_FAILED_TO_ATTACH_TO_PROFILER (-9)  /**< No loaded tracing agent to control. */
#define AL_WARN_PROFILE_ALREADY_RESUMED (-10) /**< Resume while profiling already runs. */
#define AL_WARN_PROFILE_ALREADY_PAUSED (-11)  /**< Stop while profiling is already paused. */
#define AL_GPU_PROFILER_MISMATCH (-12)        /**< The session configuration is incomplete. */
/** @} */

#ifdef __cplusplus
extern "C" {
#endif

/** Which kind of profiling amdtStopProfiling()/amdtResumeProfiling() control. */
typedef enum amdtProfilingControlMode {
    AMDT_TRACE_PROFILING = 0x1,        /**< API tracing (the OpenCL and HSA tracing agents). */
    AMDT_PERF_COUNTER_PROFILING = 0x2, /**< Performance counters (no agent in perfmarker). */
    AMDT_CPU_PROFILING = 0x4,          /**< CPU profiling (no agent in perfmarker). */
    AMDT_ALL_PROFILING = 0x7           /**< All of the above. */
} amdtProfilingControlMode;

/**
 * @brief Initializes the logger and detects the profiler session. Calling it twice is harmless.
 * @return AL_SUCCESS; AL_GPU_PROFILER_NOT_DETECTED without a session;
 *         AL_FINALIZED_ACTIVITY_LOGGER after finalize; AL_GPU_PROFILER_MISMATCH when the session
 *         configuration is incomplete or invalid (message on stderr).
 *
 * @code
 *   amdtInitializeActivityLogger();
 * @endcode
 */
AL_EXPORT int AL_API_CALL amdtInitializeActivityLogger(void);

/**
 * @brief Opens a marker on the calling thread. All strings are copied.
 * @param szMarkerName name shown on the timeline (must not be NULL; may be empty).
 * @param szGroupName group of a top-level marker; NULL or "" means "Default".
 * @param szUserString free text kept with the marker (for example a color "#ff8800"); may be NULL.
 * @return AL_SUCCESS; AL_UNINITIALIZED_ACTIVITY_LOGGER (also without a session);
 *         AL_FINALIZED_ACTIVITY_LOGGER; AL_NULL_MARKER_NAME; AL_OUT_OF_MEMORY.
 *
 * @code
 *   amdtBeginMarker("Frame", "Render", "#00ff00");
 *   ...
 *   amdtEndMarker();
 * @endcode
 */
AL_EXPORT int AL_API_CALL amdtBeginMarker(const char* szMarkerName, const char* szGroupName,
                                          const char* szUserString);

/**
 * @brief Closes the most recent open marker of the calling thread.
 * @return AL_SUCCESS; AL_UNINITIALIZED_ACTIVITY_LOGGER; AL_FINALIZED_ACTIVITY_LOGGER;
 *         AL_UNBALANCED_MARKER when the thread has no open marker; AL_OUT_OF_MEMORY.
 */
AL_EXPORT int AL_API_CALL amdtEndMarker(void);

/**
 * @brief Closes the most recent open marker and renames it (and its group).
 *
 * With an empty or NULL name and the default group it behaves as amdtEndMarker().
 * @param szMarkerName new name (NULL or "" keeps the name given at begin).
 * @param szGroupName new group; a non-default group needs a name.
 * @param szUserString free text kept with the end record; may be NULL.
 * @return as amdtEndMarker(); AL_NULL_MARKER_NAME when a group is given without a name.
 */
AL_EXPORT int AL_API_CALL amdtEndMarkerEx(const char* szMarkerName, const char* szGroupName,
                                          const char* szUserString);

/**
 * @brief Stops recording and writes `<base>.amdtperfmarker`.
 *
 * Open markers are reported on stderr and the file is written anyway. Every later call
 * returns AL_FINALIZED_ACTIVITY_LOGGER.
 * @return AL_SUCCESS; AL_UNINITIALIZED_ACTIVITY_LOGGER; AL_FINALIZED_ACTIVITY_LOGGER when
 *         called twice; AL_FAILED_TO_OPEN_OUTPUT_FILE when the file could not be written.
 */
AL_EXPORT int AL_API_CALL amdtFinalizeActivityLogger(void);

/**
 * @brief Pauses the loaded tracing agents (OpenCL, HSA) for the given kinds of profiling.
 *
 * Markers are still recorded while tracing is paused.
 * @param mode a combination of amdtProfilingControlMode flags.
 * @return AL_SUCCESS; AL_WARN_PROFILE_ALREADY_PAUSED; AL_FAILED_TO_ATTACH_TO_PROFILER when no
 *         agent for the requested mode is loaded in the process.
 *
 * @code
 *   amdtStopProfiling(AMDT_TRACE_PROFILING);
 *   warmUp();
 *   amdtResumeProfiling(AMDT_TRACE_PROFILING);
 * @endcode
 */
AL_EXPORT int AL_API_CALL amdtStopProfiling(amdtProfilingControlMode mode);

/**
 * @brief Resumes the loaded tracing agents for the given kinds of profiling.
 * @param mode a combination of amdtProfilingControlMode flags.
 * @return AL_SUCCESS; AL_WARN_PROFILE_ALREADY_RESUMED; AL_FAILED_TO_ATTACH_TO_PROFILER.
 */
AL_EXPORT int AL_API_CALL amdtResumeProfiling(amdtProfilingControlMode mode);

/**
 * @brief Pauses CPU profiling only (the original's Ex variant).
 * @return AL_FAILED_TO_ATTACH_TO_PROFILER unless a CPU profiling agent is loaded.
 */
AL_EXPORT int AL_API_CALL amdtStopProfilingEx(void);

/**
 * @brief Resumes CPU profiling only (the original's Ex variant).
 * @return AL_FAILED_TO_ATTACH_TO_PROFILER unless a CPU profiling agent is loaded.
 */
AL_EXPORT int AL_API_CALL amdtResumeProfilingEx(void);

/*
 * Inline fast path (GCC and Clang on ELF platforms; perfmarker's extension). While no markers
 * are recorded (no session, not initialized, or finalized), amdtBeginMarker(), amdtEndMarker()
 * and amdtEndMarkerEx() return their code in the caller, from one load of
 * perfmarker_al_idle_code, without the call into the shared library. That variable is 0 while
 * markers are recorded (the calls then go to the library) and otherwise holds the code those
 * three functions return: AL_UNINITIALIZED_ACTIVITY_LOGGER or AL_FINALIZED_ACTIVITY_LOGGER.
 * The arguments are evaluated once either way, and the functions keep their addresses.
 * Define PERFMARKER_NO_INLINE_FAST_PATH before including this header to always call them.
 */
#if defined(__GNUC__) && !defined(_WIN32) && !defined(__CYGWIN__)
AL_EXPORT extern int perfmarker_al_idle_code;
#if !defined(PERFMARKER_NO_INLINE_FAST_PATH)
static __inline__ int perfmarker_al_begin_marker(const char* name, const char* group,
                                                 const char* userString) {
    const int idle = __atomic_load_n(&perfmarker_al_idle_code, __ATOMIC_RELAXED);
    return idle != 0 ? idle : (amdtBeginMarker)(name, group, userString);
}
static __inline__ int perfmarker_al_end_marker(void) {
    const int idle = __atomic_load_n(&perfmarker_al_idle_code, __ATOMIC_RELAXED);
    return idle != 0 ? idle : (amdtEndMarker)();
}
static __inline__ int perfmarker_al_end_marker_ex(const char* name, const char* group,
                                                  const char* userString) {
    const int idle = __atomic_load_n(&perfmarker_al_idle_code, __ATOMIC_RELAXED);
    return idle != 0 ? idle : (amdtEndMarkerEx)(name, group, userString);
}
#define amdtBeginMarker(name, group, userString) \
    perfmarker_al_begin_marker((name), (group), (userString))
#define amdtEndMarker() perfmarker_al_end_marker()
#define amdtEndMarkerEx(name, group, userString) \
    perfmarker_al_end_marker_ex((name), (group), (userString))
#endif
#endif

#ifdef __cplusplus
} /* extern "C" */

/**
 * @brief RAII marker: begins in the constructor, ends in the destructor.
 *
 * @code
 *   void render() {
 *       amdtScopedMarker frame("Frame", "Render", "#00ff00");
 *       ...
 *   }
 * @endcode
 */
class amdtScopedMarker {
public:
    /** Begins a marker; see amdtBeginMarker(). */
    explicit amdtScopedMarker(const char* szMarkerName, const char* szGroupName = 0,
                              const char* szUserString = 0)
        : m_result(amdtBeginMarker(szMarkerName, szGroupName, szUserString)) {}
    /** Ends the marker if it was begun successfully. */
    ~amdtScopedMarker() {
        if (m_result == AL_SUCCESS) {
            amdtEndMarker();
        }
    }
    /** The return code of the begin call. */
    int result() const { return m_result; }

private:
    amdtScopedMarker(const amdtScopedMarker&);
    amdtScopedMarker& operator=(const amdtScopedMarker&);
    int m_result;
};
#endif /* __cplusplus */

#endif /* ACTIVITY_LOGGER_H */
