#!/usr/bin/env bash
# Install (once) the nvdisasm from the PyPI wheel nvidia-cuda-nvdisasm and
# print its absolute path on the last line of stdout. Idempotent; needs no
# GPU. The sibling of get-ptxas.sh (same cache, same pin policy); together
# they are what `ptx-cvt check --target-ptxas` and scripts/ptxas-lowering.py run.
#   usage: scripts/get-nvdisasm.sh
#   env:   PTX_CVT_NVDISASM_VERSION (default below), XDG_CACHE_HOME, PYTHON
set -euo pipefail
exec "$(dirname "${BASH_SOURCE[0]}")/get-nvidia-tool.sh" nvdisasm nvidia-cuda-nvdisasm nvdisasm \
    "${PTX_CVT_NVDISASM_VERSION:-13.5.37}" 13.5.37
