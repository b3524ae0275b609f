#!/bin/sh
# Runs one sample under a perfmarker session and checks the marker file it leaves.
# usage: run_sample.sh <sample executable> <extension: clperfmarker|amdtperfmarker> <work dir>
set -eu

sample=$1
extension=$2
work=$3

rm -rf "$work"
mkdir -p "$work"
output="$work/sample.$extension"

PERFMARKER_OUTPUT="$work/sample" PERFMARKER_MODE=timeout "$sample"

if [ ! -s "$output" ]; then
    echo "FAIL: $sample left no $output" >&2
    exit 1
fi
first_line=$(head -n 1 "$output")
if [ "$first_line" != "=====Perfmarker Output=====" ]; then
    echo "FAIL: $output starts with '$first_line'" >&2
    exit 1
fi
begins=$(grep -c '^clBeginPerfMarker' "$output" || true)
ends=$(grep -c '^clEndPerfMarker' "$output" || true)
if [ "$begins" -eq 0 ] || [ "$begins" -ne "$ends" ]; then
    echo "FAIL: $output has $begins begin and $ends end lines" >&2
    exit 1
fi
echo "PASS: $output, $begins markers"
