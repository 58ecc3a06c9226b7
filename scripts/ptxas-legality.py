#!/usr/bin/env python3
"""Regenerate tests/data/ptxas-legality.tsv: scalar cvt spellings (scripts/ptxas_legality/scalar.py)."""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ptxas_legality import scalar  # noqa: E402

if __name__ == "__main__":
    scalar.main()
