#!/usr/bin/env bash
# Install (once) the nvdisasm from the PyPI wheel nvidia-cuda-nvdisasm and
# print its absolute path on the last line of stdout. Idempotent; needs no
# GPU. The sibling of get-ptxas.sh (same cache, same pin policy); together
# they are what `ptx-cvt check --target-ptxas` and scripts/ptxas-lowering.py run.
#   usage: scripts/get-nvdisasm.sh
#   env:   PTX_CVT_NVDISASM_VERSION (default below), XDG_CACHE_HOME, PYTHON
set -euo pipefail

VERSION="${PTX_CVT_NVDISASM_VERSION:-13.5.37}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/ptx-cvt"
# A versioned directory so that changing the pin never reuses a stale install.
TARGET="$CACHE/nvdisasm"
[ "$VERSION" = "13.5.37" ] || TARGET="$CACHE/nvdisasm-$VERSION"
PY="${PYTHON:-python3}"

die() { echo "get-nvdisasm.sh: error: $*" >&2; exit 1; }

find_nvdisasm() {
    find "$TARGET" -type f -name nvdisasm -path '*/bin/*' 2>/dev/null | sort | head -n 1
}

installed_version() {
    ls -d "$TARGET"/nvidia_cuda_nvdisasm-*.dist-info 2>/dev/null \
        | sed -n 's/.*nvidia_cuda_nvdisasm-\(.*\)\.dist-info$/\1/p' | head -n 1
}

NVDISASM="$(find_nvdisasm || true)"
if [ -z "$NVDISASM" ] || [ "$(installed_version)" != "$VERSION" ]; then
    command -v "$PY" >/dev/null 2>&1 || die "python3 not found (set PYTHON=...)"
    mkdir -p "$CACHE"
    TMP="$(mktemp -d "$CACHE/.nvdisasm-install.XXXXXX")"
    trap 'rm -rf "$TMP"' EXIT
    echo "get-nvdisasm.sh: installing nvidia-cuda-nvdisasm==$VERSION into $TARGET" >&2
    if ! "$PY" -m pip install --quiet --disable-pip-version-check --no-deps \
            --target "$TMP/nvdisasm" "nvidia-cuda-nvdisasm==$VERSION" >&2; then
        die "pip install nvidia-cuda-nvdisasm==$VERSION failed (no network to PyPI? wrong platform? only manylinux x86_64/aarch64 wheels exist)"
    fi
    rm -rf "$TARGET.old"
    [ -e "$TARGET" ] && mv "$TARGET" "$TARGET.old"
    mv "$TMP/nvdisasm" "$TARGET"
    rm -rf "$TARGET.old"
    NVDISASM="$(find_nvdisasm || true)"
    [ -n "$NVDISASM" ] || die "installed nvidia-cuda-nvdisasm==$VERSION but found no bin/nvdisasm under $TARGET"
fi

[ -x "$NVDISASM" ] || chmod +x "$NVDISASM" 2>/dev/null || true
[ -x "$NVDISASM" ] || die "$NVDISASM is not executable"
"$NVDISASM" --version >/dev/null 2>&1 || die "$NVDISASM does not run on this machine ($(uname -sm))"
NVDISASM="$(cd "$(dirname "$NVDISASM")" && pwd -P)/$(basename "$NVDISASM")"
echo "$NVDISASM"
