#!/usr/bin/env bash
# Install (once) the ptxas from the PyPI wheel nvidia-cuda-nvcc and print its
# absolute path on the last line of stdout. Idempotent; needs no GPU.
#   usage: scripts/get-ptxas.sh
#   env:   PTX_CVT_NVCC_VERSION (default below), XDG_CACHE_HOME, PYTHON
set -euo pipefail

VERSION="${PTX_CVT_NVCC_VERSION:-13.5.37}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/ptx-cvt"
# A versioned directory so that changing the pin never reuses a stale install.
TARGET="$CACHE/nvcc"
[ "$VERSION" = "13.5.37" ] || TARGET="$CACHE/nvcc-$VERSION"
PY="${PYTHON:-python3}"

die() { echo "get-ptxas.sh: error: $*" >&2; exit 1; }

find_ptxas() {
    # The wheel puts the binary at nvidia/cu13/bin/ptxas (older wheels:
    # nvidia/cuda_nvcc/bin/ptxas); search rather than hard-code.
    find "$TARGET" -type f -name ptxas -path '*/bin/*' 2>/dev/null | sort | head -n 1
}

installed_version() {
    # dist-info directory written by pip --target
    ls -d "$TARGET"/nvidia_cuda_nvcc-*.dist-info 2>/dev/null | sed -n 's/.*nvidia_cuda_nvcc-\(.*\)\.dist-info$/\1/p' | head -n 1
}

PTXAS="$(find_ptxas || true)"
if [ -z "$PTXAS" ] || [ "$(installed_version)" != "$VERSION" ]; then
    command -v "$PY" >/dev/null 2>&1 || die "python3 not found (set PYTHON=...)"
    mkdir -p "$CACHE"
    TMP="$(mktemp -d "$CACHE/.nvcc-install.XXXXXX")"
    trap 'rm -rf "$TMP"' EXIT
    echo "get-ptxas.sh: installing nvidia-cuda-nvcc==$VERSION into $TARGET" >&2
    if ! "$PY" -m pip install --quiet --disable-pip-version-check --no-deps \
            --target "$TMP/nvcc" "nvidia-cuda-nvcc==$VERSION" >&2; then
        die "pip install nvidia-cuda-nvcc==$VERSION failed (no network to PyPI? wrong platform? only manylinux x86_64/aarch64 wheels exist)"
    fi
    # Replace atomically-ish: move the old tree away, the new one in.
    rm -rf "$TARGET.old"
    [ -e "$TARGET" ] && mv "$TARGET" "$TARGET.old"
    mv "$TMP/nvcc" "$TARGET"
    rm -rf "$TARGET.old"
    PTXAS="$(find_ptxas || true)"
    [ -n "$PTXAS" ] || die "installed nvidia-cuda-nvcc==$VERSION but found no bin/ptxas under $TARGET"
fi

[ -x "$PTXAS" ] || chmod +x "$PTXAS" 2>/dev/null || true
[ -x "$PTXAS" ] || die "$PTXAS is not executable"
"$PTXAS" --version >/dev/null 2>&1 || die "$PTXAS does not run on this machine ($(uname -sm))"
PTXAS="$(cd "$(dirname "$PTXAS")" && pwd -P)/$(basename "$PTXAS")"
echo "$PTXAS"
