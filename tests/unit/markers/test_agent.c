/*
 * A stand-in tracing agent for the profiling-control tests of libActivityLogger.so.
 *
 * Built as libCLTraceAgent.so (SONAME libCLTraceAgent.so) so that amdtStopProfiling() /
 * amdtResumeProfiling() find it with dlopen(RTLD_NOLOAD) once a test has loaded it by path.
 * It exports the agent entry points (docs/session.md#pause-and-resume), the state query of our
 * agents, and counters that let a test check which calls really reached the agent.
 */
#if defined(__GNUC__)
#define TEST_AGENT_EXPORT __attribute__((visibility("default")))
#else
#define TEST_AGENT_EXPORT
#endif

static int g_paused;
static int g_stopCalls;
static int g_resumeCalls;

TEST_AGENT_EXPORT void amdtCodeXLStopProfiling(void) {
    __atomic_add_fetch(&g_stopCalls, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&g_paused, 1, __ATOMIC_SEQ_CST);
}

TEST_AGENT_EXPORT void amdtCodeXLResumeProfiling(void) {
    __atomic_add_fetch(&g_resumeCalls, 1, __ATOMIC_SEQ_CST);
    __atomic_store_n(&g_paused, 0, __ATOMIC_SEQ_CST);
}

TEST_AGENT_EXPORT int perfmarkerAgentIsPaused(void) {
    return __atomic_load_n(&g_paused, __ATOMIC_SEQ_CST);
}

TEST_AGENT_EXPORT int testAgentStopCalls(void) {
    return __atomic_load_n(&g_stopCalls, __ATOMIC_SEQ_CST);
}

TEST_AGENT_EXPORT int testAgentResumeCalls(void) {
    return __atomic_load_n(&g_resumeCalls, __ATOMIC_SEQ_CST);
}

/* Lets a test simulate an agent that paused itself (start disabled, delay, duration timers). */
TEST_AGENT_EXPORT void testAgentSetPaused(int paused) {
    __atomic_store_n(&g_paused, paused != 0, __ATOMIC_SEQ_CST);
}
