#!/usr/bin/env bash
# Builds perfmarker (Release, in ./build), traces the OpenCL vector-add sample with
# `perfmarker trace` (on PoCL), shows the head of its .atp trace, its summary, and writes its
# HTML report and Perfetto timeline, then runs the two marker
# samples under a session set by hand and shows the marker files they wrote.
# Usage: bash scripts/demo.sh
#
# Environment:
#   PERFMARKER_SKIP_APT=1   do not install packages (see scripts/bootstrap.sh)
#   PERFMARKER_JOBS=N       parallel build jobs (default 2)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build_dir=build
jobs=${PERFMARKER_JOBS:-2}

header() {
    printf '\n===== %s =====\n' "$*"
}

header "Dependencies"
bash scripts/bootstrap.sh

header "Configure and build ($build_dir, Release)"
generator=()
if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
    generator=(-G Ninja)
fi
cmake -S . -B "$build_dir" "${generator[@]}" \
    -DCMAKE_BUILD_TYPE=Release \
    -DPERFMARKER_BUILD_SAMPLES=ON \
    -DPERFMARKER_BUILD_TESTS=OFF \
    -DPERFMARKER_BUILD_BENCHMARKS=OFF
cmake --build "$build_dir" --parallel "$jobs"

demo_dir="$root/$build_dir/demo"
rm -rf "$demo_dir"
mkdir -p "$demo_dir"

# The launcher: runs the application with the OpenCL trace agent in OPENCL_LAYERS and a private
# session, then leaves one trace per process next to -o.
perfmarker="$build_dir/src/cli/perfmarker"
vecadd="$build_dir/samples/cl_vecadd"
if [[ -x "$perfmarker" && -x "$vecadd" ]]; then
    trace="$demo_dir/vecadd.atp"
    header "perfmarker trace -o $trace -- $vecadd"
    POCL_CACHE_DIR="$demo_dir/pocl-cache" "$perfmarker" trace -o "$trace" -- "$vecadd"
    if [[ ! -s "$trace" ]]; then
        echo "demo: perfmarker trace did not write $trace" >&2
        exit 1
    fi
    header "$trace ($(wc -l <"$trace") lines): the head of each section"
    awk '/^=====/ { shown = 0 } { if (shown++ < 14) print }' "$trace" | cut -c1-200

    header "perfmarker summary $trace"
    "$perfmarker" summary "$trace"
    header "perfmarker report $trace -o $demo_dir/vecadd.html"
    "$perfmarker" report "$trace" -o "$demo_dir/vecadd.html"
    header "perfmarker export --format perfetto $trace -o $demo_dir/vecadd.json"
    "$perfmarker" export --format perfetto "$trace" -o "$demo_dir/vecadd.json"
else
    echo "demo: the OpenCL parts were not built (OpenCL headers or ICD loader missing)" >&2
fi

# The session contract (docs/session.md): PERFMARKER_OUTPUT is the output base path without
# extension; each library adds its own extension when it finalizes.
export PERFMARKER_OUTPUT="$demo_dir/demo"
export PERFMARKER_MODE=timeout

run_sample() {
    local sample=$1 extension=$2
    header "Run $sample (PERFMARKER_OUTPUT=$PERFMARKER_OUTPUT, PERFMARKER_MODE=$PERFMARKER_MODE)"
    "$build_dir/samples/$sample"
    local output="$PERFMARKER_OUTPUT.$extension"
    if [[ ! -s "$output" ]]; then
        echo "demo: $sample did not write $output" >&2
        exit 1
    fi
    header "$output ($(wc -l <"$output") lines; the first 20)"
    head -n 20 "$output"
}

run_sample cl_markers clperfmarker
run_sample scoped_markers amdtperfmarker

header "Done"
if [[ -s "$demo_dir/vecadd.atp" ]]; then
    echo "Trace:    $demo_dir/vecadd.atp"
    echo "Report:   $demo_dir/vecadd.html (open in a browser)"
    echo "Timeline: $demo_dir/vecadd.json (open in ui.perfetto.dev)"
fi
echo "Marker files:"
echo "  $PERFMARKER_OUTPUT.clperfmarker"
echo "  $PERFMARKER_OUTPUT.amdtperfmarker"
