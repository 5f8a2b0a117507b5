"""Exact binary expansions of mathematical constants, the reference sequences of SP 800-22.

SP 800-22 section 2 states its examples on "the first 1,000,000 binary digits in the
expansion of e" (the reference distribution's ``data/data.e``). The bench computes those
digits itself with exact integer arithmetic (binary splitting of Σ 1/k!), so the known-answer
tests do not depend on a downloaded file.
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np


def _factorial_series(a: int, b: int) -> tuple[int, int]:
    """Return (P, Q) with P/Q = Σ_{k=a}^{b-1} 1/(a·(a+1)·…·k) and Q = a·(a+1)·…·(b-1)."""
    if b - a == 1:
        return 1, a
    middle = (a + b) // 2
    p_left, q_left = _factorial_series(a, middle)
    p_right, q_right = _factorial_series(middle, b)
    return p_left * q_right + p_right, q_left * q_right


def _terms_needed(bits: int) -> int:
    """Smallest K with K! > 2^bits, so the tail Σ_{k≥K} 1/k! < 2/K! is below 2^-(bits-1)."""
    k, log2_factorial = 1, 0.0
    while log2_factorial <= bits:
        k += 1
        log2_factorial += math.log2(k)
    return k


@lru_cache(maxsize=4)
def binary_expansion_of_e(n_bits: int, *, include_integer_part: bool = True) -> np.ndarray:
    """The first ``n_bits`` binary digits of e as a uint8 array, exactly.

    With ``include_integer_part`` (the default, as in the reference's ``data.e``) the
    sequence starts with e's integer part ``10`` followed by the fraction
    ``1011011111100001…``; without it, the fraction alone.
    """
    if n_bits <= 0:
        raise ValueError("n_bits must be positive")
    integer_bits = 2 if include_integer_part else 0
    fraction_bits = n_bits - integer_bits
    guard = 64
    terms = _terms_needed(fraction_bits + guard)
    p, q = _factorial_series(1, terms)  # e - 1 - tail = p / q
    # floor(frac(e) · 2^fraction_bits): frac(e) = e - 2 = (p - q)/q - tail, computed with guard bits,
    # then checked that the tail cannot carry into the kept bits.
    scaled = ((p - q) << (fraction_bits + guard)) // q
    kept, low = scaled >> guard, scaled & ((1 << guard) - 1)
    if low == (1 << guard) - 1 or low == 0:  # pragma: no cover - would need a run of 64 equal bits
        raise ArithmeticError("guard bits inconclusive; raise the guard")
    digits = bin(kept)[2:].zfill(fraction_bits) if fraction_bits > 0 else ""
    if include_integer_part:
        digits = ("10" + digits)[:n_bits]
    result = np.frombuffer(digits.encode("ascii"), dtype=np.uint8) - ord("0")
    result.setflags(write=False)
    return result
