#!/usr/bin/env bash
# Throughput of `ptx-cvt check` on a large results file (BENCHMARKS.md,
# "check throughput"), against two peers in the same run: `wc -l` on the
# same file, and bench/check-floor.rs (one thread reading the file in blocks
# and hex-parsing every operand and result: the floor of any checker).
# The file is the committed compact vectors concatenated COPIES times (20:
# 5.43 M case lines, 380 MB). Every program runs RUNS times, interleaved;
# wall and CPU time and peak memory come from /usr/bin/time.
#   scripts/bench-check.sh [--copies N] [--runs R] [--before PTX_CVT_BINARY]
# --before adds another ptx-cvt binary (e.g. one built from an older commit).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
copies=20 runs=3 before=""
while [ $# -gt 0 ]; do
    case "$1" in
        --copies) copies="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        --before) before="$(realpath "$2")"; shift 2 ;;
        *) echo "usage: $0 [--copies N] [--runs R] [--before PTX_CVT_BINARY]" >&2; exit 2 ;;
    esac
done
[ -x /usr/bin/time ] || { echo "error: needs /usr/bin/time (GNU time) for CPU time and peak memory" >&2; exit 2; }
cd "$root"
cargo build --release -q -p ptx-cvt-cli
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rustc -O --edition 2021 -o "$work/check-floor" bench/check-floor.rs
cat vectors/compact/*.cases > "$work/one.cases"
for _ in $(seq "$copies"); do cat "$work/one.cases"; done > "$work/big.cases"
rm "$work/one.cases"
lines=$(wc -l < "$work/big.cases")
cases=$(grep -c -v '^[[:space:]]*\(#.*\)\{0,1\}$' "$work/big.cases")
echo "file: $(du -m "$work/big.cases" | cut -f1) MB, $lines lines, $cases case lines; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-14s %8s %8s %14s %16s %8s\n' program "wall s" "CPU s" "M cases/s" "M cases/CPU-s" "peak MB"

# measure NAME EXPECTED-OUTPUT-PATTERN COMMAND...
measure() {
    local name="$1" want="$2"
    shift 2
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" > "$work/out" 2> "$work/err" || true
    if ! grep -q -- "$want" "$work/out"; then
        echo "error: $name did not print \`$want\`:" >&2
        cat "$work/out" "$work/err" >&2
        exit 1
    fi
    read -r wall user sys rss < <(tail -1 "$work/time")
    awk -v n="$name" -v w="$wall" -v u="$user" -v s="$sys" -v m="$rss" -v c="$cases" 'BEGIN {
        cpu = u + s; printf "%-14s %8.2f %8.2f %14.2f %16.2f %8.1f\n", n, w, cpu, c / w / 1e6, c / cpu / 1e6, m / 1024 }'
}

for _ in $(seq "$runs"); do
    measure "wc -l" "$lines" wc -l "$work/big.cases"
    measure "check-floor" "^$cases " "$work/check-floor" "$work/big.cases"
    measure "ptx-cvt check" "^$cases passed, 0 failed" target/release/ptx-cvt check "$work/big.cases"
    if [ -n "$before" ]; then
        measure "--before" "^$cases passed, 0 failed" "$before" check "$work/big.cases"
    fi
done
