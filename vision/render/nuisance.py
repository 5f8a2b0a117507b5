"""Camera nuisance factors applied to a clean rendered scene: light, glare, perspective, blur, noise, JPEG.

Renderers draw a clean top-down "world" image at a known scale, then call
:func:`apply_nuisance` to make it look like a camera frame. The readers are
measured against these factors at realistic strength (:meth:`Nuisance.realistic`),
so the ranges below are the bench's statement of what a lab camera shows.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class Nuisance:
    """Strength of each nuisance factor; :meth:`none` is a perfect camera."""

    light_direction_deg: float = 135.0
    """Where the light comes from, as an image angle (0 = +x, counter-clockwise, y up)."""
    light_gradient: float = 0.0
    """Brightness falls by this fraction across the frame, away from the light (0..0.6)."""
    brightness: float = 1.0
    """Global gain (0.6..1.3)."""
    glare_spots: int = 0
    """Number of random specular spots."""
    glare_radius_px: float = 25.0
    glare_strength: float = 0.0
    """0..1; 1 saturates to white at a spot's centre."""
    noise_sigma: float = 0.0
    """Gaussian sensor noise, grey levels."""
    blur_sigma: float = 0.0
    """Defocus, px."""
    motion_blur_px: float = 0.0
    """Length of a linear motion blur over the whole frame (camera shake)."""
    motion_angle_deg: float = 0.0
    perspective: float = 0.0
    """Keystone: largest corner displacement as a fraction of the frame size (0..0.12)."""
    jpeg_quality: int | None = None
    """JPEG round trip at this quality (40..95); ``None`` for none."""

    def __post_init__(self) -> None:
        if not 0.0 <= self.light_gradient <= 0.9:
            raise ValueError(f"light_gradient must be within 0..0.9, got {self.light_gradient}")
        if not 0.2 <= self.brightness <= 2.0:
            raise ValueError(f"brightness must be within 0.2..2.0, got {self.brightness}")
        if not 0.0 <= self.perspective <= 0.3:
            raise ValueError(f"perspective must be within 0..0.3, got {self.perspective}")
        if self.jpeg_quality is not None and not 1 <= self.jpeg_quality <= 100:
            raise ValueError(f"jpeg_quality must be within 1..100, got {self.jpeg_quality}")
        if min(self.noise_sigma, self.blur_sigma, self.motion_blur_px, self.glare_strength) < 0:
            raise ValueError("noise_sigma, blur_sigma, motion_blur_px and glare_strength must not be negative")

    @classmethod
    def none(cls) -> Nuisance:
        """A perfect camera: the rendered scene unchanged."""
        return cls()

    @classmethod
    def realistic(cls, rng: np.random.Generator) -> Nuisance:
        """Every factor drawn at the strength a fixed lab camera over a table shows."""
        return cls(
            light_direction_deg=float(rng.uniform(0.0, 360.0)),
            light_gradient=float(rng.uniform(0.05, 0.35)),
            brightness=float(rng.uniform(0.8, 1.15)),
            glare_spots=int(rng.integers(0, 3)),
            glare_radius_px=float(rng.uniform(10.0, 35.0)),
            glare_strength=float(rng.uniform(0.2, 0.7)),
            noise_sigma=float(rng.uniform(1.5, 5.0)),
            blur_sigma=float(rng.uniform(0.0, 1.0)),
            perspective=float(rng.uniform(0.0, 0.08)),
            jpeg_quality=int(rng.integers(60, 93)),
        )


def perspective_homography(size: tuple[int, int], strength: float, rng: np.random.Generator) -> np.ndarray:
    """A random keystone homography (world px -> image px) moving each corner by at most ``strength`` x size.

    The corners move towards or away from the centre in a pattern a tilted camera
    gives (one side of the frame nearer than the other), plus a small random jitter.
    """
    width, height = size
    corners = np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], dtype=np.float32)
    if strength <= 0:
        return np.eye(3)
    tilt_angle = rng.uniform(0.0, 2.0 * np.pi)
    tilt = np.array([np.cos(tilt_angle), np.sin(tilt_angle)])
    centre = np.array([(width - 1) / 2.0, (height - 1) / 2.0])
    offsets = corners - centre
    near = (offsets / np.linalg.norm(offsets, axis=1, keepdims=True)) @ tilt  # -1..1: far..near side
    scale = 1.0 + strength * near * 0.8
    moved = centre + offsets * scale[:, None]
    moved += rng.uniform(-0.2, 0.2, size=(4, 2)) * strength * np.array([width, height])
    return cv2.getPerspectiveTransform(corners, moved.astype(np.float32)).astype(np.float64)


