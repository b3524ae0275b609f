#!/bin/sh
# Installs a perfmarker build tree into a scratch prefix and uses the installed tools the way a
# user does: builds the installed samples against the installed package, traces the OpenCL
# sample with the installed launcher (with and without --hsa), reads the trace with `summary` and
# `report`; then moves the installed tree and traces again (the launcher finds its agents
# relative to itself, docs/cli.md), and checks what a partial install (an agent missing) says.
#
# usage: run_installed_tools_test.sh <perfmarker build dir> <work dir>
# Environment (set by the test): CMAKE, CC, CXX, CMAKE_GENERATOR; INSTALL_BINDIR, INSTALL_LIBDIR
# and INSTALL_DOCDIR (the configured install directories, relative to the prefix); OPENCL_ICD
# (the .icd file of the OpenCL platform to run on, empty where none was found); SANITIZE (the
# build's PERFMARKER_SANITIZE). Exits 77 (skipped) for sanitizer builds and without OpenCL.
set -eu

build_dir=$1
work=$2
cmake=${CMAKE:-cmake}
cc=${CC:-cc}
cxx=${CXX:-c++}
bindir=${INSTALL_BINDIR:-bin}
libdir=${INSTALL_LIBDIR:-lib}
docdir=${INSTALL_DOCDIR:-share/doc/perfmarker}
icd=${OPENCL_ICD:-}
sanitize=${SANITIZE:-}

. "$(dirname "$0")/install_test_lib.sh"

# A sanitizer build's libraries and agents need the sanitizer runtime loaded first: the installed
# tree is not usable by ordinary applications, which is what this test builds.
[ -z "$sanitize" ] || skip "sanitizer build (PERFMARKER_SANITIZE=$sanitize)"
[ -n "$icd" ] || skip "no OpenCL platform (.icd file) to trace on"

clear_session_environment
rm -rf "$work"
mkdir -p "$work"
work=$(physical_path "$work")
prefix="$work/prefix"
use_opencl_platform "$icd"

step "install $build_dir into $prefix"
"$cmake" --install "$build_dir" --prefix "$prefix"

step "the installed layout"
for file in "$bindir/perfmarker" "$libdir/perfmarker/libCLTraceAgent.so" \
    "$libdir/perfmarker/libHSATraceAgent.so" "$libdir/perfmarker/libCLProfileAgent.so" include/CLPerfMarker.h include/ActivityLogger.h \
    "$libdir/cmake/perfmarker/perfmarkerConfig.cmake" \
    "$libdir/pkgconfig/perfmarker-clperfmarker.pc" \
    "$libdir/pkgconfig/perfmarker-activitylogger.pc" \
    "$docdir/README.md" "$docdir/cli.md" "$docdir/hsa-trace.md" \
    "$docdir/samples/cl_vecadd.c" "$docdir/samples/cl_markers.c" \
    "$docdir/samples/standalone/CMakeLists.txt"; do
    [ -f "$prefix/$file" ] || fail "$file was not installed"
    [ ! -L "$prefix/$file" ] || fail "$file is a symbolic link"
done
[ -x "$prefix/$bindir/perfmarker" ] || fail "$bindir/perfmarker is not executable"
# The agents are modules: one file each, no versioned names or namelinks.
agents=$(find "$prefix/$libdir/perfmarker" -mindepth 1 | sed 's|.*/||' | LC_ALL=C sort | tr '\n' ' ')
[ "$agents" = "libCLProfileAgent.so libCLTraceAgent.so libHSATraceAgent.so " ] \
    || fail "$libdir/perfmarker holds '$agents', not exactly the three agents"
for pattern in "libCLPerfMarker.so.*" "libActivityLogger.so.*" \
    libCLPerfMarker.a libActivityLogger.a; do
    found=$(find "$prefix/$libdir" -maxdepth 1 -name "$pattern" | head -n 1)
    [ -n "$found" ] || fail "no $pattern in $libdir"
done
echo "ok: launcher, agents, libraries, headers, CMake and pkg-config files, docs, samples"
version=$("$prefix/$bindir/perfmarker" --version)
echo "$version"

step "samples/standalone from the installed docs, built against the installed package"
samples="$work/samples"
build_installed_samples "$prefix" "$prefix/$docdir/samples/standalone" "$samples"
app="$samples/cl_vecadd"

step "perfmarker trace from the installed tree"
"$prefix/$bindir/perfmarker" trace -o "$work/t.atp" -- "$app" 65536
check_vecadd_trace "$work/t.atp"

step "perfmarker trace --hsa from the installed tree (finds the installed HSA agent)"
"$prefix/$bindir/perfmarker" trace --hsa -o "$work/h.atp" -- "$app" 65536
check_vecadd_trace "$work/h.atp"

