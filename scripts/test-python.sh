#!/usr/bin/env bash
# The Python package's tests: a virtual environment (python3 -m venv), the
# build and test tools from PyPI (maturin, numpy, pytest, hypothesis, and the
# optional ml_dtypes and mypy that some tests compare with or skip without) at
# the exact versions and hashes of python/requirements-test.txt,
# a release build of python/ installed into it, then pytest on python/tests.
#
#   scripts/test-python.sh [PYTEST ARGS...]
#   env: PYTHON (default python3), PTX_CVT_VENV (default target/python-venv)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
scripts/bootstrap.sh
py="${PYTHON:-python3}"
venv="${PTX_CVT_VENV:-$root/target/python-venv}"

if ! command -v "$py" >/dev/null 2>&1; then
    echo "test-python: $py not found (install python3, or set PYTHON=...)" >&2
    exit 1
fi
# Debian's python3 lacks ensurepip (and so venv) until python3-venv is installed.
if [ ! -x "$venv/bin/python" ] && ! "$py" -c 'import ensurepip, venv' >/dev/null 2>&1; then
    echo "test-python: installing python3-venv (needed once for python3 -m venv)" >&2
    sudo=""
    if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi
    $sudo apt-get update -qq >&2
    $sudo apt-get install -y -qq python3-venv >&2
fi
if [ ! -x "$venv/bin/python" ]; then
    echo "test-python: creating the virtual environment $venv" >&2
    "$py" -m venv "$venv"
fi
# Pinned with hashes: a new release on PyPI never changes what the tests see.
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --require-hashes \
    -r "$root/python/requirements-test.txt"
# An editable install of the release build (cargo's target dir: python/target).
VIRTUAL_ENV="$venv" PATH="$venv/bin:$PATH" "$venv/bin/maturin" develop --release --locked --quiet -m python/Cargo.toml
cd python
exec "$venv/bin/python" -m pytest tests -q "$@"
