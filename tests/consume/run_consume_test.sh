#!/bin/sh
# Installs a perfmarker build tree into a scratch prefix and builds tiny applications against it,
# once through find_package(perfmarker CONFIG) and once through pkg-config alone; each program
# then checks the documented return codes without and with a session.
#
# usage: run_consume_test.sh <perfmarker build dir> <perfmarker source dir> <work dir>
# Environment (set by the test): CMAKE, CC, CXX, CMAKE_GENERATOR, and PERFMARKER_CONSUME_FLAGS
# (compile and link flags for the consumers, e.g. the sanitizer flags of the build under test).
set -eu

build_dir=$1
source_dir=$2
work=$3
cmake=${CMAKE:-cmake}
cc=${CC:-cc}
cxx=${CXX:-c++}
flags=${PERFMARKER_CONSUME_FLAGS:-}
consumer_dir="$source_dir/tests/consume/find_package"

# The test decides where there is a session, not the caller's environment.
unset PERFMARKER_OUTPUT PERFMARKER_MODE PERFMARKER_INTERVAL_MS PERFMARKER_TMPDIR \
    PERFMARKER_MAX_MEMORY_MB

step() {
    echo
    echo "=== $*"
}

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# <marker file>: must exist and start with the Perfmarker section line.
check_marker_file() {
    [ -s "$1" ] || fail "$1 was not written"
    first_line=$(head -n 1 "$1")
    [ "$first_line" = "=====Perfmarker Output=====" ] || fail "$1 starts with '$first_line'"
    echo "ok: $1"
}

# <program> <session base> <extension>: runs it without and with a session.
run_consumer() {
    echo "--- $1 (no session)"
    "$1" none || fail "$1 without a session"
    echo "--- $1 (session $2)"
    PERFMARKER_OUTPUT="$2" "$1" session || fail "$1 with a session"
    check_marker_file "$2.$3"
}

rm -rf "$work"
mkdir -p "$work"
prefix="$work/prefix"

step "install $build_dir into $prefix"
"$cmake" --install "$build_dir" --prefix "$prefix"

step "find_package: configure and build $consumer_dir"
"$cmake" -S "$consumer_dir" -B "$work/find_package" \
    -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=Debug \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags"
"$cmake" --build "$work/find_package"

step "find_package: run"
for program in consume_c consume_c_static; do
    run_consumer "$work/find_package/$program" "$work/find_package/$program" clperfmarker
done
for program in consume_cpp consume_cpp_static; do
    run_consumer "$work/find_package/$program" "$work/find_package/$program" amdtperfmarker
done

step "pkg-config: build with plain compiler command lines"
pc_file=$(find "$prefix" -name perfmarker-clperfmarker.pc | head -n 1)
[ -n "$pc_file" ] || fail "perfmarker-clperfmarker.pc was not installed"
PKG_CONFIG_PATH=$(dirname "$pc_file")
export PKG_CONFIG_PATH
mkdir -p "$work/pkg-config"
for package in perfmarker-clperfmarker perfmarker-activitylogger; do
    echo "$package $(pkg-config --modversion $package): $(pkg-config --cflags --libs $package)"
done
# shellcheck disable=SC2046,SC2086  # word splitting of the flags is intended
"$cc" -std=c99 -Wall -Wextra -Werror $flags "$consumer_dir/main.c" \
    $(pkg-config --cflags --libs perfmarker-clperfmarker) -o "$work/pkg-config/consume_c"
# shellcheck disable=SC2046,SC2086
"$cxx" -std=c++17 -Wall -Wextra -Werror $flags "$consumer_dir/main.cpp" \
    $(pkg-config --cflags --libs perfmarker-activitylogger) -o "$work/pkg-config/consume_cpp"

step "pkg-config: run"
LD_LIBRARY_PATH="$(pkg-config --variable=libdir perfmarker-clperfmarker)${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export LD_LIBRARY_PATH
run_consumer "$work/pkg-config/consume_c" "$work/pkg-config/consume_c" clperfmarker
run_consumer "$work/pkg-config/consume_cpp" "$work/pkg-config/consume_cpp" amdtperfmarker
unset LD_LIBRARY_PATH

step "samples/standalone: configure, build and run against the installed package"
"$cmake" -S "$source_dir/samples/standalone" -B "$work/samples" \
    -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx" \
    -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags"
"$cmake" --build "$work/samples"
PERFMARKER_OUTPUT="$work/samples/demo" "$work/samples/cl_markers" >/dev/null \
    || fail "samples/standalone cl_markers"
check_marker_file "$work/samples/demo.clperfmarker"
PERFMARKER_OUTPUT="$work/samples/demo" "$work/samples/scoped_markers" >/dev/null \
    || fail "samples/standalone scoped_markers"
check_marker_file "$work/samples/demo.amdtperfmarker"

echo
echo "PASS"
