#!/bin/sh
# `perfmarker trace --hsa` end to end, with the fake runtime application: the launcher must add
# the agent to HSA_TOOLS_LIB after the tools already there, and the .atp must hold the HSA
# sections. usage: run_cli_hsa_test.sh <perfmarker> <fake_runtime_app> <work dir>
set -eu
perfmarker=$1
app=$2
dir=$3
rm -rf "$dir"
mkdir -p "$dir"
HSA_TOOLS_LIB="libsomeothertool.so" "$perfmarker" trace --hsa -o "$dir/run.atp" -- "$app" \
    > "$dir/stdout.txt" 2> "$dir/stderr.txt"
fail() { echo "FAIL: $1" >&2; cat "$dir/stdout.txt" "$dir/stderr.txt" >&2; exit 1; }
grep -q '^HSA_TOOLS_LIB=libsomeothertool.so /.*/libHSATraceAgent.so$' "$dir/stdout.txt" ||
    fail "HSA_TOOLS_LIB does not keep the user's tool and add the agent"
grep -q "could not load the tool libsomeothertool.so" "$dir/stderr.txt" ||
    fail "the failed tool was not reported"
for expected in "=====hsa API Trace Output=====" "=====hsa Timestamp Output=====" \
                "=====hsa Kernel Timestamp Output=====" "HSA_STATUS_SUCCESS = hsa_init (  )" \
                "reduce(float*&comma;&nbsp;float*&comma;&nbsp;int)" "hsa_shut_down (  )"; do
    grep -qF "$expected" "$dir/run.atp" || fail "$dir/run.atp lacks '$expected'"
done
echo ok
