#!/bin/sh
# Makes the Debian packages of a perfmarker build tree with CPack (cmake/PerfmarkerPackaging.cmake)
# and checks them without installing them: their names, Depends fields and contents, then
# extracts both into one root and uses it: the samples shipped in perfmarker-dev are built against
# the extracted CMake package and traced with the extracted launcher, which must find the
# extracted agents under <root>/usr.
#
# usage: run_package_test.sh <perfmarker build dir> <work dir>
# Environment (set by the test): CMAKE, CPACK, CC, CXX, CMAKE_GENERATOR; OPENCL_ICD (the .icd
# file of the OpenCL platform to run on, empty where none was found: the trace is then not run);
# SANITIZE (the build's PERFMARKER_SANITIZE). Exits 77 (skipped) without cpack or dpkg-deb, for
# sanitizer builds and where the build has no CPack configuration.
set -eu

build_dir=$1
work=$2
cmake=${CMAKE:-cmake}
cpack=${CPACK:-cpack}
cc=${CC:-cc}
cxx=${CXX:-c++}
icd=${OPENCL_ICD:-}
sanitize=${SANITIZE:-}

. "$(dirname "$0")/install_test_lib.sh"

[ -z "$sanitize" ] || skip "sanitizer build (PERFMARKER_SANITIZE=$sanitize): not packaged"
command -v "$cpack" >/dev/null 2>&1 || skip "cpack not found"
command -v dpkg-deb >/dev/null 2>&1 || skip "dpkg-deb not found"
[ -f "$build_dir/CPackConfig.cmake" ] || skip "$build_dir has no CPackConfig.cmake"

clear_session_environment
rm -rf "$work"
mkdir -p "$work/out"
work=$(physical_path "$work")

step "cpack -G DEB"
(cd "$work" && "$cpack" -G DEB --config "$build_dir/CPackConfig.cmake" -B "$work/out")

runtime_deb=""
dev_deb=""
for deb in "$work"/out/*.deb; do
    [ -f "$deb" ] || fail "cpack made no .deb"
    case $(dpkg-deb -f "$deb" Package) in
        perfmarker) runtime_deb=$deb ;;
        perfmarker-dev) dev_deb=$deb ;;
        *) fail "unexpected package $deb" ;;
    esac
done
[ -n "$runtime_deb" ] || fail "no perfmarker package"
[ -n "$dev_deb" ] || fail "no perfmarker-dev package"
echo "ok: $(basename "$runtime_deb") $(basename "$dev_deb")"

step "control fields"
for deb in "$runtime_deb" "$dev_deb"; do
    dpkg-deb -f "$deb" Package Version Architecture Section Maintainer Depends Recommends
    echo
done
version=$(dpkg-deb -f "$runtime_deb" Version)
[ "$(dpkg-deb -f "$dev_deb" Version)" = "$version" ] || fail "the packages' versions differ"
runtime_depends=$(dpkg-deb -f "$runtime_deb" Depends)
for package in ocl-icd-libopencl1 libc6 libpfm4; do
    case ", $runtime_depends," in
        *", $package "* | *", $package,"*) ;;
        *) fail "perfmarker does not depend on $package: $runtime_depends" ;;
    esac
done
dev_depends=$(dpkg-deb -f "$dev_deb" Depends)
case "$dev_depends" in
    *"perfmarker (= $version)"*) ;;
    *) fail "perfmarker-dev does not depend on perfmarker (= $version): $dev_depends" ;;
esac
echo "ok: Depends"

step "contents"
# The member names only (./usr/...), one a line; a symbolic link's target is left out.
dpkg-deb -c "$runtime_deb" | awk '{ print $6 }' >"$work/runtime.list"
dpkg-deb -c "$dev_deb" | awk '{ print $6 }' >"$work/dev.list"
cat "$work/runtime.list" "$work/dev.list" >"$work/all.list"
# <list> <extended regular expression>: some member of the list matches it.
expect_member() {
    grep -E -q -e "$2" "$1" || fail "no member of $1 matches $2"
}
expect_member "$work/runtime.list" '^\./usr/bin/perfmarker$'
expect_member "$work/runtime.list" '^\./usr/lib/(.*/)?perfmarker/libCLTraceAgent\.so$'
expect_member "$work/runtime.list" '^\./usr/lib/(.*/)?perfmarker/libHSATraceAgent\.so$'
expect_member "$work/runtime.list" '^\./usr/lib/(.*/)?libCLPerfMarker\.so\.[0-9.]+$'
expect_member "$work/runtime.list" '^\./usr/lib/(.*/)?libActivityLogger\.so\.[0-9.]+$'
expect_member "$work/runtime.list" '^\./usr/share/doc/perfmarker/README\.md$'
expect_member "$work/runtime.list" '^\./usr/share/doc/perfmarker/cli\.md$'
expect_member "$work/dev.list" '^\./usr/include/CLPerfMarker\.h$'
expect_member "$work/dev.list" '^\./usr/include/ActivityLogger\.h$'
expect_member "$work/dev.list" '^\./usr/lib/(.*/)?libCLPerfMarker\.a$'
expect_member "$work/dev.list" '^\./usr/lib/(.*/)?libActivityLogger\.a$'
expect_member "$work/dev.list" '^\./usr/lib/(.*/)?libCLPerfMarker\.so$'
expect_member "$work/dev.list" '^\./usr/lib/(.*/)?cmake/perfmarker/perfmarkerConfig\.cmake$'
expect_member "$work/dev.list" '^\./usr/lib/(.*/)?pkgconfig/perfmarker-clperfmarker\.pc$'
expect_member "$work/dev.list" '^\./usr/share/doc/perfmarker/samples/standalone/CMakeLists\.txt$'
expect_member "$work/dev.list" '^\./usr/share/doc/perfmarker/samples/cl_vecadd\.c$'
if grep -E -q '/include/' "$work/runtime.list"; then fail "perfmarker holds headers"; fi
if grep -E -q '/bin/|/perfmarker/lib[A-Za-z]+Agent' "$work/dev.list"; then
    fail "perfmarker-dev holds the launcher or an agent"