step "perfmarker trace --sym from the installed tree (call sites symbolized by the launcher)"
"$prefix/$bindir/perfmarker" trace --sym -o "$work/sym.atp" -- "$app" 65536
expect_line "$work/sym.atp" "=====ocl Stack Trace Output====="
grep -q "^clEnqueueNDRangeKernel	" "$work/sym.atp" || fail "$work/sym.atp has no call site of clEnqueueNDRangeKernel"
echo "ok: trace --sym"

step "perfmarker profile from the installed tree (finds the installed profile layer)"
"$prefix/$bindir/perfmarker" profile -o "$work/p.csv" --counters task-clock -- "$app" 65536
expect_line "$work/p.csv" "#API=OpenCL"
grep -q '^vadd__k1_' "$work/p.csv" || fail "$work/p.csv has no row of the vadd kernel"
echo "ok: profile"

step "perfmarker summary and report from the installed tree"
"$prefix/$bindir/perfmarker" summary "$work/t.atp" >"$work/summary.txt"
for text in "API Summary Page" "clEnqueueNDRangeKernel" "Marker Summary Page" "Setup"; do
    expect_line "$work/summary.txt" "$text"
done
echo "ok: summary"
"$prefix/$bindir/perfmarker" report "$work/t.atp" -o "$work/x.html"
[ -s "$work/x.html" ] || fail "report did not write $work/x.html"
[ "$(head -n 1 "$work/x.html")" = "<!DOCTYPE html>" ] || fail "$work/x.html is not an HTML page"
expect_line "$work/x.html" "clEnqueueNDRangeKernel"
echo "ok: report"

step "the installed tree moved elsewhere (the original removed)"
moved="$work/moved"
cp -RP "$prefix" "$moved"
rm -rf "$prefix"
LD_LIBRARY_PATH="$moved/$libdir"
export LD_LIBRARY_PATH
# ld.so names every library it loads into the application (LD_DEBUG=files, on its stderr).
"$moved/$bindir/perfmarker" trace -e LD_DEBUG=files -o "$work/moved.atp" -- "$app" 65536 \
    2>"$work/moved.log" || { cat "$work/moved.log" >&2; fail "the moved launcher"; }
check_vecadd_trace "$work/moved.atp"
check_agent_loaded_from "$work/moved.log" "$moved/$libdir/perfmarker"
expect_line "$work/moved.log" "calling init: $moved/$libdir/libCLPerfMarker.so"
echo "ok: the application used the moved libCLPerfMarker"

step "a partial install: no HSA agent"
partial="$work/partial"
cp -RP "$moved" "$partial"
rm "$partial/$libdir/perfmarker/libHSATraceAgent.so"
status=0
"$partial/$bindir/perfmarker" trace --hsa -o "$work/partial.atp" -- "$app" 65536 \
    2>"$work/partial.log" || status=$?
cat "$work/partial.log"
[ "$status" -eq 1 ] || fail "trace --hsa without the HSA agent exited with $status, not 1"
[ ! -e "$work/partial.atp" ] || fail "trace --hsa without the HSA agent wrote a trace"
expect_line "$work/partial.log" \
    "perfmarker trace: --hsa: cannot find the HSA trace agent libHSATraceAgent.so; looked at:"
expect_line "$work/partial.log" "  $partial/$libdir/perfmarker/libHSATraceAgent.so"
expect_line "$work/partial.log" "set PERFMARKER_AGENT_DIR to the directory that holds it"
echo "ok: the failure names the file and where it was looked for"

step "a partial install: the OpenCL trace still works, and PERFMARKER_AGENT_DIR completes it"
LD_LIBRARY_PATH="$partial/$libdir"
"$partial/$bindir/perfmarker" trace -o "$work/partial-ocl.atp" -- "$app" 65536
check_vecadd_trace "$work/partial-ocl.atp"
PERFMARKER_AGENT_DIR="$moved/$libdir/perfmarker" "$partial/$bindir/perfmarker" trace --hsa \
    -o "$work/partial-dir.atp" -- "$app" 65536
check_vecadd_trace "$work/partial-dir.atp"

step "a partial install: no OpenCL agent"
rm "$partial/$libdir/perfmarker/libCLTraceAgent.so"
status=0
"$partial/$bindir/perfmarker" trace -o "$work/partial2.atp" -- "$app" 65536 \
    2>"$work/partial2.log" || status=$?
cat "$work/partial2.log"
[ "$status" -eq 1 ] || fail "trace without the OpenCL agent exited with $status, not 1"
expect_line "$work/partial2.log" \
    "perfmarker trace: cannot find the OpenCL trace agent libCLTraceAgent.so; looked at:"
expect_line "$work/partial2.log" "  $partial/$libdir/perfmarker/libCLTraceAgent.so"
echo "ok: the failure names the file and where it was looked for"

leftover=$(find "$work" -maxdepth 1 -name 'perfmarker-session.*')
[ -z "$leftover" ] || fail "session directories left behind: $leftover"

echo
echo "PASS"
