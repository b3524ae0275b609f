#!/bin/sh
# Checks the ABI surface of one shared library: the sorted list of exported (defined, dynamic)
# symbols must equal a committed list, every one of them must carry a symbol version (the
# linker version script was applied), and the SONAME must be set.
#
# usage: check_exported_symbols.sh <nm> <readelf> <library.so> <expected list> <expected soname>
set -eu

nm=$1
readelf=$2
library=$3
expected_list=$4
expected_soname=$5

status=0

# `nm -D --defined-only` lines: "<address> <type> <name>[@@VERSION]". Type A is the version
# definition itself, not a symbol of the API.
symbols=$("$nm" -D --defined-only "$library" | awk '$2 != "A" { print $3 }')
if echo "$symbols" | grep -q '@'; then
    unversioned=$(echo "$symbols" | grep -v '@' || true)
    if [ -n "$unversioned" ]; then
        echo "FAIL: symbols without a version (version script not applied?):" >&2
        echo "$unversioned" >&2
        status=1
    fi
fi

actual=$(echo "$symbols" | sed 's/@.*//' | LC_ALL=C sort -u)
expected=$(cat "$expected_list")
if [ "$expected" != "$(LC_ALL=C sort -u "$expected_list")" ]; then
    echo "FAIL: $expected_list must be sorted (LC_ALL=C sort -u)" >&2
    status=1
fi
if [ "$actual" != "$expected" ]; then
    echo "FAIL: exported symbols of $library differ from $expected_list" >&2
    printf '%s\n' "$actual" | diff -u "$expected_list" - >&2 || true
    status=1
else
    echo "exported symbols: $(echo "$actual" | wc -l) as listed in $(basename "$expected_list")"
fi

soname=$("$readelf" -d "$library" | sed -n 's/.*(SONAME).*\[\(.*\)\].*/\1/p')
if [ "$soname" != "$expected_soname" ]; then
    echo "FAIL: SONAME of $library is '$soname', expected '$expected_soname'" >&2
    status=1
else
    echo "SONAME: $soname"
fi

exit $status
