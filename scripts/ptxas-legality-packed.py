#!/usr/bin/env python3
"""Regenerate tests/data/ptxas-legality-packed.tsv: tf32 and packed cvt spellings (scripts/ptxas_legality/packed.py)."""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ptxas_legality import packed  # noqa: E402

if __name__ == "__main__":
    packed.main()
