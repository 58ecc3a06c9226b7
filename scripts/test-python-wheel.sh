#!/usr/bin/env bash
# The abi3 wheel as a user gets it: `maturin build` of python/, installed
# into a fresh virtual environment (the pinned requirements of
# python/requirements-test.txt, then the wheel alone), and python/tests run
# against that install (no editable path to the source tree).
#
#   scripts/test-python-wheel.sh [PYTEST ARGS...]
#   env: PYTHON (default python3)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/bootstrap.sh
py="${PYTHON:-python3}"
build_venv="$root/target/python-venv"
fresh="$root/target/python-wheel-venv"
wheels="$root/target/wheels"

# maturin from the pinned requirements (scripts/test-python.sh's venv, made if missing).
if [ ! -x "$build_venv/bin/maturin" ]; then
    "$py" -m venv "$build_venv"
    "$build_venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes \
        -r "$root/python/requirements-test.txt"
fi
rm -rf "$wheels" "$fresh"
echo "test-python-wheel: building the abi3 wheel (cargo: GMP, the oracle, the extension)" >&2
"$build_venv/bin/maturin" build --release --locked --quiet -m python/Cargo.toml -o "$wheels" >&2
wheel="$(ls "$wheels"/ptx_cvt-*-abi3-*.whl)"
"$py" -m venv "$fresh"
"$fresh/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes \
    -r "$root/python/requirements-test.txt"
# The wheel just built, by its exact version, never from an index.
version="$(basename "$wheel" | cut -d- -f2)"
"$fresh/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps --no-index \
    --find-links "$wheels" "ptx-cvt==$version"
# From the repository root: python/ is not on sys.path, so the tests import the installed wheel.
"$fresh/bin/python" - <<'PY'
import pathlib, ptx_cvt
where = pathlib.Path(ptx_cvt.__file__).resolve()
assert "site-packages" in where.parts, f"ptx_cvt imported from {where}, not the installed wheel"
print(f"test-python-wheel: ptx_cvt {ptx_cvt.__version__} from {where.parent}")
PY
exec "$fresh/bin/python" -m pytest python/tests -q -p no:cacheprovider "$@"
