#!/usr/bin/env bash
# Instructions per conversion of the exact engine's prepared, trace-free
# `Evaluator::accept` and of the naive rug f32→f16 conversion (BENCHMARKS.md,
# "The exact engine after issue 36"), counted by callgrind: deterministic, so
# comparable on a loaded machine. Each form runs 1 and 11 passes over the
# benchmark's 4096 inputs; the difference over 10 × 4096 is one conversion
# (one value: e4m3x2 converts two per instruction), setup excluded.
#   scripts/exact-callgrind.sh [FORM...]   (naive s32 f64 f16 bf16 u64 e4m3x2)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export CARGO_TARGET_DIR="$root/target/prof" CARGO_PROFILE_RELEASE_DEBUG=line-tables-only
cargo build --release --locked -j2 -p ptx-cvt --example exact_profile --manifest-path "$root/Cargo.toml" >&2
bin="$CARGO_TARGET_DIR/release/examples/exact_profile"
out="$(mktemp -d)"
count() { valgrind --tool=callgrind --callgrind-out-file="$out/cg.$1.$2" "$bin" "$1" "$2" 2>&1 | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'; }
for form in "${@:-naive s32 f64 f16 bf16 u64 e4m3x2}"; do
    for f in $form; do
        a=$(count "$f" 1) b=$(count "$f" 11)
        echo "$f $(((b - a) / 40960))"
    done
done
echo "callgrind files: $out" >&2
