#!/usr/bin/env bash
# The habits CI enforces: formatting (rustfmt.toml), clippy with warnings as
# errors (the workspace, the fuzz crate, the bench crate's library),
# rustdoc without warnings, and `cargo package` of the publishable packages
# (ptx-cvt, ptx-cvt-harness, ptx-cvt-cli). Run after scripts/bootstrap.sh
# (GMP needs m4).
# The bench crate's benchmarks are not linted: SoftFloat needs cmake.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/bootstrap.sh
echo "lint: cargo fmt --check" >&2
cargo fmt --all --check
(cd fuzz && cargo fmt --check)
(cd bench && cargo fmt --check)
echo "lint: cargo clippy -D warnings" >&2
cargo clippy --workspace --all-targets --locked -- -D warnings
(cd fuzz && cargo clippy --all-targets --locked -- -D warnings)
(cd bench && cargo clippy --lib --locked -- -D warnings)
echo "lint: cargo doc (warnings are errors)" >&2
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked
echo "lint: cargo package (each publishable package builds from its packaged sources)" >&2
# Cargo keeps the packaged workspace crates it verifies against as registry
# sources (same name and version every time) and never rebuilds those: drop
# earlier copies so a machine that packaged before verifies today's sources.
rm -rf "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ptx-cvt-0.1.0 "${CARGO_HOME:-$HOME/.cargo}"/registry/src/*/ptx-cvt-harness-0.1.0
cargo clean -p ptx-cvt -p ptx-cvt-harness --quiet 2>/dev/null || true
cargo package -p ptx-cvt -p ptx-cvt-harness -p ptx-cvt-cli --locked --quiet
echo "lint: all clean" >&2
