#!/bin/sh
# `perfmarker report` from the command line: a report of fixture traces, and every failure with
# its exit status and message. Usage: cli_test.sh PERFMARKER FIXTURES_DIR WORK_DIR
set -u
perfmarker=$1
fixtures=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# expect STATUS PATTERN -- ARGS...: runs `perfmarker report ARGS`, checks the status and that
# stdout+stderr match the grep pattern.
expect() {
    status=$1
    pattern=$2
    shift 3
    "$perfmarker" report "$@" >"$work/out.txt" 2>&1
    got=$?
    [ "$got" -eq "$status" ] || fail "report $*: exit $got, expected $status ($(cat "$work/out.txt"))"
    grep -q -- "$pattern" "$work/out.txt" || fail "report $*: output lacks '$pattern': $(cat "$work/out.txt")"
}

expect 0 "2 processes" -- "$fixtures/ocl_vecadd.atp" "$fixtures/hsa_reduce.atp" -o "$work/ok.html" \
    --title "Fixture <run>" --max-items 10
grep -q "<title>Fixture &lt;run&gt;</title>" "$work/ok.html" || fail "title not written escaped"
grep -q 'id="cap-notice">Showing the 10 longest of' "$work/ok.html" || fail "no cap notice"
grep -q '<td>clBuildProgram</td>' "$work/ok.html" || fail "no API summary row"

expect 1 "bad_count.atp:[0-9][0-9]*: expected" -- "$fixtures/bad_count.atp" -o "$work/bad.html"
[ ! -e "$work/bad.html" ] || fail "a report was written for a bad trace"
expect 1 "missing.atp: cannot open" -- "$work/missing.atp" -o "$work/bad.html"
expect 1 "$work/no/such/dir/r.html: cannot create" -- "$fixtures/ocl_vecadd.atp" -o "$work/no/such/dir/r.html"
if [ -w /dev/full ]; then
    expect 1 "/dev/full: write failed" -- "$fixtures/ocl_vecadd.atp" -o /dev/full
fi
expect 2 "output is required" -- "$fixtures/ocl_vecadd.atp"
expect 2 "max-items" -- "$fixtures/ocl_vecadd.atp" -o "$work/r.html" --max-items 0
expect 2 "traces is required" -- -o "$work/r.html"

[ "$failures" -eq 0 ] && echo "ok: perfmarker report command line"
[ "$failures" -eq 0 ]
