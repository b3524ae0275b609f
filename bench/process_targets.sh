#!/usr/bin/env bash
# The whole-process targets of tracing (docs/performance.md, "What tracing costs the whole
# process"), each against two `rdtsc` measured in the same run, several runs in turn, with the
# median of each and whether it meets its target:
#
#   recording thread   CPU per marker pair, 3M pairs on one thread, cold        <= 1.25x
#   whole process      CPU per pair (every thread, finalize included), the same  <= 3x
#   two threads        wall per pair per thread, 3M pairs on each of two, cold    <= 1.6x
#   bytes              written by the process over the final .clperfmarker       <= 1.2x
#   layer pinned       what the OpenCL layer adds to a clSetKernelArg, pinned to
#                      one core with its writer (layer_bench)                     <= 1.6x
#
# The first four come from bench/process_cost (its "cold" rows), the last from bench/layer_bench
# (NoLayerSetKernelArg, LayerTracingSetKernelArg and TwoRdtsc of one run). The host of a shared
# machine moves every figure between runs: the medians say more than any one run, and a quiet
# hour more than a busy one (docs/performance.md#the-machine).
#
# Usage: bash bench/process_targets.sh [--runs N (default 5)] [build dir (default build)]
set -euo pipefail

runs=5
if [[ "${1:-}" == --runs ]]; then
    runs=${2:?usage: process_targets.sh [--runs N] [build dir]}
    shift 2
fi
build=${1:-build}
for tool in process_cost layer_bench; do
    if [[ ! -x "$build/bench/$tool" ]]; then
        echo "process_targets.sh: $build/bench/$tool is not built" >&2
        exit 2
    fi
done
markers=$(dirname "$(find "$build/src/markers" -name 'libCLPerfMarker.so*' -print -quit)")

results=$(mktemp)
trap 'rm -f "$results"' EXIT
for ((run = 1; run <= runs; run++)); do
    # process_cost: "cold 1" and "cold 2" rows; the ratios are the columns with an "x".
    LD_LIBRARY_PATH="$markers" "$build/bench/process_cost" --pairs 3000000 --threads 1,2 |
        awk '$1 == "cold" && $2 == 1 { gsub("x", "", $4); gsub("x", "", $6); gsub("x", "", $12);
                                       print "recording", $4; print "process", $6;
                                       print "bytes", $12 }
             $1 == "cold" && $2 == 2 { gsub("x", "", $9); print "two_threads", $9 }' >>"$results"
    # layer_bench pinned: (traced - untraced) / two rdtsc, wall times of one run.
    PERFMARKER_MERGE_AT_EXIT=0 taskset -c 0 "$build/bench/layer_bench" \
        --benchmark_filter='TwoRdtsc|SetKernelArg' |
        awk '/^BM_TwoRdtsc/ { r = $2 } /^BM_NoLayerSetKernelArg/ { n = $2 }
             /^BM_LayerTracingSetKernelArg/ { t = $2 }
             END { if (r > 0) printf "layer %.2f\n", (t - n) / r }' >>"$results"
    echo "run $run of $runs done" >&2
done

awk -v runs="$runs" '
    { v[$1] = v[$1] " " $2 }
    END {
        split("recording 1.25 process 3 two_threads 1.6 bytes 1.2 layer 1.6", spec, " ")
        printf "%-12s %-8s %-8s %s\n", "target", "median", "limit", "runs"
        for (i = 1; i <= 10; i += 2) {
            name = spec[i]; limit = spec[i + 1]
            n = split(v[name], xs, " ")
            for (a = 1; a <= n; a++) for (b = a + 1; b <= n; b++)
                if (xs[b] + 0 < xs[a] + 0) { t = xs[a]; xs[a] = xs[b]; xs[b] = t }
            median = n % 2 ? xs[(n + 1) / 2] : (xs[n / 2] + xs[n / 2 + 1]) / 2
            printf "%-12s %-8.2f %-8s%s  %s\n", name, median, limit, v[name],
                   (n > 0 && median <= limit) ? "met" : "NOT met"
        }
    }' "$results"
