"""Integer values of the m-bit windows of a bit sequence, the building block of the pattern-counting tests."""

from __future__ import annotations

import numpy as np


def window_values(bits: np.ndarray, m: int, *, wrap: bool = False) -> np.ndarray:
    """Value of every m-bit window ``bits[i:i+m]`` read most significant bit first.

    Without ``wrap`` there are ``n - m + 1`` windows; with ``wrap`` the sequence is extended
    by its first ``m - 1`` bits (SP 800-22 sections 2.11.4 and 2.12.4), giving ``n`` windows.
    """
    if m < 1 or m > 62:
        raise ValueError(f"window length m={m} must be between 1 and 62")
    bits = np.asarray(bits, dtype=np.int64)
    if wrap:
        bits = np.concatenate([bits, bits[: m - 1]])
    count = bits.size - m + 1
    if count <= 0:
        return np.zeros(0, dtype=np.int64)
    values = np.zeros(count, dtype=np.int64)
    for offset in range(m):  # m ≤ 62 vector passes, not a per-bit loop
        values <<= 1
        values |= bits[offset: offset + count]
    return values


def pattern_counts(bits: np.ndarray, m: int, *, wrap: bool = False) -> np.ndarray:
    """How often each of the 2^m patterns occurs as a window (index = pattern value)."""
    if m == 0:
        return np.array([np.asarray(bits).size], dtype=np.int64)
    return np.bincount(window_values(bits, m, wrap=wrap), minlength=1 << m)
