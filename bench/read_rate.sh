#!/usr/bin/env bash
# Reading rate of the streaming .atp reader on a large synthetic trace, next to `wc -l` on the
# same file in the same run. The trace repeats the thread blocks of
# tests/fixtures/atp/ocl_vecadd.atp (realistic API and timestamp lines: kernels, transfers,
# collapsed calls, a failed enqueue) until it has the requested size, in a temporary directory
# that is deleted afterwards.
#
# Each reader is timed for its wall time and its CPU time (user + system, all threads: the
# reader reads API sections ahead on a second thread; it is also run with --one-thread, without
# it). A second build directory (e.g. one of the previous commit) is run on the same file in the
# same run, for a side-by-side comparison. The machines are shared and noisy: --runs N runs
# every command N times, in turn (wc -l, then each reader, then again), and ends with the
# median of each; the ratio is that of the medians.
#
# Usage: bash bench/read_rate.sh [--runs N (default 1)] <build dir> [size in MB (default 1024)]
#                                [second build dir]
#        bash bench/read_rate.sh --write <file> [size in MB (default 1024)]
#            only writes the synthetic trace to <file> (to profile a reader on it, e.g. with
#            valgrind --tool=callgrind, whose instruction counts do not depend on the machine's
#            load)
set -euo pipefail

usage='usage: read_rate.sh [--runs N] <build dir> [size MB] [second build dir]
       read_rate.sh --write <file> [size MB]'
rounds=1
write=
case "${1:-}" in
    --runs)
        rounds=${2:?$usage}
        shift 2
        [[ "$rounds" =~ ^[1-9][0-9]*$ ]] || { echo "read_rate.sh: --runs takes a positive number" >&2; exit 2; }
        ;;
    --write)
        write=${2:?$usage}
        shift 2
        ;;
esac
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
if [[ -n "$write" ]]; then
    size_mb=${1:-1024}
    benches=()
else
    build=${1:?$usage}
    size_mb=${2:-1024}
    benches=("$build/bench/read_bench")
    [[ -n "${3:-}" ]] && benches+=("$3/bench/read_bench")
fi
[[ "$size_mb" =~ ^[1-9][0-9]*$ ]] || { echo "read_rate.sh: the size is a number of MB" >&2; exit 2; }
for bench in "${benches[@]}"; do
    [[ -x "$bench" ]] || { echo "read_rate.sh: $bench not built (target read_bench)" >&2; exit 1; }
done
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
trace=${write:-$dir/synthetic.atp}

python3 - "$root/tests/fixtures/atp/ocl_vecadd.atp" "$trace" "$size_mb" <<'PY'
import sys
text = open(sys.argv[1]).read()
api = text.index('=====ocl API Trace Output=====\n')
ts = text.index('=====ocl Timestamp Output=====\n')
pm = text.index('=====Perfmarker Output=====\n')
api_body = text[text.index('\n', api) + 1:ts]
ts_body = text[text.index('\n', ts) + 1:pm]
copies = max(1, int(sys.argv[3]) * 1000000 // len(api_body + ts_body))
chunk_copies = 256  # write ~1.7 MB at a time
with open(sys.argv[2], 'w') as out:
    out.write(text[:text.index('\n', api) + 1])
    for body in (api_body, ts_body):
        chunk = body * chunk_copies
        for _ in range(copies // chunk_copies):
            out.write(chunk)
        out.write(body * (copies % chunk_copies))
        if body is api_body:
            out.write(text[ts:text.index('\n', ts) + 1])
    out.write(text[pm:])
PY

bytes=$(stat -c %s "$trace")
echo "read_rate.sh: synthetic trace of $((bytes / 1000000)) MB"
[[ -n "$write" ]] && exit 0
runs=("${benches[0]}" "${benches[0]} --one-thread" "${benches[@]:1}")
# The trace just written is still being written back to the disk: that would take a core from
# the readers for the first seconds. It is flushed first, then read once (the same page-cache
# state for every command).
sync "$trace"
cat "$trace" >/dev/null

# Runs a command, its output kept in $dir/out; prints "<wall s> <user s> <system s>".
timed() {
    local TIMEFORMAT='%3R %3U %3S'
    { time "$@" >"$dir/out"; } 2>"$dir/time"
    tail -n 1 "$dir/time"
}

# The times of every round, a line per command: "<wall> <cpu>" pairs.
declare -A walls cpus
names=("wc -l" "${runs[@]}")
for ((round = 1; round <= rounds; ++round)); do
    [[ $rounds -gt 1 ]] && echo "read_rate.sh: round $round of $rounds"
    read -r wc_s wc_user wc_sys < <(timed wc -l "$trace")
    printf 'read_rate.sh: wc -l %.3f s (%.0f MB/s), cpu %.2f s (user %.2f, sys %.2f)\n' \
        "$wc_s" "$(echo "$bytes / 1000000 / $wc_s" | bc -l)" \
        "$(echo "$wc_user + $wc_sys" | bc -l)" "$wc_user" "$wc_sys"
    walls["wc -l"]+=" $wc_s"
    cpus["wc -l"]+=" $(echo "$wc_user + $wc_sys" | bc -l)"
    for run in "${runs[@]}"; do
        read -r bench option <<<"$run"
        read -r reader_s user sys < <(timed "$bench" "$trace" ${option:+"$option"})
        cat "$dir/out"
        printf 'read_rate.sh: %s %.3f s (%.0f MB/s), cpu %.2f s (user %.2f, sys %.2f), ratio %.2f\n' \
            "$run" "$reader_s" "$(echo "$bytes / 1000000 / $reader_s" | bc -l)" \
            "$(echo "$user + $sys" | bc -l)" "$user" "$sys" "$(echo "$reader_s / $wc_s" | bc -l)"
        walls["$run"]+=" $reader_s"
        cpus["$run"]+=" $(echo "$user + $sys" | bc -l)"
    done
done

median() { tr ' ' '\n' <<<"$1" | grep . | sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
if [[ $rounds -gt 1 ]]; then
    wc_median=$(median "${walls["wc -l"]}")
    echo "read_rate.sh: medians of $rounds rounds"
    for name in "${names[@]}"; do
        wall=$(median "${walls[$name]}")
        printf 'read_rate.sh: median %s %.3f s (%.0f MB/s), cpu %.2f s, ratio %.2f; walls:%s\n' \
            "$name" "$wall" "$(echo "$bytes / 1000000 / $wall" | bc -l)" \
            "$(median "${cpus[$name]}")" "$(echo "$wall / $wc_median" | bc -l)" "${walls[$name]}"
    done
fi
