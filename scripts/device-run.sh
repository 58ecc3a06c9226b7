#!/usr/bin/env bash
# The first run of ptx-cvt on silicon (written for one H200, sm_90, through the
# device tool): cheapest and most informative steps first, each under its own
# time limit, every step's results packed into $OUT as soon as it ends, so a run
# cut short still brings home everything finished.
#
#   device tool: run(command="bash scripts/device-run.sh",
#                    carry=["target/release/ptx-cvt"], timeout_s=540)
#   here, on the stand-in driver (docs/gpu.md, "Testing the GPU path without a GPU"):
#     LD_LIBRARY_PATH=/tmp/standin OUT=/tmp/device-out bash scripts/device-run.sh
#
# Needs the release binary (`cargo build --release -p ptx-cvt-cli`, about 4 MB,
# glibc 2.34 or newer), the NVIDIA driver (no CUDA toolkit) and vectors/compact/.
#
# Steps (limits in seconds; the total stays under PTX_CVT_DEVICE_BUDGET, 480):
#   1 smoke       one kernel, every input of cvt.f32.f16                    60
#   2 vectors     every compact vector legal on sm_90 (856 variants)       150
#   3 exhaustive  every input of every variant with <=16 source bits       150
#   4 open        deep-level inputs of the >16-bit variants behind the
#                 README's open questions (.ftz, .relu, tf32, same-type
#                 NaN bits, f64 NaN -> 8/16-bit ints, .satfinite)           120
# If the smoke test fails, nothing else runs (it would fail the same way and
# spend the lease): the log says why. A missing libcuda is looked for under
# the usual driver folders; a driver whose JIT refuses PTX ISA 8.7 is retried
# at 8.4, 8.0 and 7.8 (later steps use the version that loaded).
#
# When the smoke test fails, read its error (RESULTS.md, smoke.log) and give
# the machine back; then, on the CPU:
#   no CUDA driver          libcuda.so is nowhere the script looked: find the
#                           driver's folder on the machine and put it on
#                           LD_LIBRARY_PATH in the next run's command
#   CUDA device 0: ...      no usable GPU (NO_DEVICE, INVALID_DEVICE): nothing
#                           to fix here; say so in the issue
#   INVALID_PTX + JIT log   the log names the kernel and line: reproduce with
#                           `ptx-cvt ptx --target sm_90 --ptx-version 8.7` and
#                           ptxas (scripts/get-ptxas.sh), fix `ptx-cvt ptx`
#   cannot run on it        the device is older than sm_90: use --target sm_80
#   the binary does not run glibc older than 2.34 there: build on an older one
#   anything else           reproduce it on the stand-in driver (docs/gpu.md,
#                           PTX_CVT_STANDIN_FAULTS) and fix `ptx-cvt gpu`
# Mismatches are findings, not failures: the run goes on (exit 1).
# Afterwards: `tar xzf vectors.tar.gz && ptx-cvt check vectors/*.cases`
# re-checks the recorded answers (also with --profile isa).
#
# Brought back in $OUT (at most 8 files): device-run.log (everything, as it
# happens), RESULTS.md (rewritten after each step), <step>.tar.gz per step
# (the `ptx-cvt gpu --out` folder: summary.txt, mismatches.cases, and the
# recorded answers: all of them for smoke and vectors, only those the oracle
# leaves open (`--keep open`) for exhaustive and open).
# Exit status: 0 all matched, 1 mismatches, 2 a step could not run.
# PTX_CVT_DEVICE_FILTER=GLOB limits steps 2-4 to the variants it matches (tests).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${PTX_CVT:-$root/target/release/ptx-cvt}"
out="${OUT:?OUT must name the folder to bring back (the device tool sets it)}"
if [ -n "${PTX_CVT_DEVICE_WORK:-}" ]; then
    work="$PTX_CVT_DEVICE_WORK" # kept afterwards
else
    work="$(mktemp -d /tmp/ptx-cvt-device.XXXXXX)"
    trap 'rm -rf "$work"' EXIT # everything worth keeping is packed into $OUT
fi
budget="${PTX_CVT_DEVICE_BUDGET:-480}"
target=sm_90
version=8.7
mkdir -p "$out" "$work"
log="$out/device-run.log"
start=$SECONDS
status=0

say() { echo "[$((SECONDS - start)) s] $*" | tee -a "$log" >&2; }

# Run a step's command under min(limit, what is left of the budget).
limited() {
    local limit="$1"; shift
    local left=$((budget - (SECONDS - start)))
    if [ "$left" -lt "$limit" ]; then limit="$left"; fi
    if [ "$limit" -lt 10 ]; then
        say "no time left for: $*"
        return 124
    fi
    timeout --signal=TERM --kill-after=5 "$limit" "$@"
}

# Pack a step's folder into $OUT/<step>.tar.gz (replacing an older one whole).
pack() {
    local name="$1"
    [ -d "$work/$name" ] || return 0
    tar -C "$work" -czf "$out/$name.tar.gz.part" "$name" "$name.log" 2>>"$log" &&
        mv -f "$out/$name.tar.gz.part" "$out/$name.tar.gz"
}

# Append a step's outcome to RESULTS.md.
report() {
    local name="$1" rc="$2" took="$3"
    {
        echo "## $name: exit $rc, $took s"
        echo
        echo '```'
        grep -v '^cuda-standin' "$work/$name.log" | tail -n 6
        if [ -f "$work/$name/summary.txt" ]; then
            awk -F'\t' '!/^#/ && $1 != "variant" && $4 != "ok" && $4 != "not run"' "$work/$name/summary.txt" |
                head -n 40
            awk -F'\t' '$4 == "ok" { ok++ } $4 == "not run" { left++ }
                END { printf "%d variants ok, %d not run\n", ok, left }' "$work/$name/summary.txt"
        fi
        if [ -s "$work/$name/mismatches.cases" ]; then
            echo "first mismatches:"
            head -n 20 "$work/$name/mismatches.cases"
        fi
        echo '```'
        echo
    } >>"$work/RESULTS.md"
    publish_results
}

