#!/usr/bin/env bash
# Recomputes every block of the atlas folder (default vectors/atlas) with the
# fast engine and compares; not part of the test command (tests/atlas.rs
# recomputes the ≤16-bit part and a random sample of 32-bit blocks with the
# exact engine). Exit status 0 when every block is equal.
#   scripts/atlas-verify.sh [DIR] [--filter GLOB ...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${1:-$root/vectors/atlas}"
shift || true
cd "$root"
cargo build --release -q -p ptx-cvt-cli
time target/release/ptx-cvt atlas check "$dir" "$@"
