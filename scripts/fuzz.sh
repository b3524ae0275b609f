#!/usr/bin/env bash
# Fuzzes the .atp reader, the merge step and the kernel profile files: configures ./build-fuzz with clang (libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer), builds the targets of tests/fuzz and runs each one for the given
# number of seconds on a corpus seeded from tests/fixtures. A crash, a leak, a sanitizer report
# or a timeout fails the run; the input that caused it is left in build-fuzz/artifacts.
#
# Usage: bash scripts/fuzz.sh [seconds per target]   (default 20)
# Environment: PERFMARKER_JOBS=N  parallel build jobs and fuzz targets run at once (default 2)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
seconds=${1:-20}
jobs=${PERFMARKER_JOBS:-2}
build=build-fuzz
targets=(fuzz_ocl fuzz_hsa fuzz_markers fuzz_stack fuzz_atp fuzz_merge fuzz_profile)

if ! command -v clang++ >/dev/null 2>&1; then
    echo "fuzz.sh: clang++ not found (scripts/bootstrap.sh installs clang)" >&2
    exit 1
fi

generator=()
if [[ ! -f "$build/CMakeCache.txt" ]]; then
    generator=(-G Ninja)
fi
cmake -S . -B "$build" "${generator[@]}" \
    -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link \
    -DPERFMARKER_SANITIZE=address \
    -DPERFMARKER_FUZZ=ON \
    -DPERFMARKER_BUILD_TESTS=ON \
    -DPERFMARKER_BUILD_SAMPLES=OFF \
    -DPERFMARKER_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build "$build" --parallel "$jobs" --target "${targets[@]}"

[[ "$seconds" -gt 0 ]] || exit 0
mkdir -p "$build/artifacts"

# run_target <target>: one libFuzzer run; its output goes to build-fuzz/artifacts/<target>.log.
run_target() {
    local target=$1
    local corpus="$build/corpus/$target"
    mkdir -p "$corpus"
    if [[ "$target" == fuzz_profile ]]; then
        # The first byte picks the reader: even ('P'), the CSV; odd ('O'), the occupancy file.
        for f in tests/fixtures/profile/*.csv; do
            { printf 'P'; cat "$f"; } >"$corpus/$(basename "$f")"
        done
        { printf 'O'; cat tests/fixtures/profile/original.occupancy; } >"$corpus/original.occupancy"
    else
        cp tests/fixtures/atp/*.atp tests/fixtures/perfmarker/* "$corpus/"
    fi
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "$build/tests/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -artifact_prefix="$build/artifacts/$target-" "$corpus" \
        >"$build/artifacts/$target.log" 2>&1
}

# The targets run $jobs at a time (each is one process on one core), then each is checked.
failed=0
for ((first = 0; first < ${#targets[@]}; first += jobs)); do
    pids=()
    for target in "${targets[@]:first:jobs}"; do
        echo "fuzz.sh: $target for ${seconds}s"
        run_target "$target" &
        pids+=($!)
    done
    index=$first
    for pid in "${pids[@]}"; do
        target=${targets[index]}
        index=$((index + 1))
        status=0
        wait "$pid" || status=$?
        log="$build/artifacts/$target.log"
        grep -E '^Done [0-9]+ runs' "$log" || true
        if [[ "$status" -ne 0 ]]; then
            tail -n 40 "$log" >&2
            echo "fuzz.sh: $target failed (exit $status); the input is in $build/artifacts" >&2
            failed=1
        fi
    done
done
[[ "$failed" -eq 0 ]] || exit 1
echo "fuzz.sh: all targets ran ${seconds}s without a finding"
