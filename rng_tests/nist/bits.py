"""Reading bit sequences for SP 800-22: raw bytes (most significant bit first) or ASCII 0/1."""

from __future__ import annotations

from collections.abc import Callable, Iterator
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


READ_BLOCK_BYTES = 1 << 20
"""Input is read in blocks of this many bytes, never whole: a device or a pipe may never end."""
WORKING_BYTES_PER_BIT = 64
"""Peak memory the battery takes per bit of the sequence it tests (measured: 40-60 bytes)."""
_ASCII_WHITESPACE = b" \t\r\n\f\v"


def memory_budget_bytes() -> int:
    """Bytes this process may still use: half the memory available, within its address-space limit."""
    import os
    import resource

    available: int | None = None
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                available = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        available = None
    if available is None:
        try:
            available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError):
            available = 1 << 30
    for limit in (resource.RLIMIT_AS, resource.RLIMIT_DATA):
        soft, _ = resource.getrlimit(limit)
        if soft != resource.RLIM_INFINITY:
            available = min(available, max(0, soft - _mapped_bytes()))
    return available // 2


def _mapped_bytes() -> int:
    """The address space this process already maps (VmSize), 0 when unknown."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def read_bits(path: Path, *, ascii_bits: bool = False, max_bits: int | None = None,
              memory_limit_bits: int | None = None) -> np.ndarray:
    """Read a bit sequence from ``path`` in bounded blocks; raises :class:`BitInputError` naming the file.

    ``max_bits``: read no more than this many bits, the first ones (what the sequences to test
    need); the rest of the input is not read. ``memory_limit_bits``: the most bits that fit in
    memory; input holding more (and not capped by ``max_bits``), or a cap above it, is refused
    before it is read whole, so a device such as ``/dev/zero`` or an endless pipe cannot exhaust
    the machine.
    """
    if max_bits is not None and max_bits <= 0:
        raise BitInputError(f"{path}: {max_bits} bits requested; the number of bits must be positive")
    if memory_limit_bits is not None and max_bits is not None and max_bits > memory_limit_bits:
        raise BitInputError(f"{path}: the {max_bits:,} bits requested do not fit in memory (at most "
                            f"{memory_limit_bits:,} here); test fewer or shorter sequences")
    if max_bits is None and memory_limit_bits is not None:
        try:
            size = path.stat().st_size if path.is_file() else 0
        except OSError:
            size = 0
        if size * (1 if ascii_bits else 8) > memory_limit_bits:
            raise BitInputError(_too_large(path, memory_limit_bits, size))
    wanted = max_bits if max_bits is not None else (memory_limit_bits + 1 if memory_limit_bits is not None else None)
    pieces: list[np.ndarray] = []
    held = 0

    def still_wanted() -> int | None:
        return None if wanted is None else wanted - held

    for bits in _bit_blocks(path, ascii_bits, still_wanted):
        if wanted is not None:
            bits = bits[: wanted - held]
        pieces.append(bits)
        held += int(bits.size)
    if held == 0:
        raise BitInputError(f"{path}: no bits (only whitespace)")
    if max_bits is None and memory_limit_bits is not None and held > memory_limit_bits:
        raise BitInputError(_too_large(path, memory_limit_bits, None))
    return pieces[0] if len(pieces) == 1 else np.concatenate(pieces)


def iter_sequences(path: Path, length: int, count: int | None = None, *,
                   ascii_bits: bool = False) -> Iterator[np.ndarray]:
    """Consecutive sequences of ``length`` bits from ``path``, read in bounded blocks: one sequence and one
    block in memory at a time, nothing read past the ``count`` sequences asked (all that the input holds
    when ``count`` is None). Raises :class:`BitInputError` naming the file when it is empty, unreadable,
    or holds fewer sequences than asked; trailing bits that do not fill a sequence are not tested."""
    if length <= 0:
        raise BitInputError(f"{path}: sequence length {length} must be positive")
    if count is not None and count <= 0:
        raise BitInputError(f"{path}: {count} sequences requested; the number must be positive")
    pending = np.empty(0, dtype=np.uint8)
    start = 0
    produced = 0
    total = 0

    def still_wanted() -> int | None:
        return None if count is None else (count - produced) * length - (pending.size - start)

    for bits in _bit_blocks(path, ascii_bits, still_wanted):
        total += int(bits.size)
        pending = np.concatenate([pending[start:], bits]) if start < pending.size else bits
        start = 0
        while pending.size - start >= length and (count is None or produced < count):
            yield pending[start:start + length]
            start += length
            produced += 1
    if produced == 0 or (count is not None and produced < count):
        wanted = count if count is not None else 1
        raise BitInputError(f"{path}: {total:,} bits hold {produced} sequence(s) of {length:,} bits; "
                            f"{wanted} requested")


def _bit_blocks(path: Path, ascii_bits: bool, still_wanted: Callable[[], int | None]) -> Iterator[np.ndarray]:
    """The bits of ``path``, one block of at most ``READ_BLOCK_BYTES`` at a time, until the input ends or
    ``still_wanted()`` (the bits the caller still needs, None for all) is no longer positive; a binary read
    is cut to the bytes still wanted. Raises :class:`BitInputError` naming the file when it cannot be read or
    is empty, and naming the byte offset of a character that is not a bit in ASCII input."""
    offset = 0
    try:
        with path.open("rb") as stream:
            while (still := still_wanted()) is None or still > 0:
                size = READ_BLOCK_BYTES if still is None or ascii_bits else min(READ_BLOCK_BYTES, -(-still // 8))
                block = stream.read(size)
                if not block:
                    break
                bits = _ascii_block(block, offset, str(path)) if ascii_bits else bits_from_bytes(block)
                offset += len(block)
                yield bits
    except OSError as error:
        raise BitInputError(f"{path}: cannot read ({error.strerror or error})") from error
    if offset == 0:
        raise BitInputError(f"{path}: the file is empty")


def _too_large(path: Path, limit: int, size: int | None) -> str:
    """The refusal of input too large for memory: its size when known, the limit, and what to do."""
    holding = f"{size:,} bytes, more bits than" if size is not None else "more bits than"
    return (f"{path}: holds {holding} the {limit:,} that fit in memory here; "
            "test its first part with --length BITS --sequences COUNT")


def _ascii_block(block: bytes, offset: int, source: str) -> np.ndarray:
    """The bits of one block of ASCII bit text; a fault is named by its byte offset in the whole file."""
    try:
        return bits_from_ascii(block, source=source)
    except BitInputError:
        array = np.frombuffer(block, dtype=np.uint8)
        bad = np.flatnonzero(~np.isin(array, np.frombuffer(b"01" + _ASCII_WHITESPACE, dtype=np.uint8)))
        position = int(bad[0])
        raise BitInputError(f"{source}: byte {offset + position} is {block[position:position + 1]!r}, "
                            "expected '0' or '1' (ASCII bit text)") from None


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
