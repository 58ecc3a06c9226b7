#!/usr/bin/env bash
# The test command: installs build needs, then runs every test: the Rust
# workspace, then the Python package's (in a virtual environment).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/bootstrap.sh
cargo test --workspace --locked "$@"
scripts/test-python.sh
