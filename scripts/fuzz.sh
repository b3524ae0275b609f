#!/usr/bin/env bash
# Fuzzes the .atp reader: configures ./build-fuzz with clang (libFuzzer, AddressSanitizer and
# UndefinedBehaviorSanitizer), builds the targets of tests/fuzz and runs each one for the given
# number of seconds on a corpus seeded from tests/fixtures. A crash, a leak, a sanitizer report
# or a timeout fails the run; the input that caused it is left in build-fuzz/artifacts.
#
# Usage: bash scripts/fuzz.sh [seconds per target]   (default 20)
# Environment: PERFMARKER_JOBS=N  parallel build jobs (default 2)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
seconds=${1:-20}
jobs=${PERFMARKER_JOBS:-2}
build=build-fuzz
targets=(fuzz_ocl fuzz_hsa fuzz_markers fuzz_stack fuzz_atp)

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
for target in "${targets[@]}"; do
    corpus="$build/corpus/$target"
    mkdir -p "$corpus"
    cp tests/fixtures/atp/*.atp tests/fixtures/perfmarker/* "$corpus/"
    echo "fuzz.sh: $target for ${seconds}s"
    log="$build/artifacts/$target.log"
    status=0
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        "$build/tests/fuzz/$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -artifact_prefix="$build/artifacts/$target-" "$corpus" >"$log" 2>&1 ||
        status=$?
    grep -E '^Done [0-9]+ runs' "$log" || true
    if [[ "$status" -ne 0 ]]; then
        tail -n 40 "$log" >&2
        echo "fuzz.sh: $target failed (exit $status); the input is in $build/artifacts" >&2
        exit 1
    fi
done
echo "fuzz.sh: all targets ran ${seconds}s without a finding"
