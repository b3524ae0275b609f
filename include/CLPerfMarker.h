/*
 * perfmarker: CLPerfMarker API (drop-in compatible with the AMD APP SDK v1.1 interface).
 *
 * Label regions of host code with clBeginPerfMarkerAMD()/clEndPerfMarkerAMD(). When the
 * application runs under a perfmarker session (see docs/session.md) the markers are recorded
 * and clFinalizePerfMarkerAMD() writes `<base>.clperfmarker`; without a session every call
 * returns quickly and records nothing.
 *
 * Compiles as C99 and as C++.
 */
#ifndef CL_PERF_MARKER_H
#define CL_PERF_MARKER_H

/** Calling convention of the API (the original used __stdcall on Windows). */
#if defined(_WIN32) || defined(__CYGWIN__)
#define AP_API_CALL __stdcall
#else
#define AP_API_CALL
#endif

/** Symbol export attribute, kept apart from the calling convention. */
#if defined(_WIN32) || defined(__CYGWIN__)
#define AP_EXPORT
#elif defined(__GNUC__)
#define AP_EXPORT __attribute__((visibility("default")))
#else
#define AP_EXPORT
#endif

/** @name Return codes (values identical to the original library)
 *  @{ */
#define AP_SUCCESS 0                     /**< The call succeeded. */
#define AP_UNINITIALIZED_PERF_MARKER (-1) /**< clInitializePerfMarkerAMD() was not called. */
#define AP_FINALIZED_PERF_MARKER (-2)    /**< clFinalizePerfMarkerAMD() was already called. */
#define AP_UNBALANCED_MARKER (-3)        /**< End without a matching Begin on this thread. */
#define AP_APP_PROFILER_NOT_DETECTED (-4) /**< No profiler session in the environment. */
#define AP_NULL_MARKER_NAME (-5)         /**< The marker name is NULL. */
#define AP_INTERNAL_ERROR (-6)           /**< An internal error (message on stderr). */
#define AP_OUT_OF_MEMORY (-7)            /**< Memory for the marker could not be obtained. */
#define AP_FAILED_TO_OPEN_OUTPUT_FILE (-8) /**< The output file could not be written. */
/** @} */

#ifdef __cplusplus
extern "C" {
#endif

/**
 * @brief Initializes the library and detects the profiler session.
 *
 * Calling it more than once is harmless.
 * @return AP_SUCCESS; AP_APP_PROFILER_NOT_DETECTED when no session is configured;
 *         AP_FINALIZED_PERF_MARKER after clFinalizePerfMarkerAMD(); AP_INTERNAL_ERROR when the
 *         session configuration is invalid (message on stderr).
 *
 * @code
 *   if (clInitializePerfMarkerAMD() == AP_SUCCESS) { ... }
 * @endcode
 */
AP_EXPORT int AP_API_CALL clInitializePerfMarkerAMD(void);

/**
 * @brief Opens a marker on the calling thread.
 *
 * The name and group are copied; the caller may free them right after the call.
 * @param szMarkerName name shown on the timeline (must not be NULL; may be empty).
 * @param szGroupName group of a top-level marker; NULL or "" means "Default".
 * @return AP_SUCCESS; AP_UNINITIALIZED_PERF_MARKER; AP_FINALIZED_PERF_MARKER;
 *         AP_NULL_MARKER_NAME; AP_OUT_OF_MEMORY.
 *         Without a profiler session initialization fails, so this returns
 *         AP_UNINITIALIZED_PERF_MARKER (as the original did) after a few nanoseconds.
 *
 * @code
 *   clBeginPerfMarkerAMD("Upload", "IO");
 *   ...
 *   clEndPerfMarkerAMD();
 * @endcode
 */
AP_EXPORT int AP_API_CALL clBeginPerfMarkerAMD(const char* szMarkerName, const char* szGroupName);

/**
 * @brief Closes the most recent open marker of the calling thread.
 * @return AP_SUCCESS; AP_UNINITIALIZED_PERF_MARKER; AP_FINALIZED_PERF_MARKER;
 *         AP_UNBALANCED_MARKER when the thread has no open marker; AP_OUT_OF_MEMORY.
 */
AP_EXPORT int AP_API_CALL clEndPerfMarkerAMD(void);

/**
 * @brief Stops recording and writes `<base>.clperfmarker`.
 *
 * Later calls of any function return AP_FINALIZED_PERF_MARKER.
 * Markers still open are reported on stderr and the file is written anyway.
 * @return AP_SUCCESS; AP_UNINITIALIZED_PERF_MARKER; AP_FINALIZED_PERF_MARKER when called twice;
 *         AP_FAILED_TO_OPEN_OUTPUT_FILE when the file could not be written completely.
 *
 * @code
 *   clFinalizePerfMarkerAMD();
 * @endcode
 */
AP_EXPORT int AP_API_CALL clFinalizePerfMarkerAMD(void);

/*
 * Inline fast path (GCC and Clang on ELF platforms; perfmarker's extension). While no markers
 * are recorded (no session, not initialized, or finalized), clBeginPerfMarkerAMD() and
 * clEndPerfMarkerAMD() return their code in the caller, from one load of
 * perfmarker_cl_idle_code, without the call into the shared library. That variable is 0 while
 * markers are recorded (the calls then go to the library) and otherwise holds the code both
 * functions return: AP_UNINITIALIZED_PERF_MARKER or AP_FINALIZED_PERF_MARKER. The arguments are
 * evaluated once either way, and the functions keep their addresses. Define
 * PERFMARKER_NO_INLINE_FAST_PATH before including this header to always call them.
 */
#if defined(__GNUC__) && !defined(_WIN32) && !defined(__CYGWIN__)
AP_EXPORT extern int perfmarker_cl_idle_code;
#if !defined(PERFMARKER_NO_INLINE_FAST_PATH)
static __inline__ int perfmarker_cl_begin_marker(const char* name, const char* group) {
    const int idle = __atomic_load_n(&perfmarker_cl_idle_code, __ATOMIC_RELAXED);
    return idle != 0 ? idle : (clBeginPerfMarkerAMD)(name, group);
}
static __inline__ int perfmarker_cl_end_marker(void) {
    const int idle = __atomic_load_n(&perfmarker_cl_idle_code, __ATOMIC_RELAXED);
    return idle != 0 ? idle : (clEndPerfMarkerAMD)();
}
#define clBeginPerfMarkerAMD(name, group) perfmarker_cl_begin_marker((name), (group))
#define clEndPerfMarkerAMD() perfmarker_cl_end_marker()
#endif
#endif

#ifdef __cplusplus
}
#endif

#endif /* CL_PERF_MARKER_H */
