"""One camera frame with the facts an auditor needs: when, from where, and its SHA-256.

A frame used for a verdict is kept as evidence (:func:`drivers.camera.keep_frame`); its
hash is the hash of the very bytes stored, so the report's manifest can be checked
against the file. Frames read from image files keep the file's own bytes; frames grabbed
from a live camera are stored losslessly as PNG.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from functools import cached_property

import cv2
import numpy as np


def check_image(image: object, name: str = "image") -> np.ndarray:
    """Return ``image`` if it is a BGR (H, W, 3) or grey (H, W) uint8 array, else raise ValueError naming the fault."""
    if not isinstance(image, np.ndarray):
        raise ValueError(f"{name} must be a numpy array, got {type(image).__name__}")  # noqa: TRY004
    if image.dtype != np.uint8:
        raise ValueError(f"{name} must have dtype uint8, got {image.dtype}")
    if image.ndim not in (2, 3) or (image.ndim == 3 and image.shape[2] != 3):
        raise ValueError(f"{name} must be (H, W) grey or (H, W, 3) BGR, got shape {image.shape}")
    if image.shape[0] < 16 or image.shape[1] < 16:
        raise ValueError(f"{name} is too small to read: {image.shape[1]}x{image.shape[0]} px")
    return image


@dataclass(frozen=True, eq=False)
class Frame:
    """A frame: pixels (BGR uint8), capture time (UNIX seconds), its index in the source, and provenance.

    ``encoded`` holds the original file bytes when the frame came from a file; ``truth``
    holds the ground truth of a rendered (simulated) frame and is ``None`` for real cameras.
    """

    image: np.ndarray
    timestamp: float
    index: int
    source: str
    encoded: bytes | None = None
    encoded_suffix: str = ".png"
    truth: object | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        check_image(self.image, f"frame {self.index} from {self.source}")

    @cached_property
    def _evidence(self) -> bytes:
        if self.encoded is not None:
            return self.encoded
        ok, buffer = cv2.imencode(".png", self.image)
        if not ok:  # pragma: no cover - OpenCV always encodes uint8 BGR as PNG
            raise ValueError(f"frame {self.index} from {self.source} could not be encoded as PNG")
        return buffer.tobytes()

    def evidence_bytes(self) -> bytes:
        """The bytes kept as evidence: the source file's bytes, or a lossless PNG of the pixels."""
        return self._evidence

    @property
    def evidence_suffix(self) -> str:
        """File suffix of :meth:`evidence_bytes` (``.png``, ``.jpg``, ...)."""
        return self.encoded_suffix if self.encoded is not None else ".png"

    @property
    def evidence_media_type(self) -> str:
        """Media type of :meth:`evidence_bytes` (``image/jpeg`` or ``image/png``)."""
        return "image/jpeg" if self.evidence_suffix in (".jpg", ".jpeg") else "image/png"

    @cached_property
    def sha256(self) -> str:
        """SHA-256 (hex) of :meth:`evidence_bytes`."""
        return hashlib.sha256(self._evidence).hexdigest()
