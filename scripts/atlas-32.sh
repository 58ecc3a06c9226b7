#!/usr/bin/env bash
# Adds every variant with 32-bit sources (451 today) to the atlas folder
# (default vectors/atlas) with the fast engine on all cores, then rewrites its
# MANIFEST. About 9 minutes on an idle 2-core AVX-512 machine (BENCHMARKS.md,
# "Digest atlas"); deploy/ spreads it over a cluster.
#   scripts/atlas-32.sh [DIR] [--filter GLOB ...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${1:-$root/vectors/atlas}"
shift || true
cd "$root"
cargo build --release -q -p ptx-cvt-cli
# --max-bits 32 recomputes the ≤16-bit part too (about a second).
time target/release/ptx-cvt atlas gen --max-bits 32 --out "$dir" "$@"
