"""The float dtypes that hold the formats' own codes."""

from __future__ import annotations

import numpy as np

# The float dtypes that hold a format's own codes: NumPy's, and ml_dtypes'
# where it is installed (looked up by name, so ml_dtypes stays optional).
_FLOAT_DTYPES = {
    "float16": "f16",
    "float32": "f32",
    "float64": "f64",
    "bfloat16": "bf16",
    "float8_e4m3fn": "e4m3",
    "float8_e5m2": "e5m2",
    "float6_e2m3fn": "e2m3",
    "float6_e3m2fn": "e3m2",
    "float4_e2m1fn": "e2m1",
    "float8_e8m0fnu": "ue8m0",
}
_FORMAT_DTYPE = {f: d for d, f in _FLOAT_DTYPES.items()}


def _float_dtype(fmt: str) -> np.dtype | None:
    """The NumPy dtype of format ``fmt``'s codes, or None (no such dtype, or
    ml_dtypes not installed)."""
    name = _FORMAT_DTYPE.get(fmt)
    if name is None:
        return None
    if hasattr(np, name):
        return np.dtype(getattr(np, name))
    try:
        import ml_dtypes
    except ImportError:
        return None
    t = getattr(ml_dtypes, name, None)
    return None if t is None else np.dtype(t)
