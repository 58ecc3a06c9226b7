#!/usr/bin/env bash
# Records the answers of NVIDIA's host emulation of the ue5m3 conversions
# (the __nv_cvt_*ue5m3* functions of cuda_fp8.hpp, CUDA 13.5: PyPI
# nvidia-cuda-runtime==13.5.37) as known answers under tests/data/emu-ue5m3/
# ([EMU] evidence, docs/semantics.md §5.16); tests/emu_ue5m3.rs checks them
# against the oracle. Not part of the test command: it needs the wheels.
#
# The headers' host path (no __CUDA_ARCH__) is compiled with the system C++
# compiler; only this script's driver and the recorded outputs are committed,
# never the headers' code. cuda_fp8.h includes cuda_fp16.h/cuda_bf16.h, which
# need crt/host_defines.h (nvidia-cuda-crt) and <nv/target> (nvidia-cuda-cccl).
#
#   scripts/emu-ue5m3.sh [OUT_DIR]        (default tests/data/emu-ue5m3)
#   env: CXX (default g++), PYTHON (default python3), XDG_CACHE_HOME
#
# Writes (atomically, the whole folder at once):
#   cvt.{rn,rz,rp}{.satfinite}.ue5m3x2.{f16x2,bf16x2}.table: 256 lines of 256
#     hex bytes; byte j of line i is the ue5m3 code of the 16-bit input
#     i*256+j, taken from the pair function (__nv_cvt_half2raw_to_ue5m3x2,
#     __nv_cvt_bfloat162raw_to_ue5m3x2) with that input in the high half and
#     its sign flipped in the low half (the driver checks that both halves agree);
#   f32.cases: case lines of cvt.{rn,rz,rp}{.satfinite}.ue5m3x2.f32 over a
#     structured f32 set (__nv_cvt_float2_to_ue5m3x2, a = the .y element);
#   f16x2.cases: cvt.rn.f16x2.ue5m3x2 of every code in each lane
#     (__nv_cvt_ue5m3x2_to_halfraw2).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:-$root/tests/data/emu-ue5m3}"
CXX="${CXX:-g++}"
PY="${PYTHON:-python3}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/ptx-cvt/emu-ue5m3"
# The pinned wheels: the runtime headers, and what they include.
WHEELS=(nvidia-cuda-runtime==13.5.37 nvidia-cuda-crt==13.5.37 nvidia-cuda-cccl==13.3.5.0.6)

die() { echo "emu-ue5m3.sh: error: $*" >&2; exit 1; }
command -v "$CXX" >/dev/null || die "no C++ compiler ($CXX)"

