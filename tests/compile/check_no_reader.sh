#!/bin/sh
# Checks that a binary carries none of the .atp reader's code (docs/architecture.md#modules: the
# agents link the format, write and merge modules only). Fails, listing them, when any symbol
# of the reader (src/atp/read: the parser, its parts, its read-ahead, its scanning) is in it.
#
# usage: check_no_reader.sh <nm> <binary>
set -eu

nm=$1
binary=$2
found=$("$nm" -C "$binary" 2>/dev/null |
    grep -E 'perfmarker::atp::(TraceParser|TraceListener|AtpPart|SectionContext|LineCursor|detail::)' ||
    true)
if [ -n "$found" ]; then
    echo "FAIL: $binary carries reader code:" >&2
    echo "$found" | head -20 >&2
    exit 1
fi
echo "OK: $binary carries no reader code"
