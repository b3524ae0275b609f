#!/bin/sh
# Runs a small HSA program under the agent on real hardware and checks its .atp.
# usage: run_hardware_test.sh <app> <libHSATraceAgent.so> <work dir>; exit 77 = skipped.
set -eu
app=$1
agent=$2
dir=$3
if [ ! -e /dev/kfd ]; then
    echo "no /dev/kfd: needs an AMD GPU with the ROCm kernel driver (skipped)"
    exit 77
fi
rm -rf "$dir"
mkdir -p "$dir"
HSA_TOOLS_LIB="$agent" PERFMARKER_OUTPUT="$dir/trace" PERFMARKER_TMPDIR="$dir" "$app"
atp="$dir/trace.atp"
for expected in "=====hsa API Trace Output=====" "hsa_init (  )" "hsa_queue_create (" \
                "hsa_signal_store_relaxed (" "=====hsa Timestamp Output=====" "hsa_shut_down (  )"; do
    if ! grep -qF "$expected" "$atp"; then
        echo "FAIL: $atp lacks '$expected'" >&2
        exit 1
    fi
done
echo "ok: $atp"