inc="$CACHE/include"
if [ ! -f "$inc/cuda_fp8.hpp" ] || [ ! -f "$inc/crt/host_defines.h" ] || [ ! -e "$inc/nv/target" ]; then
    mkdir -p "$CACHE"
    tmp="$(mktemp -d "$CACHE/.dl.XXXXXX")"
    trap 'rm -rf "$tmp"' EXIT
    "$PY" -m pip download --quiet --disable-pip-version-check --no-deps --dest "$tmp/w" "${WHEELS[@]}" >&2 \
        || die "pip download ${WHEELS[*]} failed"
    for w in "$tmp"/w/*.whl; do "$PY" -m zipfile -e "$w" "$tmp/x" >/dev/null; done
    rm -rf "$inc" && mv "$tmp/x/nvidia/cu13/include" "$inc"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work" ${tmp:+"$tmp"}' EXIT
cat >"$work/driver.cpp" <<'EOF'
// Driver for the host emulation: calls the header's functions, prints answers.
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <vector>
#include "cuda_fp8.h"

static const struct { const char *name; cudaRoundMode mode; } RND[] = {
    {"rn", cudaRoundNearest}, {"rz", cudaRoundZero}, {"rp", cudaRoundPosInf}};
static const struct { const char *name; __nv_saturation_t sat; } SAT[] = {{"", __NV_NOSAT}, {".satfinite", __NV_SATFINITE}};

static unsigned pair16(bool bf, uint16_t hi, uint16_t lo, __nv_saturation_t s, cudaRoundMode r) {
    if (bf) {
        __nv_bfloat162_raw x; x.x = lo; x.y = hi;
        return __nv_cvt_bfloat162raw_to_ue5m3x2(x, s, r);
    }
    __half2_raw x; x.x = lo; x.y = hi;
    return __nv_cvt_half2raw_to_ue5m3x2(x, s, r);
}

static float f32_of(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    const char *dir = argv[1];
    char path[4096];
    for (int bf = 0; bf < 2; bf++)
        for (auto &r : RND)
            for (auto &s : SAT) {
                std::vector<unsigned> hi(65536), lo(65536);
                for (unsigned x = 0; x < 65536; x++) {
                    unsigned d = pair16(bf, (uint16_t)x, (uint16_t)(x ^ 0x8000u), s.sat, r.mode);
                    hi[x] = d >> 8;
                    lo[x ^ 0x8000u] = d & 0xff;
                }
                if (hi != lo) { std::fprintf(stderr, "the two halves disagree\n"); return 1; }
                std::snprintf(path, sizeof path, "%s/cvt.%s%s.ue5m3x2.%s.table", dir, r.name, s.name, bf ? "bf16x2" : "f16x2");
                FILE *f = std::fopen(path, "w");
                if (!f) return 1;
                for (unsigned i = 0; i < 256; i++) {
                    for (unsigned j = 0; j < 256; j++) std::fprintf(f, "%02x", hi[i * 256 + j]);
                    std::fputc('\n', f);
                }
                if (std::fclose(f)) return 1;
            }
    // A structured f32 set: every exponent from 2^-20 to 2^18 and the extremes, fraction
    // patterns around the ue5m3 and bf16 rounding points, both signs, zeros, Inf, NaN.
    std::vector<uint32_t> v = {0x00000000u, 0x00000001u, 0x007fffffu, 0x00800000u, 0x7f7fffffu, 0x7f800000u,
                               0x7fc00000u, 0x7f800001u, 0x7fffffffu};
    const uint32_t fr[] = {0x000000u, 0x000001u, 0x080000u, 0x07ffffu, 0x080001u, 0x100000u, 0x180000u, 0x200000u,
                           0x280000u, 0x300000u, 0x380000u, 0x3fffffu, 0x400000u, 0x500000u, 0x600000u, 0x680000u,
                           0x67ffffu, 0x680001u, 0x700000u, 0x780000u, 0x7fffffu, 0x008000u, 0x010000u, 0x018000u};
    for (int e = -20; e <= 18; e++)
        for (uint32_t m : fr) v.push_back(((uint32_t)(e + 127) << 23) | m);
    size_t n = v.size();
    for (size_t i = 0; i < n; i++) v.push_back(v[i] | 0x80000000u);
    n = v.size();
    std::snprintf(path, sizeof path, "%s/f32.cases", dir);
    FILE *f = std::fopen(path, "w");
    if (!f) return 1;
    std::fprintf(f, "# NVIDIA host emulation, cuda_fp8.hpp (PyPI nvidia-cuda-runtime==13.5.37), "
                    "__nv_cvt_float2_to_ue5m3x2: a is the .y element (scripts/emu-ue5m3.sh)\n");
    for (auto &r : RND)
        for (auto &s : SAT)
            for (size_t i = 0; i < n; i++) {
                uint32_t a = v[i], b = v[(i * 7 + 3) % n];
                float2 x; x.x = f32_of(b); x.y = f32_of(a);
                unsigned d = __nv_cvt_float2_to_ue5m3x2(x, s.sat, r.mode);
                std::fprintf(f, "cvt.%s%s.ue5m3x2.f32 %08x %08x => %04x\n", r.name, s.name, a, b, d);
            }
    if (std::fclose(f)) return 1;
    std::snprintf(path, sizeof path, "%s/f16x2.cases", dir);
    f = std::fopen(path, "w");
    if (!f) return 1;
    std::fprintf(f, "# NVIDIA host emulation, cuda_fp8.hpp (PyPI nvidia-cuda-runtime==13.5.37), "
                    "__nv_cvt_ue5m3x2_to_halfraw2: .y from the high byte (scripts/emu-ue5m3.sh)\n");
    for (unsigned c = 0; c < 256; c++) {
        unsigned a = (c << 8) | (255 - c);
        __half2_raw h = __nv_cvt_ue5m3x2_to_halfraw2((__nv_fp8x2_storage_t)a);
        std::fprintf(f, "cvt.rn.f16x2.ue5m3x2 %04x => %04x%04x\n", a, (unsigned)h.y, (unsigned)h.x);
    }
    return std::fclose(f) ? 1 : 0;
}
EOF
"$CXX" -std=c++17 -O1 -I "$inc" "$work/driver.cpp" -o "$work/driver" || die "compiling the driver failed"
mkdir -p "$work/out"
"$work/driver" "$work/out" || die "the driver failed"
mkdir -p "$(dirname "$out")"
rm -rf "$out.new" && mv "$work/out" "$out.new"
rm -rf "$out" && mv "$out.new" "$out"
echo "emu-ue5m3.sh: wrote $(ls "$out" | wc -l) files to $out" >&2
