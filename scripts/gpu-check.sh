#!/usr/bin/env bash
# Hardware check on an NVIDIA GPU (written for sm_90 / H200): runs every committed
# compact vector legal on the target, plus every input of every variant whose
# sources total 16 bits or less, and checks each result against the oracle on all
# host cores. Needs only the built binary and the driver (no CUDA toolkit).
#
#   scripts/gpu-check.sh [OUT_DIR] [TARGET]      (defaults: gpu-check-out, sm_90)
#   PTX_CVT=/path/to/ptx-cvt scripts/gpu-check.sh
#   PTX_CVT_GPU_FILTER='cvt.*.f16' scripts/gpu-check.sh   # only variants matching a glob
#
# Writes OUT_DIR/{vectors,exhaustive}/<variant>.cases (the GPU's answers as case
# lines, re-checkable with `ptx-cvt check`; for the exhaustive sweeps only the
# answers the oracle leaves open, `--keep open`), mismatches.cases, summary.txt,
# and OUT_DIR/SUMMARY.md. Exit 0 when everything matches, 1 on mismatches, 2 on errors.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${PTX_CVT:-$root/target/release/ptx-cvt}"
out="${1:-gpu-check-out}"
target="${2:-sm_90}"
if [ ! -x "$bin" ]; then
    echo "gpu-check: $bin not found; build it first: cargo build --release -p ptx-cvt-cli" >&2
    exit 2
fi
mkdir -p "$out"
status=0
filter=()
if [ -n "${PTX_CVT_GPU_FILTER:-}" ]; then filter=(--filter "$PTX_CVT_GPU_FILTER"); fi
run() {
    local name="$1"; shift
    local start=$SECONDS
    "$bin" gpu --target "$target" "${filter[@]}" --out "$out/$name" "$@" >"$out/$name.log" 2>&1
    local rc=$?
    echo "$name: exit $rc, $((SECONDS - start)) s: $(tail -n 1 "$out/$name.log")"
    if [ "$rc" -gt "$status" ]; then status=$rc; fi
}
run vectors "$root"/vectors/compact/*.cases
run exhaustive --exhaustive --keep open
{
    echo "# ptx-cvt GPU check ($target)"
    echo
    echo "binary: $("$bin" --version)"
    command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | sed 's/^/gpu: /'
    echo
    for name in vectors exhaustive; do
        echo "## $name"
        echo
        tail -n 1 "$out/$name.log"
        if [ -f "$out/$name/summary.txt" ]; then
            echo
            echo "variants that did not pass (variant, cases, mismatches, status):"
            awk -F'\t' '!/^#/ && $1 != "variant" && $4 != "ok" { print; n++ } END { if (!n) print "(none)" }' "$out/$name/summary.txt"
        fi
        echo
    done
} >"$out/SUMMARY.md"
cat "$out/SUMMARY.md"
exit "$status"
