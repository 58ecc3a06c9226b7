#!/usr/bin/env bash
# Fuzz smoke run: each cargo-fuzz target (fuzz/) for FUZZ_SECONDS seconds
# (default 30), starting from the committed seeds. Installs the pinned
# cargo-fuzz if it is missing or another version (`cargo install cargo-fuzz
# --version $CARGO_FUZZ_VERSION --locked`, a few minutes). Fails if a
# target finds a mismatch or a panic: the case line is printed and the input
# saved under fuzz/artifacts/<target>/ (see fuzz/README.md).
#
# Sanitizer: FUZZ_SANITIZER (default none: 5-7x the executions of ASan, which
# finds nothing in this safe-Rust code that a panic would not; `address` is
# what a plain `cargo fuzz run` uses).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
secs="${FUZZ_SECONDS:-30}"
sanitizer="${FUZZ_SANITIZER:-none}"

# Upgrading the pin is a deliberate commit.
CARGO_FUZZ_VERSION=0.13.2
if [ "$(cargo fuzz --version 2>/dev/null)" != "cargo-fuzz $CARGO_FUZZ_VERSION" ]; then
    echo "fuzz-smoke: installing cargo-fuzz $CARGO_FUZZ_VERSION (cargo install --locked, a few minutes)" >&2
    cargo install cargo-fuzz --version "$CARGO_FUZZ_VERSION" --locked --force
fi
# On stable, cargo-fuzz's -Z flags (any sanitizer but none) reach rustc through
# the wrapper named in .cargo/config.toml; a RUSTC_WRAPPER from the
# environment replaces it.
if [ -n "${RUSTC_WRAPPER:-}" ] && [ "$sanitizer" != none ]; then
    export RUSTC_BOOTSTRAP=1
fi

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
status=0
for target in cvt parse; do
    mkdir -p "$scratch/$target"
    log="$scratch/$target.log"
    echo "fuzz-smoke: $target for ${secs}s (sanitizer $sanitizer)" >&2
    # New corpus entries go to the scratch directory, not the committed seeds.
    if cargo fuzz run --sanitizer "$sanitizer" "$target" "$scratch/$target" "fuzz/corpus/$target" -- \
        -max_total_time="$secs" -print_final_stats=1 >"$log" 2>&1; then
        runs="$(grep -m1 '^stat::number_of_executed_units' "$log" | awk '{print $2}')"
        echo "fuzz-smoke: $target ok: ${runs:-?} runs, $(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -1 | sed -E 's/^#[0-9]+[[:space:]]+DONE[[:space:]]+//')" >&2
    else
        status=1
        echo "fuzz-smoke: $target FAILED" >&2
        # The panic message (with the case line) and cargo-fuzz's summary
        # (the saved input, how to reproduce and minimize it); else the end
        # of the output (e.g. a build error).
        report="$(awk '/panicked at/ {p = 1} /^stack backtrace:/ {p = 0} p' "$log")"
        summary="$(awk '/^Failing input:/ {p = 1} /^Minimize test case with:/ {m = 1} p {print} m && /cargo fuzz tmin/ {exit}' "$log")"
        if [ -n "$report$summary" ]; then
            printf '%s\n\n%s\n' "$report" "$summary" >&2
        else
            tail -n 60 "$log" >&2
        fi
    fi
done
exit "$status"
