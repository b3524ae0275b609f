/* The application of the chaos tests (docs/session.md#chaos-tests): it records markers
 * through the public CLPerfMarker API under the session its environment describes, and runs its
 * arguments as a list of steps, printing one "step=result" line per step on stdout:
 *
 *   init                       clInitializePerfMarkerAMD()        -> init=<code>
 *   pairs N                    N begin/end pairs on this thread   -> pairs=<ok> failed=<calls>
 *   finalize                   clFinalizePerfMarkerAMD()          -> finalize=<code>
 *   rm PATH                    unlink(PATH) (frees a full disk)   -> rm=<0 or errno>
 *   touch PATH                 creates PATH (fills the disk of enospc_shim.c) -> touch=<0 or errno>
 *   storm TOTAL WAVE N         TOTAL threads, WAVE at a time, N pairs each
 *                                                                 -> storm=<ok> failed=<calls>
 *   stream SETTLE_MS FILE      records 50 pairs a millisecond; after SETTLE_MS it notes the count
 *                              so far, records for 2 * SETTLE_MS more, then writes the noted
 *                              count to FILE (through FILE.tmp and a rename) and records on
 *                              until it is killed (or 30 s pass: exit status 3)
 *   forks N PAIRS              forks N children at once, each records PAIRS pairs and finalizes
 *                              (exit status 0 when both succeed); meanwhile this process
 *                              records PAIRS pairs of its own  -> forks=<children that exited 0>
 *   exit                       exit(0) at once, without finalize (the atexit flush runs)
 *
 * The exit status is 0 when every step ran (whatever the codes), 2 on a bad argument. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "CLPerfMarker.h"

static atomic_long g_okPairs;
static atomic_long g_failedCalls;
static long g_pairsPerThread;

static void recordPairs(long n, const char* name) {
    long ok = 0;
    long failed = 0;
    for (long i = 0; i < n; ++i) {
        const int b = clBeginPerfMarkerAMD(name, "chaos");
        const int e = clEndPerfMarkerAMD();
        failed += (b != AP_SUCCESS) + (e != AP_SUCCESS);
        ok += b == AP_SUCCESS && e == AP_SUCCESS;
    }
    atomic_fetch_add(&g_okPairs, ok);
    atomic_fetch_add(&g_failedCalls, failed);
}

static void* stormThread(void* arg) {
    (void)arg;
    recordPairs(g_pairsPerThread, "storm");
    return NULL;
}

static int storm(long total, long wave) {
    pthread_t* threads = calloc((size_t)wave, sizeof *threads);
    if (threads == NULL) return 1;
    for (long started = 0; started < total;) {
        long n = 0;
        for (; n < wave && started < total; ++n, ++started) {
            if (pthread_create(&threads[n], NULL, stormThread, NULL) != 0) {
                free(threads);
                return 1;
            }
        }
        for (long i = 0; i < n; ++i) pthread_join(threads[i], NULL);
    }
    free(threads);
    return 0;
}

static int forks(long n, long pairs) {
    pid_t* children = calloc((size_t)n, sizeof *children);
    if (children == NULL) return -1;
    for (long i = 0; i < n; ++i) {
        fflush(stdout);
        children[i] = fork();
        if (children[i] == 0) {
            recordPairs(pairs, "child");
            const int ok = atomic_load(&g_failedCalls) == 0 && clFinalizePerfMarkerAMD() == 0;
            _exit(ok ? 0 : 1);
        }
        if (children[i] < 0) return -1;
    }
    recordPairs(pairs, "parent");
    int exitedZero = 0;
    for (long i = 0; i < n; ++i) {
        int status = 0;
        if (waitpid(children[i], &status, 0) == children[i] && WIFEXITED(status) &&
            WEXITSTATUS(status) == 0) {
            ++exitedZero;
        }
    }
    free(children);
    return exitedZero;
}

static long long nowMs(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Records 50 pairs every millisecond until `untilMs` (a steady stream, not a flood that would
 * leave gigabytes of fragments); returns the pairs recorded (successful or not). */
static long streamUntil(long long untilMs) {
    const struct timespec pause = {0, 1000000};
    long n = 0;
    while (nowMs() < untilMs) {
        recordPairs(50, "stream");
        n += 50;
        nanosleep(&pause, NULL);
    }
    return n;
}

static int stream(long settleMs, const char* file) {
    const long long start = nowMs();
    const long noted = streamUntil(start + settleMs);
    streamUntil(start + 3 * settleMs);
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp", file);
    FILE* out = fopen(tmp, "w");
    if (out == NULL) return 1;
    fprintf(out, "%ld\n", noted);
    if (fclose(out) != 0 || rename(tmp, file) != 0) return 1;
    streamUntil(start + 30000);
    return 3;
}

static int need(int i, int count, int argc, const char* step) {
    if (i + count < argc) return 1;
    fprintf(stderr, "chaos_app: %s needs %d argument(s)\n", step, count);
    return 0;
}

int main(int argc, char** argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 1; i < argc; ++i) {
        const char* step = argv[i];
        if (strcmp(step, "init") == 0) {
            printf("init=%d\n", clInitializePerfMarkerAMD());
        } else if (strcmp(step, "finalize") == 0) {
            printf("finalize=%d\n", clFinalizePerfMarkerAMD());
        } else if (strcmp(step, "pairs") == 0 && need(i, 1, argc, step)) {
            recordPairs(atol(argv[++i]), "pair");
            printf("pairs=%ld failed=%ld\n", atomic_exchange(&g_okPairs, 0),
                   atomic_exchange(&g_failedCalls, 0));
        } else if (strcmp(step, "rm") == 0 && need(i, 1, argc, step)) {
            printf("rm=%d\n", unlink(argv[++i]) == 0 ? 0 : errno);
        } else if (strcmp(step, "touch") == 0 && need(i, 1, argc, step)) {
            FILE* f = fopen(argv[++i], "w");
            printf("touch=%d\n", f != NULL && fclose(f) == 0 ? 0 : errno);
        } else if (strcmp(step, "storm") == 0 && need(i, 3, argc, step)) {
            const long total = atol(argv[i + 1]);
            const long wave = atol(argv[i + 2]);
            g_pairsPerThread = atol(argv[i + 3]);
            i += 3;
            if (total <= 0 || wave <= 0 || storm(total, wave) != 0) return 2;
            printf("storm=%ld failed=%ld\n", atomic_exchange(&g_okPairs, 0),
                   atomic_exchange(&g_failedCalls, 0));
        } else if (strcmp(step, "stream") == 0 && need(i, 2, argc, step)) {
            const long settle = atol(argv[i + 1]);
            const char* file = argv[i + 2];
            i += 2;
            return settle > 0 ? stream(settle, file) : 2;
        } else if (strcmp(step, "forks") == 0 && need(i, 2, argc, step)) {
            const long n = atol(argv[i + 1]);
            const long pairs = atol(argv[i + 2]);
            i += 2;
            printf("forks=%d\n", n > 0 ? forks(n, pairs) : -1);
            printf("pairs=%ld failed=%ld\n", atomic_exchange(&g_okPairs, 0),
                   atomic_exchange(&g_failedCalls, 0));
        } else if (strcmp(step, "exit") == 0) {
            exit(0);
        } else {
            fprintf(stderr, "chaos_app: unknown step '%s'\n", step);
            return 2;
        }
    }
    return 0;
}
