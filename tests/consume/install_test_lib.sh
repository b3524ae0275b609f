# shellcheck shell=sh
# Helpers shared by run_installed_tools_test.sh and run_package_test.sh (sourced, not run).
# The callers set `work` (their scratch folder), `cmake`, `cc` and `cxx` before calling them.
set -eu

# Exit status that ctest reports as "skipped" (SKIP_RETURN_CODE in tests/consume/CMakeLists.txt).
skip_status=77

step() {
    echo
    echo "=== $*"
}

fail() {
    echo "FAIL: $*" >&2
    exit 1
}

skip() {
    echo "SKIP: $*"
    exit "$skip_status"
}

# The test decides where there is a session and which agents are used, not the caller's
# environment: every PERFMARKER_* variable goes, and so do the loaders' layer and tool lists.
clear_session_environment() {
    for name in $(env | sed -n 's/^\(PERFMARKER_[A-Za-z0-9_]*\)=.*/\1/p'); do
        unset "$name"
    done
    unset OPENCL_LAYERS HSA_TOOLS_LIB LD_PRELOAD
}

# <.icd file>: OpenCL applications use only that platform (PoCL in the tests), with a kernel cache
# in the scratch folder.
use_opencl_platform() {
    OCL_ICD_VENDORS=$1
    POCL_CACHE_DIR="$work/pocl-cache"
    export OCL_ICD_VENDORS POCL_CACHE_DIR
    unset OPENCL_VENDOR_PATH OCL_ICD_FILENAMES
}

# <file> <text>: the file must hold a line with that text (fixed string).
expect_line() {
    grep -F -q -e "$2" "$1" || fail "$1 has no line with '$2'"
}

# <file> <text>: the file must not hold the text.
reject_line() {
    if grep -F -q -e "$2" "$1"; then
        fail "$1 holds '$2'"
    fi
}

# <.atp file>: a full OpenCL trace of samples/cl_vecadd.c: the header, the OpenCL API and
# timestamp sections with its calls, and the Perfmarker section with its markers.
check_vecadd_trace() {
    [ -s "$1" ] || fail "$1 was not written"
    first_line=$(head -n 1 "$1")
    case "$first_line" in
        TraceFileVersion=*) ;;
        *) fail "$1 starts with '$first_line', not the .atp header" ;;
    esac
    expect_line "$1" "=====ocl API Trace Output====="
    expect_line "$1" "=====ocl Timestamp Output====="
    expect_line "$1" "=====Perfmarker Output====="
    expect_line "$1" "clEnqueueNDRangeKernel"
    grep -q '^clBeginPerfMarker  *Setup ' "$1" || fail "$1 lacks the marker Setup"
    grep -q '^clBeginPerfMarker  *Verify ' "$1" || fail "$1 lacks the marker Verify"
    echo "ok: $1 is a full OpenCL trace with the markers"
}

# <LD_DEBUG=files log> <folder>: the application loaded the OpenCL agent from <folder> and from
# nowhere else.
check_agent_loaded_from() {
    expect_line "$1" "file=$2/libCLTraceAgent.so "
    others=$(grep -F "libCLTraceAgent.so" "$1" | grep -F "file=" | grep -v -F "file=$2/" || true)
    [ -z "$others" ] || fail "an OpenCL agent other than $2/libCLTraceAgent.so was loaded: $others"
    echo "ok: the agent was loaded from $2"
}

# <cmake prefix path> <samples/standalone folder> <build folder>: configures and builds
# the samples against an installed package.
build_installed_samples() {
    "$cmake" -S "$2" -B "$3" \
        -DCMAKE_PREFIX_PATH="$1" \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_C_COMPILER="$cc" -DCMAKE_CXX_COMPILER="$cxx"
    "$cmake" --build "$3"
    [ -x "$3/cl_vecadd" ] || fail "$2 did not build cl_vecadd (is OpenCL found?)"
}

# <folder>: its physical path (the launcher sees itself through /proc/self/exe).
physical_path() {
    (cd "$1" && pwd -P)
}
