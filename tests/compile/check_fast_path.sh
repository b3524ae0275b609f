#!/bin/sh
# Runs fast_path_app and checks the marker files it wrote: the markers recorded through the
# headers' inline calls and through the exported functions are all there.
# usage: check_fast_path.sh <fast_path_app> <work dir>
set -eu
app=$1
dir=$2
rm -rf "$dir"
mkdir -p "$dir"
"$app" "$dir/run"
for f in "$dir/run.clperfmarker" "$dir/run.amdtperfmarker"; do
    [ -f "$f" ] || { echo "FAIL: $f was not written" >&2; exit 1; }
done
cl=$(grep -c . "$dir/run.clperfmarker")
grep -q 'inline' "$dir/run.clperfmarker" || { echo "FAIL: no inline marker in the CL file" >&2; exit 1; }
grep -q 'called' "$dir/run.clperfmarker" || { echo "FAIL: no called marker in the CL file" >&2; exit 1; }
grep -q 'done' "$dir/run.amdtperfmarker" || { echo "FAIL: no end-ex marker in the AL file" >&2; exit 1; }
if grep -q 'late' "$dir/run.clperfmarker" "$dir/run.amdtperfmarker"; then
    echo "FAIL: a marker after finalize was recorded" >&2
    exit 1
fi
echo "fast path: $cl lines in run.clperfmarker, markers from both paths present"
