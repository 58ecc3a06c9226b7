#!/usr/bin/env python3
"""Regenerate tests/data/ptxas-legality-ptx94.tsv: cvt spellings with .pzo or .scaled::n1::ue8m0 (scripts/ptxas_legality/ptx94.py)."""
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ptxas_legality import ptx94  # noqa: E402

if __name__ == "__main__":
    sys.exit(ptx94.main())
