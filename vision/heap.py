"""Keep the readers' freed working memory in the process between frames (glibc's allocator).

Reading a frame allocates working arrays of a few hundred kB each (the working-resolution masks and float planes,
the patches' planes) and frees them when the read ends. By default glibc hands blocks of that size back to the
operating system: it maps them apart from the heap (above its mmap threshold) or trims them off the heap's top, and
the next frame faults the same memory in again, zero-filled. Measured on the dice benchmark's 640 x 480 frames with
the pip-counting reader of the time (since removed; a read took about 5 ms): from 1 to 505 page faults per frame
depending on the run, costing up to 0.85 ms of system time per frame. With the mmap threshold at 16 MiB and the
trim threshold at 64 MiB the heap keeps those blocks: no page fault per frame.

The setting is process-wide: the process keeps up to 64 MiB of freed memory instead of returning it, and blocks of
up to 16 MiB come from its heap. On a C library without ``mallopt`` (not glibc) nothing is changed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
"""glibc's ``mallopt`` parameters (``malloc.h``)."""

MMAP_THRESHOLD_BYTES = 16 * 1024 * 1024
TRIM_THRESHOLD_BYTES = 64 * 1024 * 1024


@functools.cache
def keep_freed_memory() -> bool:
    """Set glibc's mmap and trim thresholds (once per process); ``False`` where the C library has no ``mallopt``."""
    return keep_freed_blocks(MMAP_THRESHOLD_BYTES, TRIM_THRESHOLD_BYTES)


def keep_freed_blocks(mmap_threshold_bytes: int, trim_threshold_bytes: int) -> bool:
    """Blocks up to ``mmap_threshold_bytes`` come from the heap, and up to ``trim_threshold_bytes`` of freed memory
    stay in it (process-wide); ``False`` where the C library has no ``mallopt`` or refuses a value."""
    name = ctypes.util.find_library("c")
    try:
        mallopt = ctypes.CDLL(name).mallopt
    except (OSError, AttributeError, TypeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, mmap_threshold_bytes)) and bool(mallopt(M_TRIM_THRESHOLD,
                                                                                   trim_threshold_bytes))
