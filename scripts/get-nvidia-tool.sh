#!/usr/bin/env bash
# Install (once) one of NVIDIA's command-line tools from its PyPI wheel and
# print its absolute path on the last line of stdout. Idempotent; needs no GPU.
# get-ptxas.sh and get-nvdisasm.sh are this script with the tool named.
#   usage: scripts/get-nvidia-tool.sh TOOL WHEEL DIR VERSION
#          (ptxas nvidia-cuda-nvcc nvcc 13.5.37; nvdisasm nvidia-cuda-nvdisasm nvdisasm 13.5.37)
#   env:   XDG_CACHE_HOME, PYTHON
set -euo pipefail

TOOL="$1" WHEEL="$2" DIR="$3" VERSION="$4" PINNED="${5:-$4}"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/ptx-cvt"
# A versioned directory so that changing the pin never reuses a stale install.
TARGET="$CACHE/$DIR"
[ "$VERSION" = "$PINNED" ] || TARGET="$CACHE/$DIR-$VERSION"
PY="${PYTHON:-python3}"
DIST="${WHEEL//-/_}"

die() { echo "get-$TOOL.sh: error: $*" >&2; exit 1; }

find_tool() {
    # The wheels put the binary under nvidia/cu13/bin (older ones: nvidia/cuda_*/bin): search.
    find "$TARGET" -type f -name "$TOOL" -path '*/bin/*' 2>/dev/null | sort | head -n 1
}

installed_version() {
    # the dist-info directory written by pip --target
    ls -d "$TARGET/$DIST"-*.dist-info 2>/dev/null | sed -n "s/.*$DIST-\(.*\)\.dist-info\$/\1/p" | head -n 1
}

BIN="$(find_tool || true)"
if [ -z "$BIN" ] || [ "$(installed_version)" != "$VERSION" ]; then
    command -v "$PY" >/dev/null 2>&1 || die "python3 not found (set PYTHON=...)"
    mkdir -p "$CACHE"
    TMP="$(mktemp -d "$CACHE/.$DIR-install.XXXXXX")"
    trap 'rm -rf "$TMP"' EXIT
    echo "get-$TOOL.sh: installing $WHEEL==$VERSION into $TARGET" >&2
    if ! "$PY" -m pip install --quiet --disable-pip-version-check --no-deps \
            --target "$TMP/$DIR" "$WHEEL==$VERSION" >&2; then
        die "pip install $WHEEL==$VERSION failed (no network to PyPI? wrong platform? only manylinux x86_64/aarch64 wheels exist)"
    fi
    # Replace atomically-ish: move the old tree away, the new one in.
    rm -rf "$TARGET.old"
    [ -e "$TARGET" ] && mv "$TARGET" "$TARGET.old"
    mv "$TMP/$DIR" "$TARGET"
    rm -rf "$TARGET.old"
    BIN="$(find_tool || true)"
    [ -n "$BIN" ] || die "installed $WHEEL==$VERSION but found no bin/$TOOL under $TARGET"
fi

[ -x "$BIN" ] || chmod +x "$BIN" 2>/dev/null || true
[ -x "$BIN" ] || die "$BIN is not executable"
"$BIN" --version >/dev/null 2>&1 || die "$BIN does not run on this machine ($(uname -sm))"
BIN="$(cd "$(dirname "$BIN")" && pwd -P)/$(basename "$BIN")"
echo "$BIN"
