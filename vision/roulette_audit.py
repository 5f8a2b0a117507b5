"""Camera audit of a roulette wheel's layout from a still of the stationary wheel.

What Portaria 217/2007 asks of the rotor (same text for both wheels):

* p217-2007/roleta-francesa/5, p217-2007/roleta-americana/5: the rotor is divided into 37
  pockets, *uniformly* separated by metal frets;
* p217-2007/roleta-francesa/6, p217-2007/roleta-americana/6: the pockets' numbers stand on
  alternately red and black backgrounds, the 0 having neither colour.

Method: the calibrated wheel plane (:mod:`vision.roulette_calibration`) is unwrapped to polar
coordinates at 0.125 degree. The frets are the narrow bright peaks of the pocket ring's
brightness (a low percentile across the ring's radius, so that a ball lying in a pocket does not
count as a fret); they are counted all round, and their spacing gives the pitch uniformity.
Each pocket's colour is the median colour of the middle of its segment on the number ring,
classified as green, red or black by channel ratios (robust to the light level). The checks:

* pocket count is 37;
* the largest deviation of a fret spacing from the mean pitch is at most 20 % of the pitch;
* exactly one green pocket;
* the other 36, read clockwise from the 0, alternate red / black, except where the layout itself
  has two of a colour side by side (the single-zero American order has 1 and 27, both red, where
  the double-zero wheel has its 00);
* the colour sequence clockwise from the 0 is that of the layout's order
  (:func:`bench.games.roulette_layout.colour` of each number of :func:`bench.games.roulette_layout.order_for`),
  (the pocket clockwise after the 0 is red on the French wheel, 32, and black on the American, 28).

The audit cannot read the printed numbers; that the numbers follow the layout order
(p217-2007/roleta-francesa/2) is checked against the wheel's own report
(:meth:`drivers.roulette.RouletteWheel.layout`), not here.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from itertools import pairwise

import numpy as np
from scipy.signal import find_peaks

from bench.games.roulette_layout import colour, order_for
from vision.frame import check_image
from vision.roulette_calibration import POCKETS, WheelCalibration, unwrap

N_ANGLES = 2880
MAX_POCKETS = 60
PITCH_TOLERANCE = 0.20


@dataclass(frozen=True)
class LayoutAudit:
    """Result of a layout audit; ``findings`` name the clause each failure breaks (empty when it passes)."""

    layout: str
    pockets: int
    colours: tuple[str, ...]
    """Clockwise from the (first) green pocket; ``unknown`` where the colour could not be told."""
    green_count: int
    alternation_ok: bool
    layout_colours_ok: bool
    pitch_max_deviation: float
    """Largest |spacing - mean| / mean over the fret spacings."""
    fret_angles_deg: tuple[float, ...]
    findings: tuple[str, ...]
    """Failures, each naming the clause it breaks."""
    clauses: tuple[str, ...]
    unreadable: tuple[int, ...] = ()
    """Positions (clockwise from the 0) whose colour could not be told (a glare, a shadow): not a failure,
    but the audit is then inconclusive for them and the still should be retaken."""

    @property
    def passed(self) -> bool:
        """No finding and every pocket's colour read."""
        return not self.findings and not self.unreadable

    @property
    def inconclusive(self) -> bool:
        """No finding, but some pockets could not be read."""
        return not self.findings and bool(self.unreadable)

    def to_json(self) -> str:
        data = asdict(self)
        data["passed"] = self.passed
        data["inconclusive"] = self.inconclusive
        return json.dumps(data, sort_keys=True)


def _clauses(layout: str) -> tuple[str, str]:
    section = "roleta-francesa" if layout == "french" else "roleta-americana"
    return f"p217-2007/{section}/5", f"p217-2007/{section}/6"


