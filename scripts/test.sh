#!/usr/bin/env bash
# Builds perfmarker and runs the whole test suite: a RelWithDebInfo build with warnings as errors
# (./build-test), then the same tests under AddressSanitizer+UndefinedBehaviorSanitizer
# (./build-asan) and ThreadSanitizer (./build-tsan, the tests of threaded code). Usage:
# bash scripts/test.sh
#
# Sized for a 2-core machine: about 18-22 minutes with both sanitizers and the fuzz targets
# (1,053-1,292 s from a clean clone, 1,150 s in CI, November 2026).
# Environment:
#   PERFMARKER_SANITIZERS="address thread"   sanitizer phases to run ("" runs none)
#   PERFMARKER_SKIP_APT=1                    do not install packages (see scripts/bootstrap.sh)
#   PERFMARKER_JOBS=N                        parallel build and test jobs (default 2)
#   PERFMARKER_FUZZ_SECONDS=N                seconds per fuzz target (default 15, 0 skips)
#   PERFMARKER_TSAN_SCOPE=all|threads        tests built under TSan (default threads: the
#                                            tests of the code that runs threads)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
jobs=${PERFMARKER_JOBS:-2}
sanitizers=${PERFMARKER_SANITIZERS-address thread}

# The tests decide where there is a session, not the caller's environment.
unset PERFMARKER_OUTPUT PERFMARKER_MODE PERFMARKER_INTERVAL_MS PERFMARKER_TMPDIR \
    PERFMARKER_MAX_MEMORY_MB

started=$SECONDS
header() {
    printf '\n===== %s (%ds) =====\n' "$*" $((SECONDS - started))
}

# configure_and_build <build dir> <cmake options...>
configure_and_build() {
    local build_dir=$1
    shift
    local generator=()
    if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then
        generator=(-G Ninja)
    fi
    cmake -S . -B "$build_dir" "${generator[@]}" "$@"
    cmake --build "$build_dir" --parallel "$jobs"
}

# The AddressSanitizer+UBSan build uses Clang where it is installed (scripts/bootstrap.sh
# installs it for the fuzz targets): it compiles the suite in 70% of GCC's CPU time, and its
# UBSan checks what GCC's does not (enum loads, for one). GCC builds the other two.
asan_compiler=()
if command -v clang++ >/dev/null 2>&1 && command -v clang >/dev/null 2>&1; then
    asan_compiler=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++)
fi

# Every build here keeps line tables only (-g1): reports and backtraces keep file and line, and
# a test file compiles in two thirds of the time it takes with -g (the call-site tests build
# their programs with -g themselves). The AddressSanitizer+UBSan build compiles at -O0: UBSan's
# checks make GCC's optimizer take twice as long as without them, and the whole build costs half
# the CPU it does at -O1 (1,345 s against 2,543 s) for 60 s more of running its tests. The
# ThreadSanitizer build stays at -O1: its tests are the slowest to run, and -O0 would save it
# little compiling (5.9 s against 7.1 s for one of its test files).
line_tables() {
    echo "-DCMAKE_C_FLAGS_RELWITHDEBINFO=$1 -g1 -DNDEBUG"
    echo "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=$1 -g1 -DNDEBUG"
}
mapfile -t plain_flags < <(line_tables -O2)
mapfile -t asan_flags < <(line_tables -O0)
mapfile -t tsan_flags < <(line_tables -O1)
# The tests' own files compile at -O0 in every build (the code under test keeps the flags
# above): GCC's optimizer is most of a gtest file's cost. Each test program is one translation
# unit (a unity build), so gtest and our headers are parsed once per program.
test_flags=(-DPERFMARKER_TEST_COMPILE_OPTIONS=-O0 -DPERFMARKER_TEST_UNITY_BUILD=ON)

# run_ctest <build dir> [command prefix...]
run_ctest() {
    local build_dir=$1
    shift
    (cd "$build_dir" && "$@" ctest --output-on-failure --no-tests=error -j "$jobs")
}

# The sanitizer runtimes of GCC 12 fail on kernels with large mmap randomization
# (vm.mmap_rnd_bits above 28), so the sanitizer tests run without ASLR where the machine allows it.
no_aslr=()
if command -v setarch >/dev/null 2>&1 && setarch "$(uname -m)" -R true 2>/dev/null; then
    no_aslr=(setarch "$(uname -m)" -R)
fi

header "Dependencies"
bash scripts/bootstrap.sh
cmake --version | sed -n 1p
c++ --version | sed -n 1p

header "Build build-test (RelWithDebInfo, warnings as errors)"
configure_and_build build-test \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo "${plain_flags[@]}" \
    -DPERFMARKER_WERROR=ON \
    -DPERFMARKER_SANITIZE= \
    -DPERFMARKER_BUILD_TESTS=ON "${test_flags[@]}" \
    -DPERFMARKER_BUILD_SAMPLES=ON \
    -DPERFMARKER_BUILD_BENCHMARKS=ON

header "Test build-test"
# The report's browser test must run here, not skip (scripts/bootstrap.sh installs chromium).
PERFMARKER_REQUIRE_BROWSER=1 run_ctest build-test

for sanitizer in $sanitizers; do
    case "$sanitizer" in
        address)
            header "Build build-asan (AddressSanitizer + UndefinedBehaviorSanitizer)"
            configure_and_build build-asan "${asan_compiler[@]}" \
                -DCMAKE_BUILD_TYPE=RelWithDebInfo "${asan_flags[@]}" \
                -DPERFMARKER_SANITIZE=address \
                -DPERFMARKER_BUILD_TESTS=ON -DPERFMARKER_TEST_UNITY_BUILD=ON \
                -DPERFMARKER_BUILD_SAMPLES=ON \
                -DPERFMARKER_BUILD_BENCHMARKS=OFF
            header "Test build-asan"
            ASAN_OPTIONS=detect_leaks=1 \
                UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
                run_ctest build-asan "${no_aslr[@]}"
            ;;
        thread)
            header "Build build-tsan (ThreadSanitizer)"
            configure_and_build build-tsan \
                -DCMAKE_BUILD_TYPE=RelWithDebInfo "${tsan_flags[@]}" \
                -DPERFMARKER_SANITIZE=thread \
                -DPERFMARKER_BUILD_TESTS=ON "${test_flags[@]}" \
                -DPERFMARKER_TEST_SCOPE="${PERFMARKER_TSAN_SCOPE:-threads}" \
                -DPERFMARKER_BUILD_SAMPLES=OFF \
                -DPERFMARKER_BUILD_BENCHMARKS=OFF
            header "Test build-tsan"
            TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=$root/tests/tsan.supp \
                run_ctest build-tsan "${no_aslr[@]}"
            ;;
        *)
            echo "test.sh: unknown sanitizer '$sanitizer' in PERFMARKER_SANITIZERS" >&2
            exit 2
            ;;
    esac
done

# libFuzzer targets of the .atp reader, the merge and the profile files, a short run each (bash
# scripts/fuzz.sh N for longer).
fuzz_seconds=${PERFMARKER_FUZZ_SECONDS:-15}
if [[ "$fuzz_seconds" -gt 0 ]]; then
    header "Fuzz the .atp reader, the merge and the profile files (${fuzz_seconds}s per target)"
    bash scripts/fuzz.sh "$fuzz_seconds"
fi

header "All tests passed"
