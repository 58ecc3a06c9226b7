#!/bin/sh
# --isolate against in-process: `ptx-cvt check --target-lib` over the
# committed compact vectors, the library capi/examples/toy_impl.c
# (BENCHMARKS.md, "check --isolate"). Runs the two alternately, RUNS times
# each (default 7), and prints each wall time and the medians.
#   scripts/bench-isolate.sh [PTX_CVT_BINARY] [RUNS]
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$here/target/release/ptx-cvt}
runs=${2:-7}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -shared -fPIC -O2 -std=c99 -I"$here/capi/include" "$here/capi/examples/toy_impl.c" -o "$tmp/libtoy.so"
wall() { # wall seconds of one run (its output discarded; exit 0 expected)
    s=$(date +%s.%N)
    "$bin" check -q "$@" "$here/vectors/compact" > /dev/null
    e=$(date +%s.%N)
    echo "$e - $s" | bc
}
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
: > "$tmp/in"; : > "$tmp/iso"
i=0
while [ "$i" -lt "$runs" ]; do
    wall --target-lib "$tmp/libtoy.so" >> "$tmp/in"
    wall --target-lib "$tmp/libtoy.so" --isolate >> "$tmp/iso"
    i=$((i + 1))
done
echo "in-process: $(tr '\n' ' ' < "$tmp/in")"
echo "isolate:    $(tr '\n' ' ' < "$tmp/iso")"
a=$(median < "$tmp/in"); b=$(median < "$tmp/iso")
echo "median in-process $a s, isolate $b s, ratio $(echo "scale=2; $b / $a" | bc)"