fi
outside=$(grep -v -E '^\./(usr/.*)?$' "$work/all.list" || true)
[ -z "$outside" ] || fail "members outside /usr: $outside"
if grep -q '^\./usr/local/' "$work/all.list"; then fail "members under /usr/local"; fi
duplicates=$(grep -v '/$' "$work/all.list" | sort | uniq -d)
[ -z "$duplicates" ] || fail "files in both packages: $duplicates"
echo "ok: $(grep -c -v '/$' "$work/all.list") files, split as documented"

step "extract both packages into one root"
root="$work/root"
dpkg-deb -x "$runtime_deb" "$root"
dpkg-deb -x "$dev_deb" "$root"
agent=$(find "$root/usr/lib" -path '*/perfmarker/libCLTraceAgent.so' | head -n 1)
[ -n "$agent" ] || fail "no libCLTraceAgent.so extracted"
agent_dir=$(dirname "$agent")
lib_dir=$(dirname "$agent_dir")
[ -f "$agent_dir/libHSATraceAgent.so" ] || fail "libHSATraceAgent.so is not next to $agent"
[ -f "$agent_dir/libCLProfileAgent.so" ] || fail "libCLProfileAgent.so is not next to $agent"
pc_file="$lib_dir/pkgconfig/perfmarker-clperfmarker.pc"
expect_line "$pc_file" "prefix=/usr"
echo "ok: agents in ${agent_dir#"$root"}, libraries in ${lib_dir#"$root"}"
[ "$("$root/usr/bin/perfmarker" --version)" = "perfmarker $version" ] \
    || fail "the extracted launcher's version is not $version"

if [ -z "$icd" ]; then
    echo
    echo "no OpenCL platform (.icd file): the extracted launcher is not run on an application"
    echo "PASS"
    exit 0
fi
use_opencl_platform "$icd"

step "the packaged samples, built against the extracted CMake package"
samples="$work/samples"
build_installed_samples "$root/usr" "$root/usr/share/doc/perfmarker/samples/standalone" "$samples"

step "the extracted perfmarker trace --hsa"
LD_LIBRARY_PATH="$lib_dir"
export LD_LIBRARY_PATH
"$root/usr/bin/perfmarker" trace --hsa -e LD_DEBUG=files -o "$work/pkg.atp" \
    -- "$samples/cl_vecadd" 65536 2>"$work/pkg.log" \
    || { cat "$work/pkg.log" >&2; fail "the extracted launcher"; }
check_vecadd_trace "$work/pkg.atp"
check_agent_loaded_from "$work/pkg.log" "$agent_dir"
expect_line "$work/pkg.log" "calling init: $lib_dir/libCLPerfMarker.so"
"$root/usr/bin/perfmarker" summary "$work/pkg.atp" >"$work/summary.txt"
expect_line "$work/summary.txt" "Marker Summary Page"

step "the extracted perfmarker profile"
"$root/usr/bin/perfmarker" profile -e LD_DEBUG=files -o "$work/pkg.csv" \
    -- "$samples/cl_vecadd" 65536 2>"$work/profile.log" \
    || { cat "$work/profile.log" >&2; fail "the extracted launcher's profile"; }
expect_line "$work/profile.log" "file=$agent_dir/libCLProfileAgent.so "
grep -q '^vadd__k1_' "$work/pkg.csv" || fail "$work/pkg.csv has no row of the vadd kernel"

echo
echo "PASS"
