#!/usr/bin/env bash
# Installs everything needed to build, test and benchmark perfmarker on Debian 12, by package
# name. Safe to run again: when every package is already installed, apt is not touched at all.
#
# Environment:
#   PERFMARKER_SKIP_APT=1   do nothing (for machines prepared some other way)
set -euo pipefail

packages=(
    build-essential cmake ninja-build pkg-config
    dpkg-dev file    # dpkg-shlibdeps for `cpack -G DEB` (cmake/PerfmarkerPackaging.cmake)
    libgtest-dev libgmock-dev libbenchmark-dev
    libconcurrentqueue-dev
    ocl-icd-opencl-dev opencl-headers pocl-opencl-icd clinfo
    libhsa-runtime-dev
    libdw-dev        # elfutils: call sites symbolized after the run (src/atp/symbols)
    libpfm4-dev      # perf event names for the profile mode's counters (src/profile/counters)
    libcli11-dev libfmt-dev nlohmann-json3-dev
    libotf2-trace-dev libopen-trace-format2-dev otf2-tools   # export --format otf2 (docs/otf2.md)
    libsqlite3-dev sqlite3                                   # export --format sqlite (docs/sqlite.md)
    python3-pyopencl
    clang libclang-rt-14-dev
    chromium
)

if [[ "${PERFMARKER_SKIP_APT:-0}" == 1 ]]; then
    echo "bootstrap: PERFMARKER_SKIP_APT=1, not installing packages"
    exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
    echo "bootstrap: apt-get not found; install these packages by hand (or set PERFMARKER_SKIP_APT=1):" >&2
    echo "  ${packages[*]}" >&2
    exit 1
fi

missing=()
for package in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${db:Status-Status}' "$package" 2>/dev/null || true)
    if [[ "$status" != installed ]]; then
        missing+=("$package")
    fi
done

if [[ ${#missing[@]} -eq 0 ]]; then
    echo "bootstrap: all ${#packages[@]} packages already installed"
    exit 0
fi

sudo=()
if [[ "$(id -u)" -ne 0 ]]; then
    sudo=(sudo)
fi

echo "bootstrap: installing ${missing[*]}"
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    "${missing[@]}"
