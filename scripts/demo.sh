#!/usr/bin/env bash
# Builds perfmarker (Release, in ./build) and runs both samples under a perfmarker session, then
# shows the marker files they wrote. Usage: bash scripts/demo.sh
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
echo "Marker files:"
echo "  $PERFMARKER_OUTPUT.clperfmarker"
echo "  $PERFMARKER_OUTPUT.amdtperfmarker"
