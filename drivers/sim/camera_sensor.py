"""The sensor of a simulated camera: per-frame noise and the camera's JPEG encoding, fast.

Every frame of a still scene differs by its sensor noise. Drawing a fresh Gaussian
field per 640x480 frame costs more than rendering the scene, so the simulated cameras
draw four unit fields once (seeded) and use one of them per frame, shifted by a random
number of rows: the per-pixel noise of consecutive frames is then uncorrelated, which is
what frame differencing and the readers see of a real sensor.
"""

from __future__ import annotations

import dataclasses

import cv2
import numpy as np

from vision.render.nuisance import Nuisance, apply_sensor

POOL_SIZE = 4


class SimulatedSensor:
    """Adds sensor noise from a seeded pool of unit Gaussian fields, then encodes as the camera would."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self._pool: np.ndarray | None = None

    def expose(self, image: np.ndarray, nuisance: Nuisance, rng: np.random.Generator) -> tuple[np.ndarray, bytes | None]:
        """``(frame, jpeg bytes or None)`` for one exposure of ``image`` (the optics already applied)."""
        if nuisance.noise_sigma > 0:
            if self._pool is None or self._pool.shape[1:] != image.shape:
                self._pool = np.random.default_rng(self.seed).standard_normal((POOL_SIZE, *image.shape)).astype(np.float32)
            field = np.roll(self._pool[int(rng.integers(POOL_SIZE))], int(rng.integers(image.shape[0])), axis=0)
            noisy = cv2.scaleAdd(field, float(nuisance.noise_sigma), image.astype(np.float32))
            image = np.clip(noisy, 0, 255).astype(np.uint8)
        return apply_sensor(image, dataclasses.replace(nuisance, noise_sigma=0.0), rng)
