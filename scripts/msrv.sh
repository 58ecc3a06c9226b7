#!/usr/bin/env bash
# Prove the declared minimum Rust version: check the workspace, all targets,
# with the toolchain named by `rust-version` in the root Cargo.toml (installed
# here if missing, minimal profile), so the declaration and the check never
# drift. A target dir of its own keeps the main build cache untouched.
# The fuzz, bench and python crates are outside the workspace and declare no
# rust-version.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/bootstrap.sh
ver="$(sed -n 's/^rust-version *= *"\([0-9.]*\)".*/\1/p' Cargo.toml | head -n 1)"
if [ -z "$ver" ]; then
    echo "msrv: no rust-version in Cargo.toml" >&2
    exit 1
fi
if ! RUSTUP_AUTO_INSTALL=0 rustup run "$ver" rustc --version >/dev/null 2>&1; then
    echo "msrv: installing Rust $ver (minimal profile)" >&2
    rustup toolchain install "$ver" --profile minimal
fi
echo "msrv: cargo +$ver check --workspace --all-targets" >&2
CARGO_TARGET_DIR=target/msrv \
    cargo "+$ver" check --workspace --all-targets --locked
echo "msrv: the workspace builds with Rust $ver" >&2
