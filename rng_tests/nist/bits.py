"""Reading bit sequences for SP 800-22: raw bytes (most significant bit first) or ASCII 0/1."""

from __future__ import annotations

from pathlib import Path

import numpy as np


class BitInputError(ValueError):
    """Input that is not a usable bit sequence; the message names the file and the fault."""


def bits_from_bytes(data: bytes | bytearray | memoryview) -> np.ndarray:
    """Unpack raw bytes, most significant bit of each byte first (the reference's binary mode)."""
    return np.unpackbits(np.frombuffer(bytes(data), dtype=np.uint8)).astype(np.uint8, copy=False)


def bits_from_ascii(text: str | bytes, *, source: str = "input") -> np.ndarray:
    """Parse ASCII '0'/'1' characters; whitespace is ignored, anything else is an error naming its offset."""
    raw = text.encode("ascii", "replace") if isinstance(text, str) else bytes(text)
    array = np.frombuffer(raw, dtype=np.uint8)
    whitespace = np.isin(array, np.frombuffer(b" \t\r\n\f\v", dtype=np.uint8))
    digits = array[~whitespace]
    bad = np.flatnonzero((digits != ord("0")) & (digits != ord("1")))
    if bad.size:
        offset = int(np.flatnonzero(~whitespace)[bad[0]])
        raise BitInputError(
            f"{source}: byte {offset} is {raw[offset:offset + 1]!r}, expected '0' or '1' (ASCII bit text)")
    return (digits - ord("0")).astype(np.uint8)


def read_bits(path: Path, *, ascii_bits: bool = False, max_bits: int | None = None) -> np.ndarray:
    """Read a bit sequence from ``path``; raises :class:`BitInputError` naming the file when unusable."""
    try:
        data = path.read_bytes()
    except OSError as error:
        raise BitInputError(f"{path}: cannot read ({error.strerror or error})") from error
    if not data:
        raise BitInputError(f"{path}: the file is empty")
    bits = bits_from_ascii(data, source=str(path)) if ascii_bits else bits_from_bytes(data)
    if bits.size == 0:
        raise BitInputError(f"{path}: no bits (only whitespace)")
    return bits[:max_bits] if max_bits is not None else bits


def as_bit_array(bits: np.ndarray | bytes | str) -> np.ndarray:
    """Normalise a sequence given as a 0/1 array, ASCII '0'/'1' text, or raw bytes to a uint8 array."""
    if isinstance(bits, str):
        return bits_from_ascii(bits)
    if isinstance(bits, (bytes, bytearray, memoryview)):
        return bits_from_bytes(bits)
    array = np.asarray(bits)
    if array.ndim != 1:
        raise BitInputError("a bit sequence must be one-dimensional")
    if array.size and (array.min() < 0 or array.max() > 1):
        raise BitInputError("a bit sequence may contain only 0 and 1")
    return array.astype(np.uint8, copy=False)
