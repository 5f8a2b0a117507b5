"""Loading still images from files: checked whole and sized before any pixel is decoded.

A still handed to a reader must be the image the camera took, not part of it: a truncated file
(a copy cut short, a transfer interrupted) is refused, never decoded into a partly grey frame
that a reader might still read. An image's size is read from its header first (Pillow's lazy
``Image.open`` reads only the header) and one above :data:`DEFAULT_MAX_PIXELS` is refused before
it is decoded, so a 20,000 x 20,000 file cannot take gigabytes. The pixels are then decoded by
OpenCV (as the camera drivers decode frames), BGR, 8 bits per channel.
"""

from __future__ import annotations

import io
import threading
import warnings
from pathlib import Path

import numpy as np

DEFAULT_MAX_PIXELS = 40_000_000
"""Largest image accepted, in pixels (width x height): 40 MP, above any camera over a table or a wheel
(an 8K frame is 33 MP); its BGR decoding takes 120 MB."""


_HEADER_LOCK = threading.Lock()  # Pillow's own pixel limit is a module global, lifted while a header is read


class ImageFileError(ValueError):
    """An image file that cannot be used; the message names the file and the fault."""


def image_size(data: bytes, source: str) -> tuple[int, int]:
    """(width, height) from the image's header, without decoding its pixels; :class:`ImageFileError` if unknown."""
    from PIL import Image, UnidentifiedImageError

    try:
        with _HEADER_LOCK, warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            limit, Image.MAX_IMAGE_PIXELS = Image.MAX_IMAGE_PIXELS, None  # the caller applies its own limit
            try:
                with Image.open(io.BytesIO(data)) as image:
                    return int(image.size[0]), int(image.size[1])
            finally:
                Image.MAX_IMAGE_PIXELS = limit
    except UnidentifiedImageError:
        raise ImageFileError(f"{source}: not an image (no PNG, JPEG, TIFF, BMP or other known header)") from None
    except (OSError, SyntaxError, ValueError) as error:
        raise ImageFileError(f"{source}: unreadable image header ({error})") from None


def check_complete(data: bytes, source: str) -> None:
    """Raise :class:`ImageFileError` when the image's data ends early or is corrupt (Pillow decodes it whole)."""
    from PIL import Image, ImageFile

    try:
        # WeasyPrint sets Pillow's LOAD_TRUNCATED_IMAGES for the whole process when it is imported (the PDF
        # certificate): the check holds it off while it decodes, under the lock the header reads share
        with _HEADER_LOCK, warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            lenient, ImageFile.LOAD_TRUNCATED_IMAGES = ImageFile.LOAD_TRUNCATED_IMAGES, False
            try:
                with Image.open(io.BytesIO(data)) as image:
                    image.load()
            finally:
                ImageFile.LOAD_TRUNCATED_IMAGES = lenient
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as error:
        reason = "truncated: the file ends before the image does" if "truncated" in str(error) else str(error)
        raise ImageFileError(f"{source}: {reason}; not read") from None


def decode_image(data: bytes, source: str, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> np.ndarray:
    """Decode image bytes to a BGR array after checking its size (header) and its completeness."""
    import cv2

    if max_pixels <= 0:
        raise ValueError(f"max_pixels {max_pixels}: the pixel limit must be positive")
    if not data:
        raise ImageFileError(f"{source}: the file is empty")
    width, height = image_size(data, source)
    if width * height > max_pixels:
        raise ImageFileError(f"{source}: {width:,} x {height:,} pixels ({width * height:,}) is above the limit of "
                             f"{max_pixels:,} pixels; not decoded")
    check_complete(data, source)
    image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    if image is None:
        raise ImageFileError(f"{source}: not an image OpenCV can decode")
    if {image.shape[0], image.shape[1]} != {width, height}:
        raise ImageFileError(f"{source}: decoded as {image.shape[1]} x {image.shape[0]} pixels, but its header "
                             f"says {width} x {height}")
    return image


def load_image(path: Path, *, max_pixels: int = DEFAULT_MAX_PIXELS) -> np.ndarray:
    """Read and decode an image file (BGR); :class:`ImageFileError` names the file and the fault."""
    if not path.is_file():
        raise ImageFileError(f"{path}: no such file")
    try:
        size = path.stat().st_size
        if size > 4 * max_pixels + (1 << 20):  # more bytes than an uncompressed image within the limit
            raise ImageFileError(f"{path}: {size:,} bytes, more than an image of at most {max_pixels:,} pixels "
                                 "takes; not read")
        data = path.read_bytes()
    except OSError as error:
        raise ImageFileError(f"{path}: cannot read ({error.strerror or error})") from error
    return decode_image(data, str(path), max_pixels=max_pixels)
