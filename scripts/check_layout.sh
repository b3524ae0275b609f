#!/usr/bin/env bash
# The house rules of docs/architecture.md#layout, checked: no folder of src/ or profiler_hooks/
# holds more than 24 source files or 3,500 lines directly, and no hand-written source file
# (generated tables, *.inc, excepted) in src/, profiler_hooks/, tests/ or bench/ passes 700
# lines. Prints every breach and exits 1 if there is one.
# Usage: bash scripts/check_layout.sh [repository root]
set -euo pipefail
root=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)}
cd "$root"
status=0
is_source() { [[ "$1" =~ \.(c|cc|cpp|h|hpp|inc)$ ]]; }
while IFS= read -r dir; do
    files=0
    lines=0
    for f in "$dir"/*; do
        [[ -f "$f" ]] && is_source "$f" || continue
        files=$((files + 1))
        lines=$((lines + $(wc -l <"$f")))
    done
    if ((files > 24 || lines > 3500)); then
        echo "check_layout: $dir holds $files source files, $lines lines (at most 24 and 3500)"
        status=1
    fi
done < <(find src profiler_hooks -type d | sort)
while IFS= read -r f; do
    [[ "$f" == *.inc ]] && continue
    n=$(wc -l <"$f")
    if ((n > 700)); then
        echo "check_layout: $f has $n lines (at most 700)"
        status=1
    fi
done < <(find src profiler_hooks tests bench -type f | grep -E '\.(c|cc|cpp|h|hpp|inc)$' | sort)
[[ $status -eq 0 ]] && echo "check_layout: every folder and file within the limits"
exit $status