def find_frets(pocket_ring: np.ndarray) -> np.ndarray:
    """Columns of the frets in a polar unwrap of the pocket ring (rows = radii, columns = angles, BGR)."""
    n = pocket_ring.shape[1]
    low = pocket_ring.min(axis=2).astype(np.float32)
    signal = np.percentile(low, 10, axis=0)                     # a ball covers < 70 % of the ring's depth
    smooth = np.convolve(np.concatenate([signal[-n // 8:], signal, signal[: n // 8]]),
                         np.ones(n // 60) / (n // 60), mode="same")[n // 8: -(n // 8)]
    detail = signal - smooth
    pad = n // 20
    wrapped = np.concatenate([detail[-pad:], detail, detail[:pad]])
    spread = float(np.percentile(detail, 95) - np.percentile(detail, 50))
    peaks, _ = find_peaks(wrapped, distance=max(n // (2 * MAX_POCKETS), 1), prominence=0.4 * max(spread, 1.0),
                          width=(None, n * 2.5 / 360))
    peaks = peaks - pad
    return np.unique(peaks[(peaks >= 0) & (peaks < n)])


def classify_colour(bgr: np.ndarray, light: float) -> str:
    """``green``, ``red``, ``black``, ``white`` (a ball, a glare) or ``unknown`` for a median BGR colour.

    By channel ratios, and for black and white by brightness relative to ``light`` (the ball
    track's brightness in the same image), so the classes hold under uneven lighting.
    """
    b, g, r = (float(v) for v in bgr)
    top = max(b, g, r, 1.0)
    spread = top - min(b, g, r)
    if g - max(r, b) > 0.2 * top and g > 25:
        return "green"
    if r - max(g, b) > 0.3 * top and r > 35:
        return "red"
    if spread < 0.25 * top and top > 0.7 * light:
        return "white"
    if spread < 0.35 * top and top < 0.55 * light:
        return "black"
    return "unknown"


def _pairs(sequence: tuple[str, ...]) -> list[tuple[int, str, str]]:
    """Neighbouring non-green pockets along the sequence (not across the 0): (position, colour, next colour)."""
    return [(i, a, b) for i, (a, b) in enumerate(pairwise(sequence))
            if "green" not in (a, b) and "unknown" not in (a, b)]


def _alternation_ok(sequence: tuple[str, ...], expected: tuple[str, ...]) -> bool:
    """Red and black alternate along the sequence clockwise from the 0, except where the layout itself has two
    of a colour side by side (the single-zero American order has 1 and 27, both red, where 00 used to be)."""
    if len(sequence) != len(expected):
        same = [i for i, a, b in _pairs(sequence) if a == b]
        return not same
    allowed = {i for i, a, b in _pairs(expected) if a == b}
    return all(a != b or i in allowed for i, a, b in _pairs(sequence))


def _first_clash(sequence: tuple[str, ...], expected: tuple[str, ...]) -> str:
    allowed = {i for i, a, b in _pairs(expected) if a == b} if len(sequence) == len(expected) else set()
    for i, a, b in _pairs(sequence):
        if a == b and i not in allowed:
            return f"two {a} pockets side by side, {i} and {i + 1} clockwise after the 0"
    return "colour pattern differs"


def audit_layout(image: np.ndarray, calibration: WheelCalibration) -> LayoutAudit:
    """Audit the pockets of the wheel in ``image`` (a still of the stationary rotor) against its layout."""
    check_image(image)
    if image.ndim != 3:
        raise ValueError("the layout audit needs a colour (BGR) image")
    if (image.shape[1], image.shape[0]) != tuple(calibration.image_size):
        raise ValueError(f"image is {image.shape[1]}x{image.shape[0]} px but the calibration is for "
                         f"{calibration.image_size[0]}x{calibration.image_size[1]}")
    c = calibration
    count_clause, colour_clause = _clauses(c.layout)
    depth = c.number_inner - c.pocket_inner
    pocket_radii = np.linspace(c.pocket_inner + 0.06 * depth, c.number_inner - 0.06 * depth, 16)
    number_radii = np.linspace(c.number_inner + 0.2 * (c.number_outer - c.number_inner),
                               c.number_outer - 0.2 * (c.number_outer - c.number_inner), 6)
    pocket_ring = unwrap(image, c.H, pocket_radii, N_ANGLES)
    number_ring = unwrap(image, c.H, number_radii, N_ANGLES)
    frets = find_frets(pocket_ring)
    findings: list[str] = []
    pockets = len(frets)
    if pockets < 3:
        findings.append(f"{count_clause}: no frets found on the pocket ring (is the rotor in view and still?)")
        return LayoutAudit(c.layout, pockets, (), 0, False, False, float("nan"), (), tuple(findings),
                           (count_clause, colour_clause), ())
    spacing = np.diff(np.append(frets, frets[0] + N_ANGLES)).astype(float)
    deviation = float(np.max(np.abs(spacing - spacing.mean())) / spacing.mean())
    if pockets != POCKETS:
        findings.append(f"{count_clause}: {pockets} pockets counted, the rule requires {POCKETS}")
    if deviation > PITCH_TOLERANCE:
        worst = int(np.argmax(np.abs(spacing - spacing.mean())))
        findings.append(f"{count_clause}: frets not uniformly spaced (pocket at {frets[worst] * 360 / N_ANGLES:.1f} deg "
                        f"is {100 * (spacing[worst] / spacing.mean() - 1):+.0f} % of the mean pitch)")
    # one colour per pocket: the median of the middle half of its segment on the pocket ring, or on the
    # number ring where the pocket holds the ball or a glare (its printed number is a minority of the segment)
    track = unwrap(image, c.H, np.linspace(c.track_inner + 0.02, 0.98, 6), 360)
    light = float(np.median(track.max(axis=2)))
    colours = []
    for k in range(pockets):
        start, width = frets[k], spacing[k]
        cols = (start + np.arange(int(0.25 * width), int(0.75 * width) + 1)) % N_ANGLES
        name = classify_colour(np.median(pocket_ring[:, cols].reshape(-1, 3), axis=0), light)
        if name not in ("red", "black", "green"):
            name = classify_colour(np.median(number_ring[:, cols].reshape(-1, 3), axis=0), light)
        colours.append(name if name in ("red", "black", "green") else "unknown")
    greens = [k for k, name in enumerate(colours) if name == "green"]
    first = greens[0] if greens else 0
    sequence = tuple(colours[first:] + colours[:first])
    if len(greens) != 1:
        findings.append(f"{colour_clause}: {len(greens)} green pockets, the rule allows exactly one (the 0)")
    unreadable = tuple(i for i, name in enumerate(sequence) if name == "unknown")
    expected = tuple(colour(n) for n in order_for(c.layout))
    alternation_ok = _alternation_ok(sequence, expected)
    if not alternation_ok:
        findings.append(f"{colour_clause}: red and black do not alternate as on the {c.layout} wheel "
                        f"({_first_clash(sequence, expected)})")
    layout_ok = len(sequence) == len(expected) and all(a in (b, "unknown") for a, b in zip(sequence, expected))
    if not layout_ok and not findings:
        findings.append(f"{colour_clause}: colours clockwise from the 0 do not follow the {c.layout} layout "
                        f"(pocket after the 0 is {sequence[1] if len(sequence) > 1 else '?'}, "
                        f"the layout has {expected[1]})")
    return LayoutAudit(
        layout=c.layout, pockets=pockets, colours=sequence, green_count=len(greens), alternation_ok=alternation_ok,
        layout_colours_ok=layout_ok, pitch_max_deviation=deviation,
        fret_angles_deg=tuple(float(f) * 360 / N_ANGLES for f in frets), findings=tuple(findings),
        clauses=(count_clause, colour_clause), unreadable=unreadable,
    )