# Copy RESULTS.md into $OUT whole (copy, then rename).
publish_results() {
    cp "$work/RESULTS.md" "$out/RESULTS.md.new" && mv -f "$out/RESULTS.md.new" "$out/RESULTS.md"
}

# One `ptx-cvt gpu` step: step NAME LIMIT ARGS...; sets $rc.
step() {
    local name="$1" limit="$2"; shift 2
    local t=$SECONDS
    local shown="$*"
    if [ "${#shown}" -gt 160 ]; then shown="${shown:0:160}... ($# arguments)"; fi
    say "step $name (limit ${limit} s): ptx-cvt gpu $shown"
    limited "$limit" "$bin" gpu --target "$target" --ptx-version "$version" --out "$work/$name" "$@" \
        >"$work/$name.log" 2>&1
    rc=$?
    grep -v '^cuda-standin' "$work/$name.log" | tail -n 4 | sed 's/^/    /' | tee -a "$log" >&2
    if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then say "step $name: stopped at its time limit"; fi
    say "step $name: exit $rc after $((SECONDS - t)) s"
    report "$name" "$rc" "$((SECONDS - t))"
    pack "$name"
    if [ "$rc" -gt 1 ]; then status=2; elif [ "$rc" -eq 1 ] && [ "$status" -eq 0 ]; then status=1; fi
}

{
    echo "# ptx-cvt device run"
    echo
    echo "started $(date -u +%FT%TZ) on $(uname -n)"
    echo
} >"$work/RESULTS.md"
publish_results

say "binary: $bin"
if ! "$bin" --version >>"$log" 2>&1; then
    say "the binary does not run here (see above; glibc too old?): build it on a machine with an older glibc"
    ldd "$bin" >>"$log" 2>&1
    exit 2
fi
if command -v nvidia-smi >/dev/null; then
    gpu_line="$(timeout 20 nvidia-smi --query-gpu=name,driver_version,compute_cap,memory.total --format=csv,noheader 2>&1)"
    say "nvidia-smi: $gpu_line"
    printf 'GPU (nvidia-smi: name, driver, compute capability, memory): %s\n\n' "$gpu_line" >>"$work/RESULTS.md"
    publish_results
fi
ls -l /dev/nvidia* >>"$log" 2>&1
ldconfig -p 2>/dev/null | grep libcuda >>"$log"
say "host cores: $(nproc)"

# 1. Smoke test, with the two repairs that need no code change.
step smoke 60 --exhaustive --filter cvt.f32.f16
if [ "$rc" -eq 2 ] && grep -q 'no CUDA driver' "$work/smoke.log"; then
    lib="$(find /usr/local/nvidia /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/local/cuda/compat \
        -name 'libcuda.so*' 2>/dev/null | head -n 1)"
    if [ -n "$lib" ]; then
        mkdir -p "$work/libcuda" && ln -sf "$lib" "$work/libcuda/libcuda.so"
        export LD_LIBRARY_PATH="$work/libcuda:$(dirname "$lib")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
        say "found $lib; trying again with it on LD_LIBRARY_PATH"
        step smoke 60 --exhaustive --filter cvt.f32.f16
    fi
fi
for older in 8.4 8.0 7.8; do
    [ "$rc" -eq 2 ] && grep -q 'UNSUPPORTED_PTX_VERSION' "$work/smoke.log" || break
    version=$older
    say "the driver refuses the PTX ISA version; trying $version"
    step smoke 60 --exhaustive --filter cvt.f32.f16
done
if [ "$rc" -gt 1 ]; then
    say "smoke test failed: nothing else runs. Read smoke.log in smoke.tar.gz and device-run.log; fix on the CPU (the stand-in driver reproduces most host-side faults) before the next lease"
    exit 2
fi
status=$rc # a repaired smoke test does not count as a failed step
say "using PTX ISA $version"

# 2. Compact vectors of every variant legal on sm_90.
narrow=()
if [ -n "${PTX_CVT_DEVICE_FILTER:-}" ]; then narrow=(--filter "$PTX_CVT_DEVICE_FILTER"); fi
step vectors 150 "${narrow[@]}" "$root"/vectors/compact/*.cases

# 3. Exhaustive sweeps of every variant whose sources total 16 bits or less.
step exhaustive 150 "${narrow[@]}" --exhaustive --keep open

# 4. Open questions: deep-level inputs of the wider variants they concern.
if [ $((budget - (SECONDS - start))) -lt 40 ]; then
    say "no time left for the open-question step"
    say "done: exit $status; $((SECONDS - start)) s in all"
    exit "$status"
fi
mkdir -p "$work/open-inputs"
globs=('cvt.*ftz*.f32' 'cvt.*relu*' 'cvt.*tf32*' 'cvt.r*.f32.f32' 'cvt.r*.f64.f64'
    'cvt.*[su]8.f64' 'cvt.*[su]16.f64' 'cvt.*satfinite*.f32')
if [ -n "${PTX_CVT_DEVICE_FILTER:-}" ]; then globs=("$PTX_CVT_DEVICE_FILTER"); fi
for glob in "${globs[@]}"; do
    limited 30 "$bin" gen --target "$target" --ptx-version "$version" --level deep --filter "$glob" \
        --out "$work/open-inputs" >>"$log" 2>&1 || say "gen --filter '$glob' failed (see the log)"
done
step open 120 --keep open "$work"/open-inputs/*.cases

say "done: exit $status; $((SECONDS - start)) s in all"
exit "$status"
