#!/usr/bin/env bash
# Install what building ptx-cvt needs on a fresh Debian machine: rug's GMP is
# built from source (gmp-mpfr-sys, cached under ~/.cache afterwards), which needs m4.
set -euo pipefail
if ! command -v m4 >/dev/null 2>&1; then
    echo "bootstrap: installing m4 (needed once to build GMP from source)" >&2
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    log="$(mktemp)"
    # apt's own chatter only if it fails.
    if ! { $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq m4; } >"$log" 2>&1; then
        cat "$log" >&2
        rm -f "$log"
        echo "bootstrap: could not install m4 (apt-get failed, above); install it and run again" >&2
        exit 1
    fi
    rm -f "$log"
fi
if ! command -v cargo >/dev/null 2>&1; then
    echo "bootstrap: cargo not found; install Rust (rustup) first" >&2
    exit 1
fi