def map_points(homography: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Map (N, 2) points through a 3x3 homography."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
    return cv2.perspectiveTransform(pts, np.asarray(homography, dtype=np.float64)).reshape(-1, 2)


def add_glare(image: np.ndarray, centre_xy: tuple[float, float], radius_px: float, strength: float) -> None:
    """Add a specular spot in place: a Gaussian blend towards white, saturating at ``strength`` >= 1."""
    height, width = image.shape[:2]
    cx, cy = centre_xy
    reach = int(3 * radius_px) + 1
    x0, x1 = max(0, int(cx) - reach), min(width, int(cx) + reach + 1)
    y0, y1 = max(0, int(cy) - reach), min(height, int(cy) + reach + 1)
    if x0 >= x1 or y0 >= y1:
        return
    ys, xs = np.mgrid[y0:y1, x0:x1]
    weight = np.clip(strength * 1.6 * np.exp(-((xs - cx) ** 2 + (ys - cy) ** 2) / (2 * (radius_px / 1.5) ** 2)), 0, 1)
    patch = image[y0:y1, x0:x1].astype(np.float32)
    if patch.ndim == 3:
        weight = weight[..., None]
    image[y0:y1, x0:x1] = np.clip(patch + (255.0 - patch) * weight, 0, 255).astype(np.uint8)


def motion_blur(image: np.ndarray, length_px: float, angle_deg: float) -> np.ndarray:
    """Linear motion blur of ``length_px`` along ``angle_deg`` (for a moving object or a shaking camera)."""
    if length_px < 1.0:
        return image
    size = int(np.ceil(length_px)) | 1
    kernel = np.zeros((size, size), dtype=np.float32)
    centre = size // 2
    dx, dy = np.cos(np.radians(angle_deg)), -np.sin(np.radians(angle_deg))
    for t in np.linspace(-length_px / 2.0, length_px / 2.0, max(2, int(length_px * 2))):
        kernel[round(centre + t * dy), round(centre + t * dx)] = 1.0
    kernel /= kernel.sum()
    return cv2.filter2D(image, -1, kernel, borderType=cv2.BORDER_REPLICATE)


def _lighting(image: np.ndarray, nuisance: Nuisance) -> np.ndarray:
    height, width = image.shape[:2]
    if nuisance.light_gradient == 0.0 and nuisance.brightness == 1.0:
        return image
    angle = np.radians(nuisance.light_direction_deg)
    xs = (np.arange(width, dtype=np.float32) - width / 2.0) / max(width, height)
    ys = (np.arange(height, dtype=np.float32) - height / 2.0) / max(width, height)
    towards_light = np.cos(angle) * xs[None, :] - np.sin(angle) * ys[:, None]  # image y points down
    span = float(towards_light.max() - towards_light.min()) or 1.0
    away = (towards_light.max() - towards_light) / span  # 0 at the light's side, 1 opposite
    gain = nuisance.brightness * (1.0 - nuisance.light_gradient * away)
    if image.ndim == 3:
        gain = gain[..., None]
    return np.clip(image.astype(np.float32) * gain, 0, 255).astype(np.uint8)


def apply_nuisance(
    world: np.ndarray,
    nuisance: Nuisance,
    rng: np.random.Generator,
    *,
    homography: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Turn a clean world image into a camera frame; returns ``(image, homography world -> image)``.

    :func:`apply_optics` (lighting, glare spots, perspective, blur), then :func:`apply_sensor`
    (sensor noise, JPEG round trip).
    """
    image, homography = apply_optics(world, nuisance, rng, homography=homography)
    return apply_sensor(image, nuisance, rng)[0], homography


def apply_optics(
    world: np.ndarray,
    nuisance: Nuisance,
    rng: np.random.Generator,
    *,
    homography: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """What stays the same from one frame to the next of a still scene: light, glare, perspective, blur.

    Order: lighting, glare spots, perspective warp, defocus and motion blur. The homography
    is ``homography`` when given, else drawn from ``rng`` with :func:`perspective_homography`
    (identity when ``perspective`` is 0). Returns ``(image, homography world -> image)``.
    """
    height, width = world.shape[:2]
    image = _lighting(world, nuisance)
    if image is world:
        image = world.copy()
    for _ in range(nuisance.glare_spots):
        if nuisance.glare_strength > 0:
            centre = (float(rng.uniform(0, width)), float(rng.uniform(0, height)))
            add_glare(image, centre, nuisance.glare_radius_px, nuisance.glare_strength)
    if homography is None:
        homography = perspective_homography((width, height), nuisance.perspective, rng)
    if not np.allclose(homography, np.eye(3)):
        image = cv2.warpPerspective(image, homography, (width, height), flags=cv2.INTER_LINEAR,
                                    borderMode=cv2.BORDER_REPLICATE)
    if nuisance.blur_sigma > 0.05:
        image = cv2.GaussianBlur(image, (0, 0), nuisance.blur_sigma)
    if nuisance.motion_blur_px >= 1.0:
        image = motion_blur(image, nuisance.motion_blur_px, nuisance.motion_angle_deg)
    return image, np.asarray(homography, dtype=np.float64)


def apply_sensor(image: np.ndarray, nuisance: Nuisance, rng: np.random.Generator) -> tuple[np.ndarray, bytes | None]:
    """What changes in every frame even of a still scene: sensor noise, then the camera's JPEG encoding.

    Returns ``(image, jpeg_bytes)``; ``jpeg_bytes`` is the encoded frame a JPEG camera would deliver
    (``None`` without JPEG), so a simulated frame's evidence is the camera's own bytes.
    """
    if nuisance.noise_sigma > 0:
        noise = np.empty((image.shape[0], image.size // image.shape[0]), dtype=np.int16)  # one channel: randn
        cv2.setRNGSeed(int(rng.integers(0, 2**31 - 1)))  # fills only the first of several channels
        cv2.randn(noise, 0.0, float(nuisance.noise_sigma))  # OpenCV's generator is fast; seeded from rng
        image = cv2.add(image.astype(np.int16), noise.reshape(image.shape)).clip(0, 255).astype(np.uint8)
    if nuisance.jpeg_quality is None:
        return image, None
    ok, buffer = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(nuisance.jpeg_quality)])
    if not ok:  # pragma: no cover - OpenCV always encodes uint8 images
        raise ValueError("JPEG encoding failed")
    encoded = buffer.tobytes()
    return cv2.imdecode(buffer, cv2.IMREAD_UNCHANGED), encoded
