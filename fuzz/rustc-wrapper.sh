#!/bin/sh
# rustc wrapper for this repository (build.rustc-wrapper in .cargo/config.toml).
#
# cargo-fuzz builds pass nightly-only flags to rustc (-Zsanitizer=address by
# default). A stable rustc accepts them when RUSTC_BOOTSTRAP=1 is in its
# environment, so this wrapper sets it for cargo-fuzz builds only — recognised
# by the `--cfg fuzzing` that cargo-fuzz always adds — and runs every other
# rustc invocation exactly as cargo asked. That is what makes `cargo fuzz run
# cvt` work at the repository root on a stable toolchain (fuzz/README.md).
#
# Cargo calls it as: rustc-wrapper.sh /path/to/rustc ARGS...
prev=
for arg in "$@"; do
    if { [ "$prev" = "--cfg" ] && [ "$arg" = "fuzzing" ]; } || [ "$arg" = "--cfg=fuzzing" ]; then
        RUSTC_BOOTSTRAP=1
        export RUSTC_BOOTSTRAP
        break
    fi
    prev=$arg
done
exec "$@"
