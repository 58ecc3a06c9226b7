#!/usr/bin/env bash
# After every shard of deploy/shard.sh finished: join their outputs.
#   combine.sh atlas DIR   ->  the atlas folder DIR (from OUT/part-*)
#   combine.sh sweep       ->  the combined sweep result (from OUT/sweep-*.json) on stdout
set -euo pipefail
: "${OUT:?set OUT to the shared output folder}"
ptx="${PTX_CVT:-ptx-cvt}"
case "${1:-}" in
    atlas) exec "$ptx" atlas merge "$OUT"/part-* --out "${2:?combine.sh atlas DIR}" ;;
    sweep) exec "$ptx" combine "$OUT"/sweep-*.json ;;
    *) echo "usage: combine.sh atlas DIR | combine.sh sweep" >&2; exit 2 ;;
esac
