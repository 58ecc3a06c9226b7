#!/usr/bin/env bash
# The test command: installs build needs, then runs every test: the Rust
# workspace, then the Python package's (in a virtual environment).
#   scripts/test.sh            every test, the large equivalence checks at a
#                              size that finishes in minutes
#   scripts/test.sh --full     the same checks at full size (CI runs this)
# Other arguments go to `cargo test`.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
args=()
for a in "$@"; do
    if [ "$a" = "--full" ]; then
        export PTX_CVT_FULL=1
    else
        args+=("$a")
    fi
done
scripts/bootstrap.sh
cargo test --workspace --locked ${args[@]+"${args[@]}"}
scripts/test-python.sh
