#!/usr/bin/env bash
# Install what building ptx-cvt needs on a fresh Debian machine: rug's GMP is
# built from source (gmp-mpfr-sys, cached under ~/.cache afterwards), which needs m4.
set -euo pipefail
if ! command -v m4 >/dev/null 2>&1; then
    echo "bootstrap: installing m4 (needed once to build GMP from source)" >&2
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update -qq >&2
    $SUDO apt-get install -y -qq m4 >&2
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "bootstrap: cargo not found; install Rust (rustup) first" >&2
    exit 1
fi
