#!/usr/bin/env bash
# Install (once) the ptxas from the PyPI wheel nvidia-cuda-nvcc and print its
# absolute path on the last line of stdout. Idempotent; needs no GPU.
#   usage: scripts/get-ptxas.sh
#   env:   PTX_CVT_NVCC_VERSION (default below), XDG_CACHE_HOME, PYTHON
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/get-nvidia-tool.sh" ptxas nvidia-cuda-nvcc nvcc "${PTX_CVT_NVCC_VERSION:-13.5.37}" 13.5.37
