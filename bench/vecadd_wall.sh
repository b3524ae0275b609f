#!/usr/bin/env bash
# Wall time of the OpenCL vector-add sample with and without the tracer, alternating runs so
# that both see the same machine state; prints the median of each and their ratio.
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

run_direct
run_traced
direct=()
traced=()
for ((i = 0; i < runs; ++i)); do
    t0=$(now_ns); run_direct; t1=$(now_ns); direct+=($(((t1 - t0) / 1000)))
    t0=$(now_ns); run_traced; t1=$(now_ns); traced+=($(((t1 - t0) / 1000)))
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR + 1) / 2)]}'; }
d=$(median "${direct[@]}")
t=$(median "${traced[@]}")
echo "cl_vecadd wall time, median of $runs runs: direct ${d} us, traced ${t} us, ratio $(awk -v d="$d" -v t="$t" 'BEGIN {printf "%.3f", t / d}')"
echo "(traced includes the launcher and the merge into $scratch/vecadd.atp)"
