#!/usr/bin/env python3
"""Regenerate tests/data/ptxas-legality-pack.tsv: cvt.pack spellings on every target (scripts/ptxas_legality/pack.py)."""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ptxas_legality import pack  # noqa: E402

if __name__ == "__main__":
    pack.main()
