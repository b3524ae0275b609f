#!/usr/bin/env bash
# Wall time of the OpenCL vector-add sample run directly, under `perfmarker trace` and under
# `perfmarker profile` (no counters), alternating runs so that all three see the same machine
# state; prints the median of each and the ratios traced/direct and profiled/traced.
# Usage: bash bench/vecadd_wall.sh [build dir (default: build-rel)] [runs per side (default: 7)]
set -euo pipefail

build=${1:-build-rel}
runs=${2:-7}
app="$build/samples/cl_vecadd"
tool="$build/src/cli/perfmarker"
for f in "$app" "$tool"; do
    [[ -x "$f" ]] || { echo "vecadd_wall.sh: $f not built" >&2; exit 1; }
done
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
# Compiled kernels are cached by PoCL; a warm-up run of each side fills the cache first.
export POCL_CACHE_DIR="$scratch/pocl-cache"

now_ns() { date +%s%N; }
run_direct() { "$app" >/dev/null; }
run_traced() { "$tool" trace -o "$scratch/vecadd.atp" -- "$app" >/dev/null 2>&1; }
run_profiled() { "$tool" profile -o "$scratch/vecadd.csv" -- "$app" >/dev/null 2>&1; }

run_direct
run_traced
run_profiled
direct=()
traced=()
profiled=()
for ((i = 0; i < runs; ++i)); do
    t0=$(now_ns); run_direct; t1=$(now_ns); direct+=($(((t1 - t0) / 1000)))
    t0=$(now_ns); run_traced; t1=$(now_ns); traced+=($(((t1 - t0) / 1000)))
    t0=$(now_ns); run_profiled; t1=$(now_ns); profiled+=($(((t1 - t0) / 1000)))
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
d=$(median "${direct[@]}")
t=$(median "${traced[@]}")
p=$(median "${profiled[@]}")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a / b}'; }
echo "cl_vecadd wall time, median of $runs runs: direct ${d} us, traced ${t} us," \
    "profiled ${p} us; traced/direct $(ratio "$t" "$d"), profiled/traced $(ratio "$p" "$t")"
echo "(traced includes the launcher and the merge into $scratch/vecadd.atp; profiled the" \
    "launcher and the serialised dispatches)"
