#!/usr/bin/env bash
# One shard of an array job: the atlas (`atlas`) or a sweep of one variant
# (`sweep VARIANT`). The shard index and count come from the scheduler:
#   Slurm job array:          SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT
#   Kubernetes Indexed Job:   JOB_COMPLETION_INDEX, SHARDS (set in the manifest)
# Environment: OUT (output folder, shared by all shards), PTX_CVT (the binary,
# default `ptx-cvt`), MAX_BITS (atlas: 8, 16 or 32; default 32), JOBS (threads).
# Writes OUT/part-K (atlas) or OUT/sweep-K.json (sweep), complete or not at all.
set -euo pipefail
k="${SLURM_ARRAY_TASK_ID:-${JOB_COMPLETION_INDEX:-}}"
n="${SLURM_ARRAY_TASK_COUNT:-${SHARDS:-}}"
if [[ -z "$k" || -z "$n" ]]; then
    echo "error: no shard index: set SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT or JOB_COMPLETION_INDEX/SHARDS" >&2
    exit 2
fi
: "${OUT:?set OUT to the shared output folder}"
ptx="${PTX_CVT:-ptx-cvt}"
jobs=()
[[ -n "${JOBS:-}" ]] && jobs=(--jobs "$JOBS")
mkdir -p "$OUT"
case "${1:-}" in
    atlas)
        exec "$ptx" atlas gen --max-bits "${MAX_BITS:-32}" --shard "$k/$n" "${jobs[@]}" --out "$OUT/part-$k"
        ;;
    sweep)
        [[ -n "${2:-}" ]] || { echo "error: sweep needs a variant, e.g. sweep cvt.rn.f16.f32" >&2; exit 2; }
        tmp="$OUT/.sweep-$k.json.tmp"
        # Exit 1 (mismatches) still leaves a complete result; only 2 is a failure.
        status=0
        "$ptx" sweep "$2" --shard "$k/$n" "${jobs[@]}" --json > "$tmp" || status=$?
        if (( status == 2 )); then rm -f "$tmp"; exit 2; fi
        mv "$tmp" "$OUT/sweep-$k.json"
        ;;
    *)
        echo "usage: shard.sh atlas | shard.sh sweep VARIANT" >&2
        exit 2
        ;;
esac
